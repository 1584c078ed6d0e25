package io.reshard.router;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * A keyspace id (ksid): the bytes a row's sharding key maps to through its primary {@link Vindex}.
 * The shard that holds the row is the one whose {@link KeyRange} contains its ksid.
 *
 * <p>Ordering follows Vitess ({@code go/vt/key/key.go}, {@code key.Compare}): ksids are compared as
 * unsigned bytes, lexicographically, after removing trailing zero bytes, so {@code 80} and {@code
 * 8000} are the same position in the keyspace. {@link #equals} and {@link #hashCode} agree with
 * that ordering; {@link #hex()} and {@link #bytes()} keep the exact bytes given, so two equal ksids
 * may print differently ({@code 80} and {@code 8000}). The ksids one vindex produces all have the
 * same length (8 bytes for {@code hash}, {@code xxhash}, {@code numeric}; 16 for {@code
 * binary_md5}), so the difference only shows when comparing range boundaries.
 *
 * <p>Immutable and thread-safe. A ksid is never empty: emptiness means "minimum" or "beyond the
 * maximum" only as a {@link KeyRange} boundary, never as a row's ksid.
 */
public final class KeyspaceId implements Comparable<KeyspaceId> {
  private static final HexFormat HEX = HexFormat.of();

  private final byte[] bytes;

  private KeyspaceId(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Returns the ksid with these bytes.
   *
   * @param bytes one or more bytes; copied
   * @throws IllegalArgumentException if {@code bytes} is empty
   */
  public static KeyspaceId of(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    if (bytes.length == 0) {
      throw new IllegalArgumentException("a keyspace id has at least one byte; got none");
    }
    return new KeyspaceId(bytes.clone());
  }

  /**
   * Parses a ksid written in hex, either case, without prefix ({@code 166b40b44aba4bd6}).
   *
   * @throws IllegalArgumentException naming the input if it is empty, has an odd number of digits
   *     or a character that is not a hex digit
   */
  public static KeyspaceId fromHex(String hex) {
    Objects.requireNonNull(hex, "hex");
    if (hex.isEmpty()) {
      throw new IllegalArgumentException("a keyspace id has at least one byte; got \"\"");
    }
    return new KeyspaceId(parseHex(hex, "keyspace id \"" + hex + "\""));
  }

  /**
   * Returns the 8-byte big-endian ksid of an unsigned 64-bit value: what Vitess's {@code numeric}
   * vindex produces and {@code hash} encrypts ({@code key.Uint64Key}).
   *
   * @param unsigned the value, read as unsigned (so {@code -1} is {@code ffffffffffffffff})
   */
  public static KeyspaceId ofUint64(long unsigned) {
    return new KeyspaceId(uint64Bytes(unsigned));
  }

  /** Returns a copy of the exact bytes. */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** Returns the number of bytes, trailing zero bytes included. */
  public int length() {
    return bytes.length;
  }

  /** Returns the exact bytes in lower-case hex without prefix, e.g. {@code 166b40b44aba4bd6}. */
  public String hex() {
    return HEX.formatHex(bytes);
  }

  /**
   * Compares as Vitess's {@code key.Compare}: unsigned bytes, lexicographic, trailing zero bytes
   * ignored.
   */
  @Override
  public int compareTo(KeyspaceId other) {
    return compareNormalized(bytes, other.bytes);
  }

  /** True if {@code other} is a ksid at the same position: equal bytes up to trailing zeros. */
  @Override
  public boolean equals(Object other) {
    return other instanceof KeyspaceId k && compareNormalized(bytes, k.bytes) == 0;
  }

  @Override
  public int hashCode() {
    return normalizedHash(bytes);
  }

  /** Returns {@link #hex()}. */
  @Override
  public String toString() {
    return hex();
  }

  // ---- byte helpers shared with KeyRange (package-private) ----

  /** Raw bytes, not copied: for KeyRange only. */
  byte[] rawBytes() {
    return bytes;
  }

  /** The length of {@code b} without its trailing zero bytes (Vitess's {@code key.Normalize}). */
  static int normalizedLength(byte[] b) {
    int n = b.length;
    while (n > 0 && b[n - 1] == 0) {
      n--;
    }
    return n;
  }

  /**
   * A hash of {@code b} without its trailing zero bytes, consistent with {@link
   * #compareNormalized}.
   */
  static int normalizedHash(byte[] b) {
    int h = 1;
    for (int i = 0, n = normalizedLength(b); i < n; i++) {
      h = 31 * h + b[i];
    }
    return h;
  }

  /** Vitess's {@code key.Compare}: unsigned lexicographic order, trailing zero bytes ignored. */
  static int compareNormalized(byte[] a, byte[] b) {
    return Arrays.compareUnsigned(a, 0, normalizedLength(a), b, 0, normalizedLength(b));
  }

  /** Lower-case hex of {@code b}, empty for an empty array. */
  static String toHex(byte[] b) {
    return HEX.formatHex(b);
  }

  /**
   * Parses hex digits of either case.
   *
   * @param what names the input in the error message
   * @throws IllegalArgumentException naming {@code what} if the digits are odd in number or not hex
   */
  static byte[] parseHex(String hex, String what) {
    if (hex.length() % 2 != 0) {
      throw new IllegalArgumentException(
          "invalid " + what + ": odd number of hex digits (" + hex.length() + ")");
    }
    for (int i = 0; i < hex.length(); i++) {
      if (!HexFormat.isHexDigit(hex.charAt(i))) {
        throw new IllegalArgumentException(
            "invalid " + what + ": '" + hex.charAt(i) + "' at offset " + i + " is not a hex digit");
      }
    }
    return HEX.parseHex(hex);
  }

  /** The 8 big-endian bytes of {@code v}. */
  static byte[] uint64Bytes(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }
}
