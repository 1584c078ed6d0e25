package io.reshard.core.value;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.util.Base64;

/**
 * The one value representation of every column type (see {@link ColumnKind} for the table), used by
 * capture when it decodes binlog rows, by the copier and the differ when they read rows over JDBC,
 * and by apply when it binds values. Values that are equal in MariaDB are equal here, byte for byte
 * for strings.
 *
 * <p>Exact bytes: BIT and BYTES values are their bytes (base64 in JSON). TEXT, ENUM and SET values
 * are text decoded with {@link MariaDbCharsets}; {@link #exactBytes} re-encodes them to the stored
 * bytes. A TEXT value whose bytes the charset cannot reproduce stays a {@code byte[]}: its JSON is
 * lossy text for humans and the record carries the bytes in base64 beside it ({@link #rawJson}).
 *
 * <p>JDBC path: select each column with {@link #selectExpression} and read it with {@link
 * #fromJdbc}, over the binary protocol ({@code useServerPrepStmts=true} and a {@code
 * PreparedStatement}; the text protocol prints FLOAT with 6 digits, which loses bits) in a session
 * with {@code time_zone = '+00:00'} (TIMESTAMP values are UTC).
 *
 * <p>Stateless and thread-safe.
 */
public final class ValueCodec {

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  private ValueCodec() {}

  // ---------------------------------------------------------------- JSON

  /**
   * The JSON form of a value (see {@link ColumnKind}).
   *
   * @param value a value of the column's kind as this class produces it, or null
   * @throws IllegalArgumentException if the value's Java type does not fit the kind
   */
  public static JsonNode toJson(ColumnDef column, Object value) {
    if (value == null) {
      return NullNode.instance;
    }
    return switch (column.kind()) {
      case INTEGER ->
          value instanceof BigInteger b
              ? BigIntegerNode.valueOf(b)
              : LongNode.valueOf(asLong(value));
      case FLOAT -> FloatNode.valueOf((Float) value);
      case DOUBLE -> DoubleNode.valueOf((Double) value);
      case YEAR -> IntNode.valueOf((Integer) value);
      case BIT, BYTES -> TextNode.valueOf(Base64.getEncoder().encodeToString((byte[]) value));
      case TEXT ->
          value instanceof byte[] raw
              ? TextNode.valueOf(MariaDbCharsets.decode(column.charset(), raw).text())
              : TextNode.valueOf((String) value);
      default -> TextNode.valueOf((String) value);
    };
  }

  /**
   * Writes the JSON form of a value ({@link #toJson}'s, byte for byte) straight to a generator,
   * without building a tree: the capture hot path.
   *
   * @param value a value of the column's kind as this class produces it, or null
   * @throws IOException from the generator
   * @throws IllegalArgumentException if the value's Java type does not fit the kind
   */
  public static void writeJson(JsonGenerator g, ColumnDef column, Object value) throws IOException {
    if (value == null) {
      g.writeNull();
      return;
    }
    switch (column.kind()) {
      case INTEGER -> {
        if (value instanceof BigInteger b) {
          g.writeNumber(b);
        } else {
          g.writeNumber(asLong(value));
        }
      }
      case FLOAT -> g.writeNumber(((Float) value).floatValue());
      case DOUBLE -> g.writeNumber(((Double) value).doubleValue());
      case YEAR -> g.writeNumber(((Integer) value).intValue());
      case BIT, BYTES -> g.writeString(Base64.getEncoder().encodeToString((byte[]) value));
      case TEXT ->
          g.writeString(
              value instanceof byte[] raw
                  ? MariaDbCharsets.decode(column.charset(), raw).text()
                  : (String) value);
      default -> g.writeString((String) value);
    }
  }

  /** True if {@link #rawJson} gives a value for {@code value}: TEXT kept as its bytes. */
  public static boolean hasRaw(ColumnDef column, Object value) {
    return column.kind() == ColumnKind.TEXT && value instanceof byte[];
  }

  /**
   * The base64 of a TEXT value's bytes when its text cannot reproduce them, else null: the record
   * carries it in {@code before_raw} / {@code after_raw}.
   */
  public static JsonNode rawJson(ColumnDef column, Object value) {
    return column.kind() == ColumnKind.TEXT && value instanceof byte[] raw
        ? TextNode.valueOf(Base64.getEncoder().encodeToString(raw))
        : null;
  }

