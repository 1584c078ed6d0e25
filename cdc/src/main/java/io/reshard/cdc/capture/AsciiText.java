package io.reshard.cdc.capture;

import java.nio.charset.StandardCharsets;

/**
 * A text cell whose stored bytes are all ASCII, in a charset where ASCII bytes mean ASCII
 * characters: its JSON string is those bytes themselves (with JSON's escapes), so capture neither
 * decodes them into a {@code String} on the binlog reader thread nor encodes that back into UTF-8
 * on the engine thread. The JSON is the same as for the decoded {@code String} ({@code
 * RecordFormatTest} checks every ASCII byte). Any other text keeps {@link
 * io.reshard.core.value.ValueCodec#text}'s form.
 *
 * <p>Only capture's row images hold it; it never leaves the capture package.
 *
 * @param bytes the stored bytes, all below 0x80; not copied, never changed
 */
record AsciiText(byte[] bytes) {

  /**
   * An {@link AsciiText} of {@code stored} if the charset is ASCII-compatible (utf8mb4, utf8mb3,
   * utf8, ascii, latin1) and every byte is ASCII, else null.
   */
  static AsciiText of(String charset, byte[] stored) {
    if (charset == null || !asciiCompatible(charset)) {
      return null;
    }
    for (byte b : stored) {
      if (b < 0) {
        return null;
      }
    }
    return new AsciiText(stored);
  }

  private static boolean asciiCompatible(String charset) {
    return switch (charset) {
      case "utf8mb4", "utf8mb3", "utf8", "ascii", "latin1" -> true;
      default -> false;
    };
  }

  /** The text, for messages and tests. */
  @Override
  public String toString() {
    return new String(bytes, StandardCharsets.US_ASCII);
  }
}
