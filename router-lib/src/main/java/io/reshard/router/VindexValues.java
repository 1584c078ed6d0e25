package io.reshard.router;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Converts column values to what a vindex computes on: an unsigned 64-bit integer or bytes. The
 * accepted types and the reason for each rule are in {@link Vindex}.
 */
final class VindexValues {
  /** The smallest accepted integer: {@code BIGINT}'s minimum, -2^63. */
  private static final BigInteger MIN = BigInteger.valueOf(Long.MIN_VALUE);

  /** The largest accepted integer: {@code BIGINT UNSIGNED}'s maximum, 2^64-1. */
  private static final BigInteger MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

  /** A decimal integer as text: optional sign, ASCII digits only (no spaces, no exponent). */
  private static final Pattern DECIMAL = Pattern.compile("[+-]?[0-9]+");

  /** Printed values are cut to this many characters, so one huge value cannot flood a log. */
  private static final int MAX_PRINTED_CHARS = 80;

  private VindexValues() {}

  /** The value as an unsigned 64-bit pattern; negative values as two's complement. */
  static long toUint64(VindexType type, Object value) {
    requireNotNull(type, value);
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof BigInteger b) {
      return inRange(type, value, b).longValue();
    }
    if (value instanceof String s) {
      if (isShortDecimal(s)) {
        return Long.parseLong(s); // at most 18 digits: always in range
      }
      if (!DECIMAL.matcher(s).matches()) {
        throw new UnmappableValueException(
            type, describe(value), "not a decimal integer (optional sign, then digits)");
      }
      return inRange(type, value, new BigInteger(s)).longValue();
    }
    throw new UnmappableValueException(
        type,
        describe(value),
        "a "
            + type
            + " vindex maps integers (Long, Integer, Short, Byte, BigInteger, or a decimal String),"
            + " not "
            + value.getClass().getSimpleName());
  }

  /**
   * True for an optional sign and 1 to 18 digits: the common case (the copier and the differ pass
   * every integer sharding key as its decimal text), parsed without a regular expression or a
   * {@link BigInteger}.
   */
  private static boolean isShortDecimal(String s) {
    int n = s.length();
    int start = n > 0 && (s.charAt(0) == '-' || s.charAt(0) == '+') ? 1 : 0;
    if (n - start < 1 || n - start > 18) {
      return false;
    }
    for (int i = start; i < n; i++) {
      char c = s.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** The bytes the vindex hashes: as is, UTF-8 text, or an integer's decimal text. */
  static byte[] toBytes(VindexType type, Object value) {
    requireNotNull(type, value);
    if (value instanceof byte[] b) {
      return b;
    }
    if (value instanceof String s) {
      return s.getBytes(StandardCharsets.UTF_8);
    }
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte) {
      return value.toString().getBytes(StandardCharsets.US_ASCII);
    }
    if (value instanceof BigInteger b) {
      return inRange(type, value, b).toString().getBytes(StandardCharsets.US_ASCII);
    }
    throw new UnmappableValueException(
        type,
        describe(value),
        "a "
            + type
            + " vindex maps bytes (byte[], a String as UTF-8, or an integer as its decimal text),"
            + " not "
            + value.getClass().getSimpleName());
  }

  /** A printable form of a value for messages: strings quoted, bytes in hex, long ones cut. */
  static String describe(Object value) {
    String s;
    if (value == null) {
      return "NULL";
    } else if (value instanceof String str) {
      s = "\"" + str + "\"";
    } else if (value instanceof byte[] b) {
      s = "0x" + HexFormat.of().formatHex(b);
    } else {
      s = value + " (" + value.getClass().getSimpleName() + ")";
    }
    return s.length() <= MAX_PRINTED_CHARS ? s : s.substring(0, MAX_PRINTED_CHARS) + "...";
  }

  private static void requireNotNull(VindexType type, Object value) {
    if (value == null) {
      throw new UnmappableValueException(
          type, "NULL", "a NULL sharding key has no keyspace id, so the row cannot be placed");
    }
  }

  private static BigInteger inRange(VindexType type, Object value, BigInteger b) {
    if (b.compareTo(MIN) < 0 || b.compareTo(MAX) > 0) {
      throw new UnmappableValueException(
          type,
          describe(value),
          "out of range: a " + type + " vindex maps integers from " + MIN + " to " + MAX);
    }
    return b;
  }
}
