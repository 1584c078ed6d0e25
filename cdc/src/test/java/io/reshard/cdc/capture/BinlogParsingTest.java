package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.capture.BinlogEvents.RowOp;
import io.reshard.cdc.capture.BinlogEvents.Rows;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.value.MariaDbCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * TABLE_MAP and WRITE_ROWS bodies recorded from MariaDB 10.11 (binlog_row_metadata=FULL) for
 *
 * <pre>
 * CREATE TABLE p.t2 (id INT UNSIGNED PRIMARY KEY, y YEAR, ti TINYINT UNSIGNED, d DECIMAL(10,2),
 *   f FLOAT, v INT AS (id*2) VIRTUAL, st INT AS (id*3) STORED,
 *   e ENUM('a','cafu00e9') CHARACTER SET latin1, name VARCHAR(10) CHARACTER SET latin1, b BIT(10),
 *   bn BINARY(4), t2 TIME(3), j JSON, dt DATETIME(6), ts TIMESTAMP(2) NULL, dd DATE);
 * INSERT ... VALUES (1, 2024, 255, -12.5, 1.5, 'cafu00e9', 'xu00e9', b'1010101010', 'ab',
 *   '-1:02:03.5', '{"a": 1}', '2024-00-10 23:59:58.012345', '2024-02-29 12:00:00.25', '0000-00-00')
 * </pre>
 *
 * (the server read {@code \u00e9} in the statement as {@code u00e9}).
 */
class BinlogParsingTest {
  private static final String TABLE_MAP =
      "2c000000000001000170000274320010030d01f6040303fe0f10fe13fc12110a0f0a0204f7010a000201fe0403"
          + "040602feff0101e00303083f2e042b02696401790274690164016601760273740165046e616d65016202"
          + "626e027432016a0264740274730264640a0108060c020161086361667530306539080100";
  private static final String WRITE_ROWS =
      "2c0000000000010010ffff0000010000007cff7ffffff3cd0000c03f0200000003000000020678753030653902"
          + "aa0261627fef7cec78080000007b2261223a20317d99b2157efa00303965e071c019000000";

  private final TableMapParser parser =
      new TableMapParser(MariaDbCharsets.builtIn(), true, Set.of("p"));

  @Test
  void tableMapGivesNamesTypesSignednessCharsetsLabelsAndKey() {
    BinlogTable t = parser.parse(HexFormat.of().parseHex(TABLE_MAP));
    assertEquals("p.t2", t.schema().qualifiedName());
    assertEquals(List.of("id"), t.schema().primaryKey());
    List<ColumnDef> c = t.columns();
    assertEquals(16, c.size());
    assertEquals("id", c.get(0).name());
    assertTrue(c.get(0).unsigned());
    assertEquals(ColumnKind.YEAR, c.get(1).kind());
    assertTrue(c.get(2).unsigned(), "YEAR takes a signedness bit on MariaDB, so ti is unsigned");
    assertFalse(c.get(3).unsigned());
    assertEquals(10, c.get(3).precision());
    assertEquals(2, c.get(3).scale());
    assertEquals(ColumnKind.ENUM, c.get(7).kind());
    assertEquals(List.of("a", "cafu00e9"), c.get(7).labels());
    assertEquals("latin1", c.get(7).charset());
    assertEquals("latin1", c.get(8).charset());
    assertEquals(10, c.get(8).length());
    assertEquals(ColumnKind.BIT, c.get(9).kind());
    assertEquals(10, c.get(9).length());
    assertEquals(ColumnKind.BYTES, c.get(10).kind());
    assertTrue(c.get(10).fixedLength());
    assertEquals(4, c.get(10).length());
    assertEquals(3, c.get(11).scale());
    assertEquals(ColumnKind.TEXT, c.get(12).kind());
    assertEquals("longtext", c.get(12).type());
    assertEquals("utf8mb4", c.get(12).charset());
    assertEquals(6, c.get(13).scale());
    assertEquals(2, c.get(14).scale());
    assertEquals(ColumnKind.DATE, c.get(15).kind());
  }

  @Test
  void writeRowsDecodesEveryCellExactly() {
    BinlogTable t = parser.parse(HexFormat.of().parseHex(TABLE_MAP));
    Rows rows = parseRows(t, WRITE_ROWS);
    assertNull(rows.error());
    assertTrue(rows.fullImage());
    Object[] r = rows.after().get(0);
    assertEquals(1L, r[0]);
    assertEquals(2024, r[1]);
    assertEquals(255L, r[2]);
    assertEquals("-12.50", r[3]);
    assertEquals(1.5f, r[4]);
    assertEquals(2L, r[5], "virtual generated columns are in the row image");
    assertEquals(3L, r[6]);
    assertEquals("cafu00e9", text(r[7]));
    assertEquals("xu00e9", text(r[8]));
    assertArrayEquals(new byte[] {0x02, (byte) 0xAA}, (byte[]) r[9]);
    assertArrayEquals(new byte[] {'a', 'b', 0, 0}, (byte[]) r[10], "BINARY(4) padding restored");
    assertEquals("-01:02:03.500", r[11]);
    assertEquals("{\"a\": 1}", text(r[12]));
    assertEquals("2024-00-10 23:59:58.012345", r[13]);
    assertEquals("2024-02-29 12:00:00.25", r[14]);
    assertEquals("0000-00-00", r[15]);
  }