  /**
   * Reads a value back from its JSON form.
   *
   * @param node the value's JSON; null or JSON null for NULL
   * @param raw the base64 from the record's {@code *_raw} map, or null
   * @throws IllegalArgumentException if the JSON does not fit the column's kind
   */
  public static Object fromJson(ColumnDef column, JsonNode node, JsonNode raw) {
    if (raw != null && !raw.isNull()) {
      return Base64.getDecoder().decode(raw.asText());
    }
    if (node == null || node.isNull()) {
      return null;
    }
    return switch (column.kind()) {
      case INTEGER -> integer(new BigInteger(node.asText()));
      case FLOAT ->
          Float.parseFloat(node.isNumber() ? node.numberValue().toString() : node.asText());
      case DOUBLE ->
          Double.parseDouble(node.isNumber() ? node.numberValue().toString() : node.asText());
      case YEAR -> node.asInt();
      case BIT, BYTES -> Base64.getDecoder().decode(node.asText());
      default -> node.asText();
    };
  }

  /**
   * The bytes MariaDB stores for a value: TEXT, ENUM and SET text re-encoded in the column's
   * charset, BIT and BYTES as they are. Null for NULL.
   *
   * @throws IllegalArgumentException for other kinds, which have no stored-bytes form here
   */
  public static byte[] exactBytes(ColumnDef column, Object value) {
    if (value == null) {
      return null;
    }
    if (value instanceof byte[] bytes) {
      return bytes;
    }
    return switch (column.kind()) {
      case TEXT, ENUM, SET, JSON -> MariaDbCharsets.encode(column.charset(), (String) value);
      default ->
          throw new IllegalArgumentException(
              "column " + column.name() + " of kind " + column.kind() + " has no byte form");
    };
  }

  // ---------------------------------------------------------------- shared decoding

  /** A stored text value: a String when the charset reproduces the bytes, else the bytes. */
  public static Object text(ColumnDef column, byte[] stored) {
    MariaDbCharsets.Decoded d = MariaDbCharsets.decode(column.charset(), stored);
    return d.exact() ? d.text() : stored;
  }

  /** An integer as {@code Long} when it fits, else {@code BigInteger}. */
  public static Object integer(BigInteger value) {
    return value.bitLength() < 64 ? (Object) value.longValue() : value;
  }

  /** An unsigned 64-bit integer held in a long's bits. */
  public static Object unsignedLong(long bits) {
    return bits >= 0 ? (Object) bits : new BigInteger(Long.toUnsignedString(bits));
  }

  /** A DECIMAL's canonical text: plain notation, exactly {@code scale} fraction digits. */
  public static String decimal(BigDecimal value, int scale) {
    return value.setScale(scale).toPlainString();
  }

  /** {@code yyyy-mm-dd}; zero parts are kept ({@code 0000-00-00}, {@code 2024-00-10}). */
  public static String date(int year, int month, int day) {
    StringBuilder b = new StringBuilder(10);
    pad(b, year, 4).append('-');
    pad(b, month, 2).append('-');
    return pad(b, day, 2).toString();
  }

  /**
   * {@code yyyy-mm-dd hh:mm:ss[.ffffff]} with exactly {@code digits} fraction digits.
   *
   * @param micros the fraction in microseconds, 0..999999
   */
  public static String dateTime(
      int year, int month, int day, int hour, int minute, int second, int micros, int digits) {
    if (year >= 0
        && year <= 9999
        && (month | day | hour | minute | second) >= 0
        && month <= 99
        && day <= 99
        && hour <= 99
        && minute <= 99
        && second <= 99
        && micros >= 0
        && micros <= 999_999
        && digits >= 0
        && digits <= 6) {
      // the common case, written straight into chars: capture formats one per DATETIME cell
      char[] c = new char[digits == 0 ? 19 : 20 + digits];
      digits(c, 0, year, 4);
      c[4] = '-';
      digits(c, 5, month, 2);
      c[7] = '-';
      digits(c, 8, day, 2);
      c[10] = ' ';
      digits(c, 11, hour, 2);
      c[13] = ':';
      digits(c, 14, minute, 2);
      c[16] = ':';
      digits(c, 17, second, 2);
      if (digits > 0) {
        c[19] = '.';
        int scaled = micros;
        for (int i = 6; i > digits; i--) {
          scaled /= 10; // keep the leading digits: the fraction is truncated, as printed
        }
        digits(c, 20, scaled, digits);
      }
      return new String(c);
    }
    return dateTimeSlow(year, month, day, hour, minute, second, micros, digits);
  }

