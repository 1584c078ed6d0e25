package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** Cell formats against vectors worked out from MySQL's documented layouts. */
class BinlogCellsTest {

  @Test
  void decimalsOfEveryShape() {
    assertEquals("-12.50", decimal("7ffffff3cd", 10, 2));
    assertEquals("0.00", decimal("8000000000", 10, 2));
    assertEquals("12345678", decimal("80bc614e", 8, 0));
    assertEquals("-12345678", decimal("7f439eb1", 8, 0));
    // (65,30): 35 integer digits (8 + 3*9), 30 fraction digits (3*9 + 3)
    String max = "9".repeat(35) + "." + "9".repeat(30);
    String hex = "85f5e0ff" + "3b9ac9ff".repeat(3) + "3b9ac9ff".repeat(3) + "03e7";
    assertEquals(max, decimal(hex, 65, 30));
  }

  @Test
  void dateTime2KeepsZeroMonthsAndFractions() {
    long ym = 2024L * 13; // month 0
    long packed = ((ym << 5 | 10) << 17) | (23L << 12 | 59L << 6 | 58);
    String hex = String.format("%010x", packed + 0x80_0000_0000L) + "00303a"; // 12346 us
    assertEquals("2024-00-10 23:59:58.012346", temporal(BinlogTypes.DATETIME2, 6, hex));
    assertEquals("0000-00-00 00:00:00", temporal(BinlogTypes.DATETIME2, 0, "8000000000"));
  }

  @Test
  void time2NegativeWithFractionsOfEachWidth() {
    assertEquals("-01:02:03.500", temporal(BinlogTypes.TIME2, 3, "7fef7cec78"));
    assertEquals("-838:59:59", temporal(BinlogTypes.TIME2, 0, "4b9105"));
    assertEquals("00:00:00.000001", temporal(BinlogTypes.TIME2, 6, "800000000001"));
    assertEquals("-00:00:00.000001", temporal(BinlogTypes.TIME2, 6, "7fffffffffff"));
    assertEquals("-00:00:01.5", temporal(BinlogTypes.TIME2, 1, "7ffffece"));
  }

  @Test
  void timestampsAreUtcAndZeroIsTheZeroDate() {
    assertEquals("2024-02-29 12:00:00.25", temporal(BinlogTypes.TIMESTAMP2, 2, "65e071c019"));
    assertEquals("0000-00-00 00:00:00.000", temporal(BinlogTypes.TIMESTAMP2, 3, "000000000000"));
  }

  @Test
  void datesAndOldFormats() {
    assertEquals("0000-00-00", temporal(BinlogTypes.DATE, 0, "000000"));
    int v = 2024 << 9 | 0 << 5 | 10;
    String le = String.format("%02x%02x%02x", v & 0xff, (v >> 8) & 0xff, v >> 16);
    assertEquals("2024-00-10", temporal(BinlogTypes.DATE, 0, le));
  }

  private static String decimal(String hex, int precision, int scale) {
    return BinlogCells.decimal(new ByteCursor(HexFormat.of().parseHex(hex)), precision, scale);
  }

  private static String temporal(int type, int fsp, String hex) {
    return BinlogTemporals.decode(type, fsp, new ByteCursor(HexFormat.of().parseHex(hex)));
  }
}
