package io.reshard.core.value;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The server's character sets as capture, copy and apply must read them: collation id to charset
 * name (binlog TABLE_MAP events carry collation ids), and text decoding that follows MariaDB's own
 * charset definitions rather than the JVM's.
 *
 * <p>Decoding is exact for {@code utf8mb4}, {@code utf8mb3}, {@code ascii} and {@code latin1}:
 * {@link #encode} gives back the stored bytes. MariaDB's {@code latin1} is Windows cp1252 except
 * that the five bytes cp1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90, 0x9D) map to the C1 controls
 * U+0081, U+008D, U+008F, U+0090, U+009D; Java's {@code windows-1252} rejects those bytes, so this
 * class decodes latin1 with its own table, which is a bijection on all 256 bytes. Other charsets
 * are decoded with the closest Java charset and the result is checked by re-encoding; when the
 * bytes do not come back, {@link Decoded#exact()} is false and the caller must carry the bytes
 * themselves. The JVM default charset is never used.
 *
 * <p>Immutable and thread-safe.
 */
public final class MariaDbCharsets {

  /** The charset name of binary strings (BINARY, VARBINARY, BLOB). */
  public static final String BINARY = "binary";

  /** Text decoded from stored bytes; {@code exact} is false if it cannot reproduce them. */
  public record Decoded(String text, boolean exact) {}

  /** MariaDB latin1 bytes 0x80..0x9F as code points (cp1252 with its five holes filled). */
  private static final char[] LATIN1_80_9F = {
    '\u20AC', '\u0081', '\u201A', '\u0192', '\u201E', '\u2026', '\u2020', '\u2021',
    '\u02C6', '\u2030', '\u0160', '\u2039', '\u0152', '\u008D', '\u017D', '\u008F',
    '\u0090', '\u2018', '\u2019', '\u201C', '\u201D', '\u2022', '\u2013', '\u2014',
    '\u02DC', '\u2122', '\u0161', '\u203A', '\u0153', '\u009D', '\u017E', '\u0178'
  };

  private static final char[] LATIN1_DECODE = new char[256];
  private static final Map<Character, Byte> LATIN1_ENCODE = new HashMap<>();

  static {
    for (int b = 0; b < 256; b++) {
      LATIN1_DECODE[b] = b >= 0x80 && b <= 0x9F ? LATIN1_80_9F[b - 0x80] : (char) b;
      LATIN1_ENCODE.put(LATIN1_DECODE[b], (byte) b);
    }
  }

  /** MariaDB charset names whose Java counterpart is close; decoding is verified per value. */
  private static final Map<String, String> JAVA_NAMES =
      Map.ofEntries(
          Map.entry("ucs2", "UTF-16BE"),
          Map.entry("utf16", "UTF-16BE"),
          Map.entry("utf16le", "UTF-16LE"),
          Map.entry("utf32", "UTF-32BE"),
          Map.entry("latin2", "ISO-8859-2"),
          Map.entry("latin5", "ISO-8859-9"),
          Map.entry("latin7", "ISO-8859-13"),
          Map.entry("greek", "ISO-8859-7"),
          Map.entry("hebrew", "ISO-8859-8"),
          Map.entry("cp1250", "windows-1250"),
          Map.entry("cp1251", "windows-1251"),
          Map.entry("cp1256", "windows-1256"),
          Map.entry("cp1257", "windows-1257"),
          Map.entry("cp850", "IBM850"),
          Map.entry("cp852", "IBM852"),
          Map.entry("cp866", "IBM866"),
          Map.entry("koi8r", "KOI8-R"),
          Map.entry("koi8u", "KOI8-U"),
          Map.entry("sjis", "Shift_JIS"),
          Map.entry("cp932", "windows-31j"),
          Map.entry("ujis", "EUC-JP"),
          Map.entry("euckr", "EUC-KR"),
          Map.entry("gbk", "GBK"),
          Map.entry("gb2312", "GB2312"),
          Map.entry("big5", "Big5"),
          Map.entry("tis620", "TIS-620"));

  /**
   * Collation ids of MariaDB 10.11 that tests and servers without {@code information_schema} access
   * need most; {@link #load} reads the server's full table.
   */
  private static final Map<Integer, String> BUILT_IN =
      Map.ofEntries(
          Map.entry(8, "latin1"),
          Map.entry(5, "latin1"),
          Map.entry(15, "latin1"),
          Map.entry(31, "latin1"),
          Map.entry(47, "latin1"),
          Map.entry(48, "latin1"),
          Map.entry(49, "latin1"),
          Map.entry(94, "latin1"),
          Map.entry(11, "ascii"),
          Map.entry(65, "ascii"),
          Map.entry(33, "utf8mb3"),
          Map.entry(83, "utf8mb3"),
          Map.entry(192, "utf8mb3"),
          Map.entry(45, "utf8mb4"),
          Map.entry(46, "utf8mb4"),
          Map.entry(224, "utf8mb4"),
          Map.entry(246, "utf8mb4"),
          Map.entry(63, BINARY));

  private final Map<Integer, String> byCollationId;

  private MariaDbCharsets(Map<Integer, String> byCollationId) {
    this.byCollationId = Map.copyOf(byCollationId);
  }

  /** The built-in table of common collation ids (latin1, ascii, utf8mb3, utf8mb4, binary). */
  public static MariaDbCharsets builtIn() {
    return new MariaDbCharsets(BUILT_IN);
  }

  /**
   * Reads every collation id of the server from {@code information_schema}: {@code COLLATIONS} and,
   * where it exists (MariaDB 10.10+), {@code COLLATION_CHARACTER_SET_APPLICABILITY}.
   *
   * @throws SQLException if {@code information_schema.COLLATIONS} cannot be read
   */
  public static MariaDbCharsets load(Connection connection) throws SQLException {
    Map<Integer, String> ids = new HashMap<>(BUILT_IN);
    try (Statement st = connection.createStatement()) {
      readIds(st, "SELECT ID, CHARACTER_SET_NAME FROM information_schema.COLLATIONS", ids);
      try {
        readIds(
            st,
            "SELECT ID, CHARACTER_SET_NAME FROM"
                + " information_schema.COLLATION_CHARACTER_SET_APPLICABILITY WHERE ID IS NOT NULL",
            ids);
      } catch (SQLException olderServer) {
        // the table or its ID column does not exist before MariaDB 10.10: COLLATIONS is complete
      }
    }
    return new MariaDbCharsets(ids);
  }

  private static void readIds(Statement st, String sql, Map<Integer, String> into)
      throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        int id = rs.getInt(1);
        String charset = rs.getString(2);
        if (!rs.wasNull() && charset != null) {
          into.put(id, charset);
        }
      }
    }
  }

  /**
   * The charset name of a collation id, e.g. {@code 45 -> utf8mb4}.
   *
   * @throws IllegalArgumentException if the id is unknown to this server
   */
  public String charsetOf(int collationId) {
    String name = byCollationId.get(collationId);
    if (name == null) {
      throw new IllegalArgumentException("unknown collation id " + collationId);
    }
    return name;
  }

  /**
   * Decodes stored bytes of a column in {@code charset}. Never fails: malformed input gives text
   * with U+FFFD and {@code exact = false}.
   *
   * @param charset a MariaDB charset name ({@code utf8mb4}, {@code latin1}, ...), not binary
   */
  public static Decoded decode(String charset, byte[] bytes) {
    switch (charset) {
      case "latin1" -> {
        char[] chars = new char[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
          chars[i] = LATIN1_DECODE[bytes[i] & 0xFF];
        }
        return new Decoded(new String(chars), true);
      }
      case "utf8mb4", "utf8mb3", "utf8" -> {
        return strict(StandardCharsets.UTF_8, bytes);
      }
      case "ascii" -> {
        return strict(StandardCharsets.US_ASCII, bytes);
      }
      default -> {
        Charset java = javaCharset(charset);
        if (java == null) {
          return new Decoded(new String(bytes, StandardCharsets.ISO_8859_1), false);
        }
        String text = new String(bytes, java);
        return new Decoded(text, Arrays.equals(text.getBytes(java), bytes));
      }
    }
  }

  /**
   * Encodes text as a column in {@code charset} stores it; the inverse of {@link #decode} for exact
   * decodings.
   *
   * @throws IllegalArgumentException if the text has a character the charset cannot hold, or the
   *     charset has no Java counterpart
   */
  public static byte[] encode(String charset, String text) {
    switch (charset) {
      case "latin1" -> {
        byte[] out = new byte[text.length()];
        for (int i = 0; i < text.length(); i++) {
          Byte b = LATIN1_ENCODE.get(text.charAt(i));
          if (b == null) {
            throw new IllegalArgumentException(
                "U+" + Integer.toHexString(text.charAt(i)) + " has no MariaDB latin1 byte");
          }
          out[i] = b;
        }
        return out;
      }
      case "utf8mb4", "utf8mb3", "utf8" -> {
        return text.getBytes(StandardCharsets.UTF_8);
      }
      case "ascii" -> {
        return text.getBytes(StandardCharsets.US_ASCII);
      }
      default -> {
        Charset java = javaCharset(charset);
        if (java == null) {
          throw new IllegalArgumentException("no Java charset for MariaDB charset " + charset);
        }
        return text.getBytes(java);
      }
    }
  }

  private static Decoded strict(Charset charset, byte[] bytes) {
    try {
      CharBuffer chars =
          charset
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes));
      return new Decoded(chars.toString(), true);
    } catch (CharacterCodingException e) {
      return new Decoded(new String(bytes, charset), false);
    }
  }

  private static Charset javaCharset(String charset) {
    String name = JAVA_NAMES.get(charset);
    return name != null && Charset.isSupported(name) ? Charset.forName(name) : null;
  }
}
