package io.reshard.core.value;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import org.junit.jupiter.api.Test;

class ValueCodecTest {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  @Test
  void datesKeepZeroParts() {
    assertEquals("0000-00-00", ValueCodec.date(0, 0, 0));
    assertEquals("2024-00-10", ValueCodec.date(2024, 0, 10));
    assertEquals("0099-01-01", ValueCodec.date(99, 1, 1));
  }

  @Test
  void theFastDateTimeFormatMatchesThePaddedOne() {
    java.util.Random r = new java.util.Random(42);
    int[][] fixed = {
      {0, 0, 0, 0, 0, 0, 0, 0}, {9999, 12, 31, 23, 59, 59, 999_999, 6}, {1, 2, 3, 4, 5, 6, 7, 1},
      {10000, 1, 1, 0, 0, 0, 0, 2}, {-1, 1, 1, 0, 0, 0, 0, 0}, {2024, 0, 10, 0, 0, 0, 500_000, 1}
    };
    for (int[] f : fixed) {
      assertEquals(
          ValueCodec.dateTimeSlow(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]),
          ValueCodec.dateTime(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]));
    }
    for (int i = 0; i < 10_000; i++) {
      int year = r.nextInt(10_000);
      int month = r.nextInt(13);
      int day = r.nextInt(32);
      int hour = r.nextInt(24);
      int minute = r.nextInt(60);
      int second = r.nextInt(60);
      int micros = r.nextInt(1_000_000);
      int digits = r.nextInt(7);
      assertEquals(
          ValueCodec.dateTimeSlow(year, month, day, hour, minute, second, micros, digits),
          ValueCodec.dateTime(year, month, day, hour, minute, second, micros, digits));
    }
  }

  @Test
  void dateTimesKeepExactlyTheColumnsFractionDigits() {
    assertEquals("2024-01-02 03:04:05", ValueCodec.dateTime(2024, 1, 2, 3, 4, 5, 12345, 0));
    assertEquals("2024-01-02 03:04:05.0", ValueCodec.dateTime(2024, 1, 2, 3, 4, 5, 12345, 1));
    assertEquals("2024-01-02 03:04:05.012", ValueCodec.dateTime(2024, 1, 2, 3, 4, 5, 12345, 3));
    assertEquals("2024-01-02 03:04:05.012345", ValueCodec.dateTime(2024, 1, 2, 3, 4, 5, 12345, 6));
    assertEquals("0000-00-00 00:00:00.000000", ValueCodec.dateTime(0, 0, 0, 0, 0, 0, 0, 6));
  }

  @Test
  void timesMayBeNegativeAndLongerThanADay() {
    assertEquals("-838:59:59", ValueCodec.time(true, 838, 59, 59, 0, 0));
    assertEquals("-00:00:00.500000", ValueCodec.time(true, 0, 0, 0, 500000, 6));
    assertEquals("01:02:03.5", ValueCodec.time(false, 1, 2, 3, 500000, 1));
  }

  @Test
  void integersAreLongsUnlessTheyExceedSignedRange() {
    assertEquals(-128L, ValueCodec.integer(BigInteger.valueOf(-128)));
    assertEquals(Long.MAX_VALUE, ValueCodec.unsignedLong(Long.MAX_VALUE));
    assertEquals(new BigInteger("18446744073709551615"), ValueCodec.unsignedLong(-1L));
    ColumnDef c = ColumnDef.of("n", ColumnKind.INTEGER, "bigint");
    JsonNode j = ValueCodec.toJson(c, ValueCodec.unsignedLong(-1L));
    assertEquals("18446744073709551615", j.toString());
    assertEquals(new BigInteger("18446744073709551615"), ValueCodec.fromJson(c, j, null));
  }

  @Test
  void decimalsArePlainTextWithTheColumnsScale() {
    assertEquals("0.00", ValueCodec.decimal(BigDecimal.ZERO, 2));
    assertEquals("-12.50", ValueCodec.decimal(new BigDecimal("-12.5"), 2));
    assertEquals("12345678", ValueCodec.decimal(new BigDecimal("1.2345678E+7"), 0));
    String big = "-" + "9".repeat(35) + "." + "9".repeat(30);
    assertEquals(big, ValueCodec.decimal(new BigDecimal(big), 30));
  }

  @Test
  void floatsAndDoublesSurviveJsonBitForBit() throws Exception {
    ColumnDef f = ColumnDef.of("f", ColumnKind.FLOAT, "float");
    ColumnDef d = ColumnDef.of("d", ColumnKind.DOUBLE, "double");
    for (float v : new float[] {0.1f, 3.4028235e38f, -1.17549435e-38f, 1e-45f, 16777217f}) {
      JsonNode parsed = JSON.readTree(ValueCodec.toJson(f, v).toString());
      assertEquals(
          Float.floatToIntBits(v),
          Float.floatToIntBits((Float) ValueCodec.fromJson(f, parsed, null)));
    }
    for (double v : new double[] {0.1, Double.MAX_VALUE, -Double.MIN_VALUE, 1.0 / 3}) {
      JsonNode parsed = JSON.readTree(ValueCodec.toJson(d, v).toString());
      assertEquals(
          Double.doubleToLongBits(v),
          Double.doubleToLongBits((Double) ValueCodec.fromJson(d, parsed, null)));
    }
  }

  @Test
  void bytesTravelAsBase64AndKeepTrailingZeros() {
    ColumnDef b = ColumnDef.of("b", ColumnKind.BYTES, "binary");
    byte[] v = {0x61, 0x62, 0, 0};
    JsonNode j = ValueCodec.toJson(b, v);
    assertEquals("\"YWIAAA==\"", j.toString());
    assertArrayEquals(v, (byte[]) ValueCodec.fromJson(b, j, null));
    assertArrayEquals(v, ValueCodec.exactBytes(b, v));
  }

  @Test
  void textGivesItsExactBytesBackInItsCharset() {
    ColumnDef latin1 = text("latin1");
    Object v = ValueCodec.text(latin1, new byte[] {(byte) 0x81, (byte) 0xE9});
    assertEquals("\u0081\u00E9", v);
    assertArrayEquals(new byte[] {(byte) 0x81, (byte) 0xE9}, ValueCodec.exactBytes(latin1, v));
    assertNull(ValueCodec.rawJson(latin1, v));
  }

  @Test
  void textThatCannotReproduceItsBytesCarriesThemRaw() {
    ColumnDef utf8 = text("utf8mb4");
    byte[] bad = {(byte) 0xC3, 0x28};
    Object v = ValueCodec.text(utf8, bad);
    assertTrue(v instanceof byte[]);
    JsonNode raw = ValueCodec.rawJson(utf8, v);
    assertArrayEquals(bad, (byte[]) ValueCodec.fromJson(utf8, ValueCodec.toJson(utf8, v), raw));
  }

  @Test
  void selectExpressionsReadTheStoredForm() {
    assertEquals(
        "CAST(`d` AS CHAR)",
        ValueCodec.selectExpression(ColumnDef.of("d", ColumnKind.DATETIME, "datetime")));
    assertEquals(
        "CAST(`a``b` AS BINARY)", ValueCodec.selectExpression(text("latin1").withName("a`b")));
    assertEquals("`n`", ValueCodec.selectExpression(ColumnDef.of("n", ColumnKind.INTEGER, "int")));
  }

  @Test
  void nullIsNullInEveryKind() {
    for (ColumnKind k : ColumnKind.values()) {
      ColumnDef c = ColumnDef.of("c", k, "x");
      assertTrue(ValueCodec.toJson(c, null).isNull());
      assertNull(ValueCodec.fromJson(c, ValueCodec.toJson(c, null), null));
    }
  }

  private static ColumnDef text(String charset) {
    return new ColumnDef(
        "s", ColumnKind.TEXT, "varchar", false, 40, false, 0, 0, charset, List.of(), true, false);
  }
}
