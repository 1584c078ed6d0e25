package io.reshard.cdc.capture;

import static io.reshard.cdc.capture.BinlogTypes.*;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.value.ValueCodec;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Decodes one cell of a binlog row image into the value {@link ValueCodec} defines for its column.
 * Numbers are little-endian (unsigned when the column is); DECIMAL, BIT and the MySQL 5.6 temporal
 * formats are big-endian; strings carry a 1-4 byte length. Temporal cells are decoded by {@link
 * BinlogTemporals} so that zero dates, negative TIMEs and exact fractions survive. Stateless.
 */
final class BinlogCells {

  /** Bytes per group of up to 9 decimal digits: {@code DIG2BYTES[digits]}. */
  private static final int[] DIG2BYTES = {0, 1, 1, 2, 2, 3, 3, 4, 4, 4};

  private BinlogCells() {}

  static Object decode(BinlogTable table, int i, ByteCursor c) {
    ColumnDef col = table.column(i);
    int meta = table.metas()[i];
    return switch (table.types()[i]) {
      case TINY -> signed(c.le(1), 1, col.unsigned());
      case SHORT -> signed(c.le(2), 2, col.unsigned());
      case INT24 -> signed(c.le(3), 3, col.unsigned());
      case LONG -> signed(c.le(4), 4, col.unsigned());
      case LONGLONG -> col.unsigned() ? ValueCodec.unsignedLong(c.le(8)) : c.le(8);
      case FLOAT -> Float.intBitsToFloat((int) c.le(4));
      case DOUBLE -> Double.longBitsToDouble(c.le(8));
      case NEWDECIMAL -> decimal(c, meta >> 8, meta & 0xFF);
      case BIT -> c.bytes((meta + 7) / 8);
      case YEAR -> {
        int y = c.u8();
        yield y == 0 ? 0 : 1900 + y;
      }
      case DATE, NEWDATE, TIME, TIME2, DATETIME, DATETIME2, TIMESTAMP, TIMESTAMP2 ->
          BinlogTemporals.decode(table.types()[i], meta, c);
      case VARCHAR, VAR_STRING -> string(col, c.bytes((int) c.le(meta < 256 ? 1 : 2)));
      case STRING -> string(col, c.bytes((int) c.le(meta < 256 ? 1 : 2)));
      case BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB, GEOMETRY ->
          string(col, c.bytes(lengthOf(c, meta)));
      case JSON -> mysqlJson(c.bytes(lengthOf(c, meta)));
      case ENUM -> enumLabel(col, (int) c.le(meta));
      case SET -> setLabels(col, c.le(meta));
      default ->
          throw new IllegalStateException(
              "column " + col.name() + " has binlog type " + table.types()[i] + ", unknown");
    };
  }

  private static int lengthOf(ByteCursor c, int lengthBytes) {
    long n = c.le(lengthBytes);
    if (n > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("a value of " + n + " bytes is too large to capture");
    }
    return (int) n;
  }

  private static Object signed(long raw, int bytes, boolean unsigned) {
    if (unsigned) {
      return raw;
    }
    int shift = 64 - 8 * bytes;
    return (raw << shift) >> shift;
  }

  private static Object string(ColumnDef col, byte[] stored) {
    return switch (col.kind()) {
      case BYTES -> {
        // BINARY(n) is right-padded with 0x00, but the binlog drops the padding
        if (col.fixedLength() && stored.length < col.length()) {
          yield Arrays.copyOf(stored, (int) col.length());
        }
        yield stored;
      }
      default -> {
        AsciiText ascii = AsciiText.of(col.charset(), stored);
        yield ascii != null ? ascii : ValueCodec.text(col, stored);
      }
    };
  }

  private static String enumLabel(ColumnDef col, int index) {
    if (index == 0) {
      return ""; // the error value of an ENUM
    }
    if (index > col.labels().size()) {
      throw new IllegalStateException(
          "ENUM " + col.name() + " value " + index + " has no label " + col.labels());
    }
    return col.labels().get(index - 1);
  }

  private static String setLabels(ColumnDef col, long bits) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < col.labels().size(); i++) {
      if ((bits & (1L << i)) != 0) {
        out.add(col.labels().get(i));
      }
    }
    return String.join(",", out);
  }

  private static String mysqlJson(byte[] binary) {
    try {
      return MySqlJsonText.of(binary);
    } catch (IOException e) {
      throw new IllegalStateException("MySQL JSON value cannot be decoded: " + e.getMessage(), e);
    }
  }

  /**
   * MySQL's binary DECIMAL: integer digits then fraction digits, in groups of 9 digits per 4 bytes
   * big-endian with a shorter leading (integer) and trailing (fraction) group; the sign bit of the
   * first byte is flipped, and a negative number has every byte inverted.
   */
  static String decimal(ByteCursor c, int precision, int scale) {
    int intg = precision - scale;
    int size = (intg / 9) * 4 + DIG2BYTES[intg % 9] + (scale / 9) * 4 + DIG2BYTES[scale % 9];
    byte[] b = c.bytes(size);
    boolean negative = (b[0] & 0x80) == 0;
    b[0] ^= (byte) 0x80;
    if (negative) {
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) ~b[i];
      }
    }
    ByteCursor d = new ByteCursor(b);
    StringBuilder digits = new StringBuilder(negative ? "-" : "");
    digits.append(d.be(DIG2BYTES[intg % 9]));
    for (int g = 0; g < intg / 9; g++) {
      digits.append(pad(d.be(4), 9));
    }
    if (scale > 0) {
      digits.append('.');
      for (int g = 0; g < scale / 9; g++) {
        digits.append(pad(d.be(4), 9));
      }
      if (scale % 9 > 0) {
        digits.append(pad(d.be(DIG2BYTES[scale % 9]), scale % 9));
      }
    }
    return ValueCodec.decimal(new BigDecimal(digits.toString()), scale);
  }

  private static String pad(long value, int width) {
    String s = Long.toString(value);
    return "0".repeat(Math.max(0, width - s.length())) + s;
  }
}
