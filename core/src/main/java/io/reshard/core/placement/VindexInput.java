package io.reshard.core.placement;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.value.MariaDbCharsets;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The one rule for what a vindex is given for a sharding column's value, whichever path holds the
 * value: the copier and the differ (the exact bytes of the server's text form, {@link
 * io.reshard.core.rows.Row}), apply (a change image's value in {@link
 * io.reshard.core.value.ValueCodec}'s representation), and router-lib (the value an application
 * passes, which router-lib hands to the vindex as it is). Each path's form is turned into the value
 * an application would pass for the same stored value, so all of them compute the same keyspace id:
 *
 * <table>
 *   <caption>what the vindex is given, per column kind</caption>
 *   <tr><th>kind</th><th>vindex input</th><th>an application passes</th></tr>
 *   <tr><td>INTEGER, YEAR</td><td>the integer ({@code Long}, or its text beyond 18 digits)</td>
 *       <td>a {@code Long} (or {@code BigInteger}); YEAR 0000 is 0</td></tr>
 *   <tr><td>TEXT</td><td>the text's UTF-8 bytes; the stored bytes when the column's charset
 *       cannot decode them exactly</td><td>a {@code String}</td></tr>
 *   <tr><td>ENUM</td><td>the label's UTF-8 bytes ({@code ""} for the error value)</td>
 *       <td>the label as a {@code String}</td></tr>
 *   <tr><td>SET</td><td>the UTF-8 bytes of its labels in definition order joined by {@code ,}
 *       </td><td>that {@code String}</td></tr>
 *   <tr><td>DECIMAL, DATE, DATETIME, TIMESTAMP, TIME</td><td>the server's text ({@code 12.50},
 *       {@code 2024-01-02 03:04:05.120}: exactly the column's fraction digits, TIMESTAMP in UTC)
 *       </td><td>that text as a {@code String}</td></tr>
 *   <tr><td>BIT, BYTES</td><td>the stored bytes (BINARY(n) padded to n)</td>
 *       <td>a {@code byte[]}</td></tr>
 * </table>
 *
 * FLOAT, DOUBLE, MySQL's JSON, spatial and other types cannot be sharding columns ({@link
 * #unsupported}): a floating-point value has no text the copy, the change stream and an application
 * all give alike (the copy reads a FLOAT widened to a double, an application passes a {@code
 * float}, and the vindexes refuse both), and the others have no value an application could pass
 * that reproduces their stored form.
 *
 * <p>Which vindex types accept the input is the vindex's own rule ({@link
 * io.reshard.router.Vindex}): {@code hash} and {@code numeric} take the integers, {@code xxhash}
 * and {@code binary_md5} everything above. Stateless and thread-safe.
 */
final class VindexInput {
  private VindexInput() {}

  /**
   * Why a column of this type cannot be a sharding column, naming the type and what to do; empty if
   * it can.
   */
  static Optional<String> unsupported(ColumnDef c) {
    String why =
        switch (c.kind()) {
          case FLOAT, DOUBLE ->
              "a floating-point value has no exact text form that the copy, the change stream and"
                  + " router-lib would all place alike";
          case JSON -> "a JSON value's text is not the same on every path";
          case OTHER -> "reshard cannot move columns of this type";
          case BYTES -> c.isSpatial() ? "a spatial value cannot be a sharding key" : null;
          default -> null;
        };
    return Optional.ofNullable(why)
        .map(
            w ->
                "column "
                    + c.name()
                    + " of type "
                    + c.columnType()
                    + " cannot be a sharding column: "
                    + w
                    + "; place the table by an integer, string, ENUM, SET, DECIMAL, temporal or"
                    + " binary column");
  }

  /**
   * The vindex input for the copier's and the differ's form of a value: the exact bytes of the
   * server's text ({@link io.reshard.core.value.ValueCodec#exactSelectExpression}: an ENUM's index,
   * a SET's bit mask, as decimal text). Null for NULL.
   *
   * @throws IllegalArgumentException if the column's type cannot be a sharding column, or an ENUM
   *     index or SET mask is beyond the column's labels
   */
  static Object fromExactBytes(ColumnDef c, byte[] v) {
    if (v == null) {
      return null;
    }
    return switch (c.kind()) {
      case INTEGER -> ShardingKey.integerValue(v);
      case YEAR -> Long.parseLong(ascii(v)); // "0000" is the year 0, as the binlog gives it
      case TEXT -> utf8(c, v);
      case ENUM -> utf8(enumLabel(c, Integer.parseInt(ascii(v))));
      case SET -> utf8(setLabels(c, new BigInteger(ascii(v))));
      default -> checked(c, v); // DECIMAL, temporal, BIT, BYTES: their bytes; others refused
    };
  }

  /**
   * The vindex input for a change image's value ({@link io.reshard.core.value.ValueCodec}'s
   * representation: a label for an ENUM, text for DECIMAL and temporal types). Null for NULL.
   *
   * @throws IllegalArgumentException if the column's type cannot be a sharding column
   */
  static Object fromValue(ColumnDef c, Object value) {
    if (value == null) {
      return null;
    }
    return switch (c.kind()) {
      case INTEGER -> value;
      case YEAR -> ((Number) value).longValue();
      case TEXT, ENUM, SET ->
          value instanceof byte[] raw ? raw : utf8((String) value); // raw: not exactly decodable
      case DECIMAL, DATE, DATETIME, TIMESTAMP, TIME ->
          ((String) value).getBytes(StandardCharsets.US_ASCII);
      default -> checked(c, value); // BIT, BYTES: their bytes; others refused
    };
  }

  /** {@code v} itself, if the column's type can be a sharding column. */
  private static Object checked(ColumnDef c, Object v) {
    unsupported(c)
        .ifPresent(
            why -> {
              throw new IllegalArgumentException(why);
            });
    return v;
  }

  /**
   * A stored text's UTF-8 bytes: the stored bytes themselves in a UTF-8 charset (or ascii), else
   * re-encoded from the column's charset when it decodes them exactly, else the stored bytes.
   */
  private static byte[] utf8(ColumnDef c, byte[] stored) {
    String charset = c.charset();
    if (charset == null
        || charset.startsWith("utf8")
        || charset.equals("ascii")
        || charset.equals(MariaDbCharsets.BINARY)) {
      return stored;
    }
    MariaDbCharsets.Decoded d = MariaDbCharsets.decode(charset, stored);
    return d.exact() ? utf8(d.text()) : stored;
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String ascii(byte[] v) {
    return new String(v, StandardCharsets.US_ASCII);
  }

  /** The label of ENUM index {@code index}: 1 is the first label, 0 the error value {@code ""}. */
  static String enumLabel(ColumnDef c, int index) {
    if (index == 0) {
      return "";
    }
    if (index < 0 || index > c.labels().size()) {
      throw new IllegalArgumentException(
          "column " + c.name() + ": ENUM index " + index + " is beyond its " + c.labels());
    }
    return c.labels().get(index - 1);
  }

  /** The labels of SET bit mask {@code mask}, in definition order, joined by {@code ,}. */
  static String setLabels(ColumnDef c, BigInteger mask) {
    if (mask.signum() < 0 || mask.bitLength() > c.labels().size()) {
      throw new IllegalArgumentException(
          "column " + c.name() + ": SET mask " + mask + " is beyond its " + c.labels());
    }
    StringBuilder b = new StringBuilder();
    boolean first = true;
    for (int i = 0; i < c.labels().size(); i++) {
      if (mask.testBit(i)) {
        b.append(first ? "" : ",").append(c.labels().get(i));
        first = false;
      }
    }
    return b.toString();
  }
}
