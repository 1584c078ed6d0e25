package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.deserialization.ColumnType;
import com.github.shyiko.mysql.binlog.event.deserialization.json.JsonBinary;
import com.github.shyiko.mysql.binlog.event.deserialization.json.JsonFormatter;
import io.reshard.core.value.ValueCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A MySQL binary JSON value (a JSON column's row image) as the text MySQL itself gives for it, the
 * text a JDBC read of the column returns and that a copy writes: {@code ", "} and {@code ": "}
 * between entries, a double in its shortest form with MySQL's choice between fixed and exponent
 * notation ({@code 2.5}, {@code 3.0}, {@code 1e20}, {@code -0.00000025}), a DECIMAL with its scale,
 * a DATETIME or TIME inside the document with six fraction digits, a negative TIME with its sign.
 * The binlog library decodes the binary form ({@link JsonBinary}); this class only writes it, and
 * reads a packed TIME itself, since the library's reading drops a negative time's sign.
 *
 * <p>The digits of a double are Java's {@link Double#toString}, which on Java 17 is a digit longer
 * than the shortest form for a few values; the text then still reads back as the same double.
 */
final class MySqlJsonText implements JsonFormatter {
  /** The field width MySQL prints a JSON double in (MY_GCVT_MAX_FIELD_WIDTH). */
  private static final int DOUBLE_WIDTH = 34;

  /** MySQL writes a DATETIME or TIME inside JSON with six fraction digits. */
  private static final int SIX_DIGITS = 6;

  /** Beyond this decimal exponent MySQL writes a double in exponent notation (DBL_DIG). */
  private static final int FIXED_EXPONENT_LIMIT = 15;

  private final StringBuilder out = new StringBuilder();

  private MySqlJsonText() {}

  /**
   * The text of a binary JSON value: {@code null} for an empty image, the bytes themselves if they
   * are text already (no binary type byte leads them).
   *
   * @throws IOException if the binary form cannot be decoded
   */
  static String of(byte[] binary) throws IOException {
    if (binary.length == 0) {
      return "null";
    }
    if (binary[0] > 15) {
      return new String(binary, StandardCharsets.UTF_8);
    }
    MySqlJsonText text = new MySqlJsonText();
    new Reader(binary).parse(text);
    return text.out.toString();
  }

  /** The library's decoder, with MySQL's packed TIME read with its sign. */
  private static final class Reader extends JsonBinary {
    Reader(byte[] binary) {
      super(binary);
    }

    @Override
    protected void parseTime(JsonFormatter formatter) throws IOException {
      long packed = readInt64();
      long magnitude = Math.abs(packed);
      long hms = magnitude >> 24;
      ((MySqlJsonText) formatter)
          .time(
              packed < 0,
              (int) (hms >> 12),
              (int) ((hms >> 6) & 63),
              (int) (hms & 63),
              (int) (magnitude & 0xFFFFFF));
    }
  }

  @Override
  public void beginObject(int numElements) {
    out.append('{');
  }

  @Override
  public void beginArray(int numElements) {
    out.append('[');
  }

  @Override
  public void endObject() {
    out.append('}');
  }

  @Override
  public void endArray() {
    out.append(']');
  }

  @Override
  public void name(String name) {
    quoted(name);
    out.append(": ");
  }

  @Override
  public void nextEntry() {
    out.append(", ");
  }

  @Override
  public void value(String value) {
    quoted(value);
  }

  @Override
  public void value(int value) {
    out.append(value);
  }

  @Override
  public void value(long value) {
    out.append(value);
  }

  @Override
  public void value(BigInteger value) {
    out.append(value);
  }

  @Override
  public void value(BigDecimal value) {
    out.append(value.toPlainString());
  }

  @Override
  public void value(boolean value) {
    out.append(value);
  }

  @Override
  public void valueNull() {
    out.append("null");
  }

  @Override
  public void value(double value) {
    out.append(doubleText(value));
  }

  @Override
  public void valueYear(int year) {
    out.append(year);
  }

  @Override
  public void valueDate(int year, int month, int day) {
    out.append('"').append(ValueCodec.date(year, month, day)).append('"');
  }

  @Override
  public void valueDatetime(
      int year, int month, int day, int hour, int min, int sec, int microSeconds) {
    out.append('"')
        .append(ValueCodec.dateTime(year, month, day, hour, min, sec, microSeconds, SIX_DIGITS))
        .append('"');
  }

  @Override
  public void valueTime(int hour, int min, int sec, int microSeconds) {
    time(false, hour, min, sec, microSeconds); // not called: Reader reads a TIME itself
  }

  void time(boolean negative, int hour, int min, int sec, int microSeconds) {
    out.append('"')
        .append(ValueCodec.time(negative, hour, min, sec, microSeconds, SIX_DIGITS))
        .append('"');
  }

  /** Not called: the library reads a TIMESTAMP inside JSON as a DATETIME. */
  @Override
  public void valueTimestamp(long secondsPastEpoch, int microSeconds) {
    throw new IllegalStateException("a TIMESTAMP inside JSON is read as a DATETIME");
  }

  @Override
  public void valueOpaque(ColumnType type, byte[] value) {
    out.append("\"base64:type")
        .append(type.getCode())
        .append(':')
        .append(Base64.getEncoder().encodeToString(value))
        .append('"');
  }

  /** {@code s} in double quotes, escaped as MySQL escapes it; other characters as they are. */
  private void quoted(String s) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  /**
   * A double as MySQL writes it in JSON: its shortest digits in fixed notation unless the decimal
   * point would sit more than {@value #FIXED_EXPONENT_LIMIT} places from them, then as {@code DeN};
   * {@code .0} added to a whole number in fixed notation.
   */
  static String doubleText(double d) {
    if (Double.isNaN(d) || Double.isInfinite(d)) {
      return Double.toString(d); // JSON holds neither; kept readable rather than thrown
    }
    String sign = (d < 0 || (d == 0 && 1 / d < 0)) ? "-" : "";
    if (d == 0) {
      return sign + "0.0";
    }
    BigDecimal exact = new BigDecimal(Double.toString(Math.abs(d))).stripTrailingZeros();
    String digits = exact.unscaledValue().toString();
    int len = digits.length();
    int point = len - exact.scale(); // digits before the decimal point; <= 0: "0.00ddd"
    int fixedLength = point <= 0 ? len - point + 2 : point < len ? len + 1 : point;
    boolean fixed =
        fixedLength <= DOUBLE_WIDTH
            && point > -FIXED_EXPONENT_LIMIT
            && (point <= FIXED_EXPONENT_LIMIT || len > point);
    StringBuilder s = new StringBuilder(sign);
    if (!fixed) {
      s.append(digits.charAt(0));
      if (len > 1) {
        s.append('.').append(digits, 1, len);
      }
      return s.append('e').append(point - 1).toString();
    }
    if (point <= 0) {
      s.append("0.").append("0".repeat(-point)).append(digits);
    } else if (point < len) {
      s.append(digits, 0, point).append('.').append(digits, point, len);
    } else {
      s.append(digits).append("0".repeat(point - len)).append(".0");
    }
    return s.toString();
  }
}