  @Test
  void tablesOfOtherDatabasesAreMappedWithoutColumnsAndNotDecoded() throws Exception {
    TableMapParser other = new TableMapParser(MariaDbCharsets.builtIn(), true, Set.of("ks"));
    BinlogTable t = other.parse(HexFormat.of().parseHex(TABLE_MAP));
    assertTrue(t.columns().isEmpty());
    Rows rows =
        new RowsEventParser(RowOp.INSERT, false, Map.of(t.tableId(), t), Set.of("ks"))
            .deserialize(
                new com.github.shyiko.mysql.binlog.io.ByteArrayInputStream(
                    HexFormat.of().parseHex(WRITE_ROWS)));
    assertFalse(rows.captured());
  }

  @Test
  void aRowImageMissingColumnsIsFlaggedNotDecoded() {
    // UPDATE under binlog_row_image=MINIMAL on (id INT PRIMARY KEY, v INT): bitmaps 01 and 02
    String map = "1c0000000000010001700002743300020303000201010004050269640176080100";
    String update = "1c00000000000100020102fe01000000fe02000000";
    BinlogTable t = parser.parse(HexFormat.of().parseHex(map));
    Rows rows = parseRows(t, update, RowOp.UPDATE);
    assertFalse(rows.fullImage());
  }

  @Test
  void aTypeCodeCdcCannotDecodeIsRefusedAtTheTableMapNamingTheColumnAndTheFix() {
    // the (id INT PRIMARY KEY, v INT) map above with v's code changed to 0, the pre-5.0 DECIMAL
    String map = "1c0000000000010001700002743300020300000201010004050269640176080100";
    IllegalStateException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            IllegalStateException.class, () -> parser.parse(HexFormat.of().parseHex(map)));
    assertTrue(e.getMessage().startsWith("p.t3: column v has binlog type code 0"), e.getMessage());
    assertTrue(e.getMessage().contains("ALTER TABLE ... FORCE"), e.getMessage());
  }

  @Test
  void geometryCountsAsACharacterColumnOnMariaDb() {
    // (id INT PRIMARY KEY, g POINT, s SET('x','y') utf8mb4, v VARCHAR(3) utf8mb4_bin,
    //  e ENUM('q') latin1, c CHAR(2) ascii)
    String map =
        "1800000000000100017000027432000603fffe0ffefe0904f8010c00f701fe023e01010003033f2e0b0701"
            + "01040d026964016701730176016501630b022d08050502017801790603010171080100";
    String row =
        "1800000000000100063fc00100000019000000000000000101000000000000000000f03f"
            + "0000000000000040030361626301027a7a";
    BinlogTable t = parser.parse(HexFormat.of().parseHex(map));
    assertEquals("utf8mb4", t.column(3).charset());
    assertEquals("ascii", t.column(5).charset());
    assertEquals(List.of("x", "y"), t.column(2).labels());
    Object[] r = parseRows(t, row).after().get(0);
    assertEquals("x,y", r[2]);
    assertEquals("abc", text(r[3]));
    assertEquals("q", text(r[4]));
    assertEquals("zz", text(r[5]));
    assertEquals(25, ((byte[]) r[1]).length, "SRID + WKB point");
    assertEquals("point", t.column(1).type(), "the GEOMETRY_TYPE field names the subtype");
    assertEquals(0, t.column(1).length(), "as information_schema: no octet length");
  }

  private static Rows parseRows(BinlogTable t, String hex) {
    return parseRows(t, hex, RowOp.INSERT);
  }

  private static Rows parseRows(BinlogTable t, String hex, RowOp op) {
    try {
      return new RowsEventParser(op, false, Map.of(t.tableId(), t), Set.of("p"))
          .deserialize(
              new com.github.shyiko.mysql.binlog.io.ByteArrayInputStream(
                  HexFormat.of().parseHex(hex)));
    } catch (java.io.IOException e) {
      throw new AssertionError(e);
    }
  }

  /**
   * A text cell as its text: capture keeps all-ASCII text as {@link AsciiText}, other text as a
   * String.
   */
  private static String text(Object cell) {
    assertTrue(cell instanceof String || cell instanceof AsciiText, String.valueOf(cell));
    return cell.toString();
  }
}