  /** {@code value} as exactly {@code width} decimal digits at {@code at}; 0 ≤ value < 10^width. */
  private static void digits(char[] c, int at, int value, int width) {
    for (int i = at + width - 1; i >= at; i--) {
      c[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  /** {@link #dateTime} for any parts, through {@link #pad}; also the reference for its tests. */
  static String dateTimeSlow(
      int year, int month, int day, int hour, int minute, int second, int micros, int digits) {
    StringBuilder b = new StringBuilder(date(year, month, day)).append(' ');
    pad(b, hour, 2).append(':');
    pad(b, minute, 2).append(':');
    pad(b, second, 2);
    return fraction(b, micros, digits).toString();
  }

  /**
   * {@code [-]hh:mm:ss[.ffffff]} with at least two hour digits and exactly {@code digits} fraction
   * digits, as MariaDB prints TIME.
   */
  public static String time(
      boolean negative, int hours, int minute, int second, int micros, int digits) {
    StringBuilder b = new StringBuilder(negative ? "-" : "");
    pad(b, hours, 2).append(':');
    pad(b, minute, 2).append(':');
    pad(b, second, 2);
    return fraction(b, micros, digits).toString();
  }

  private static StringBuilder fraction(StringBuilder b, int micros, int digits) {
    if (digits > 0) {
      StringBuilder f = new StringBuilder();
      pad(f, micros, 6);
      b.append('.').append(f, 0, digits);
    }
    return b;
  }

  private static StringBuilder pad(StringBuilder b, int value, int width) {
    String s = Integer.toString(value);
    for (int i = s.length(); i < width; i++) {
      b.append('0');
    }
    return b.append(s);
  }

  private static long asLong(Object value) {
    return ((Number) value).longValue();
  }

  // ---------------------------------------------------------------- JDBC

  /**
   * The SQL expression to select {@code column} with, so that {@link #fromJdbc} gets the stored
   * form: temporal types as the server's own text ({@code CAST(c AS CHAR)}, exact fractions and
   * zero dates), character types as their stored bytes ({@code CAST(c AS BINARY)}, no conversion to
   * the connection charset), everything else as it is.
   */
  public static String selectExpression(ColumnDef column) {
    String quoted = "`" + column.name().replace("`", "``") + "`";
    return switch (column.kind()) {
      case DATE, DATETIME, TIMESTAMP, TIME -> "CAST(" + quoted + " AS CHAR)";
      case TEXT, ENUM, SET, JSON -> "CAST(" + quoted + " AS BINARY)";
      default -> quoted;
    };
  }

  /**
   * Reads one column of the current row, selected with {@link #selectExpression}, into the value
   * capture produces for the same stored value.
   *
   * @param index the 1-based column index in the result set
   * @throws SQLException from the driver
   */
  public static Object fromJdbc(ResultSet rs, int index, ColumnDef column) throws SQLException {
    switch (column.kind()) {
      case INTEGER -> {
        String s = rs.getString(index);
        return s == null ? null : integer(new BigInteger(s));
      }
      case DECIMAL -> {
        BigDecimal d = rs.getBigDecimal(index);
        return d == null ? null : decimal(d, column.scale());
      }
      case FLOAT -> {
        float f = rs.getFloat(index);
        return rs.wasNull() ? null : f;
      }
      case DOUBLE -> {
        double d = rs.getDouble(index);
        return rs.wasNull() ? null : d;
      }
      case YEAR -> {
        int y = rs.getInt(index);
        return rs.wasNull() ? null : y;
      }
      case BIT, BYTES -> {
        return rs.getBytes(index);
      }
      case TEXT, ENUM, SET, JSON -> {
        byte[] stored = rs.getBytes(index);
        return stored == null ? null : text(column, stored);
      }
      default -> {
        return rs.getString(index);
      }
    }
  }

  // ---------------------------------------------------------------- exact bytes (copy, diff)

  /*
   * The copier and the differ move every value as the exact bytes of the server's text form,
   * selected as CAST(col AS BINARY) so that the driver never converts a character set and never
   * parses a number, and written back through a client-side prepared statement whose parameters
   * are sent as binary literals (_binary'...'), which the server stores unconverted into a string
   * column and parses exactly into a numeric or temporal one. The text form is exact for every
   * type except FLOAT, which the server prints with 6 significant digits (16777217 reads
   * 16777200): floating columns are read as CAST(col AS DOUBLE), whose shortest round-trip text
   * parses back to the same float or double. A key column is compared in keyset predicates with a
   * bound parameter cast to the column's own type, so that the server compares as it orders.
   */

  /**
   * The select-list expression whose value is the column's exact text bytes: {@code CAST(`c` AS
   * BINARY)}, {@code CAST(CAST(`c` AS DOUBLE) AS BINARY)} for a floating column, {@code CAST(`c` +
   * 0 AS BINARY)} (the index or bit mask) for an {@code ENUM} or {@code SET}.
   */
  public static String exactSelectExpression(ColumnDef column) {
    String inner =
        switch (column.kind()) {
          case FLOAT, DOUBLE -> "CAST(" + column.quoted() + " AS DOUBLE)";
          case ENUM, SET -> column.quoted() + " + 0";
          default -> column.quoted();
        };
    return "CAST(" + inner + " AS BINARY)";
  }

  /**
   * Binds one exact value (as {@link #exactSelectExpression} read it) so that every driver sends
   * what the server must parse: the server's own text of a number, a temporal value or an {@code
   * ENUM}/{@code SET} index as a string (MySQL Connector/J sends bytes as a hex literal, which a
   * numeric context reads as the number of its bytes, not as its text), every other value as its
   * bytes. Null for NULL.
   */
  public static void bindExact(PreparedStatement ps, int index, ColumnDef column, byte[] value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.NULL);
      return;
    }
    switch (column.kind()) {
      case INTEGER, DECIMAL, FLOAT, DOUBLE, YEAR, DATE, DATETIME, TIMESTAMP, TIME, ENUM, SET ->
          ps.setString(index, new String(value, StandardCharsets.ISO_8859_1));
      default -> ps.setBytes(index, value);
    }
  }

  /**
   * The expression that stores one bound value (as {@link #exactSelectExpression} read it) into the
   * column: {@code ?}; {@code CAST(? AS UNSIGNED)} for an {@code ENUM} index or {@code SET} bit
   * mask; {@code CONVERT(? USING utf8mb4)} for MySQL's JSON, which refuses a binary string (its
   * text form, parsed again, is the same binary document).
   */
  public static String exactInsertParameter(ColumnDef column) {
    return switch (column.kind()) {
      case ENUM, SET -> "CAST(? AS UNSIGNED)";
      case JSON -> "CONVERT(? USING utf8mb4)";
      default -> "?";
    };
  }

  /**
   * The expression for one bound key value (the column's exact text bytes, sent as a binary
   * literal) that the server compares with the column as it orders it: integers as integers,
   * strings in the column's collation (a bare binary literal would force a binary comparison),
   * temporals as temporals, an {@code ENUM} as its index (which is how it orders).
   *
   * @throws IllegalStateException if the column cannot be a key ({@link ColumnDef#canBeKey()})
   */
  public static String keyParameter(ColumnDef column) {
    if (!column.canBeKey()) {
      throw new IllegalStateException(
          "column " + column.name() + " (" + column.columnType() + ") cannot be compared as a key");
    }
    return switch (column.kind()) {
      case INTEGER -> column.unsigned() ? "CAST(? AS UNSIGNED)" : "CAST(? AS SIGNED)";
      case YEAR, ENUM -> "CAST(? AS UNSIGNED)"; // an ENUM key is bound and compared by index
      case DECIMAL -> "CAST(? AS DECIMAL(" + column.precision() + "," + column.scale() + "))";
      // explicit: the comparison must not depend on how a driver types a parameter
      case TEXT -> "CONVERT(? USING " + column.charset() + ") COLLATE " + column.collation();
      case DATE -> "CAST(? AS DATE)";
      case DATETIME, TIMESTAMP -> "CAST(? AS DATETIME(" + column.scale() + "))";
      case TIME -> "CAST(? AS TIME(" + column.scale() + "))";
      default -> "?"; // binary strings
    };
  }

  /**
   * The select-list expression whose bytes are equal for two values exactly when the column's
   * collation calls them equal: the collation's sort key for a character column ({@code
   * WEIGHT_STRING}, padded to the column's length for a PAD SPACE collation, where {@code 'a'} and
   * {@code 'a '} are equal), the value's exact bytes otherwise (integers, decimals of one scale,
   * temporals and binary strings are equal exactly when their text is).
   */
  public static String equalityKeyExpression(ColumnDef column) {
    if (column.isCharacter()) {
      String collation = column.collation();
      boolean noPad = collation != null && collation.contains("_nopad_");
      return noPad
          ? "WEIGHT_STRING(" + column.quoted() + ")"
          : "WEIGHT_STRING(" + column.quoted() + " AS CHAR(" + column.maxChars() + "))";
    }
    return exactSelectExpression(column);
  }
}
