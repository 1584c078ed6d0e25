package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.reshard.cdc.capture.BinlogEvents.RowOp;
import io.reshard.cdc.capture.BinlogEvents.Rows;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.core.value.MariaDbCharsets;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * MariaDB's old temporal formats over real bytes: a table of DATETIME(0..6), TIME(0..6) and
 * TIMESTAMP(0..6) created on MariaDB 10.11 with {@code mysql56_temporal_format = OFF}, whose
 * TABLE_MAP, WRITE_ROWS, UPDATE_ROWS and DELETE_ROWS events and the server's own SELECT of the rows
 * are recorded in {@code old-temporal-mariadb-10.11.txt}. Every decoded cell must equal the
 * server's text, fraction digits included; a definition that no longer tells the precision is
 * refused, naming table, column, format and what to do.
 */
class OldTemporalFormatTest {
  private static final String FIXTURE = "old-temporal-mariadb-10.11.txt";

  private static final List<ColumnDef> columns = new ArrayList<>();
  private static final List<Map.Entry<Integer, byte[]>> events = new ArrayList<>();
  private static final Map<Long, String[]> inserted = new LinkedHashMap<>();
  private static final Map<Long, String[]> last = new LinkedHashMap<>();
  private static TableSchema definition;

  private final TableMapParser parser =
      new TableMapParser(MariaDbCharsets.builtIn(), true, Set.of("p"));

  @BeforeAll
  static void readFixture() throws IOException {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(
                OldTemporalFormatTest.class.getResourceAsStream(FIXTURE),
                StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("#") || line.isBlank()) {
          continue;
        }
        String[] f = line.split("\t", -1);
        switch (f[0]) {
          case "column" ->
              columns.add(
                  TableSchemaReader.column(
                      f[1],
                      f[2],
                      f[3],
                      null,
                      null,
                      0,
                      0,
                      0,
                      0,
                      Integer.parseInt(f[4]),
                      !f[1].equals("id"),
                      false));
          case "event" ->
              events.add(Map.entry(Integer.parseInt(f[1]), HexFormat.of().parseHex(f[2])));
          case "inserted" -> inserted.put(Long.parseLong(f[1]), f);
          case "final" -> last.put(Long.parseLong(f[1]), f);
          default -> throw new IllegalStateException("fixture line " + line);
        }
      }
    }
    definition = new TableSchema("p", "old", columns, List.of("id"));
  }

  private BinlogTable tableMap() {
    return parser.parse(events.get(0).getValue());
  }

  private static BinlogTable resolved(BinlogTable map) {
    return map.withPrecisions(SchemaCache.precisions(map, Optional.of(definition)));
  }

  /** The rows event of the given type code, decoded once its table's precisions are known. */
  private Rows rows(int eventType) {
    BinlogTable map = tableMap();
    byte[] body =
        events.stream().filter(e -> e.getKey() == eventType).findFirst().orElseThrow().getValue();
    RowOp op =
        switch (eventType) {
          case 23 -> RowOp.INSERT;
          case 24 -> RowOp.UPDATE;
          default -> RowOp.DELETE;
        };
    Rows pending;
    try {
      pending =
          new RowsEventParser(op, false, Map.of(map.tableId(), map), Set.of("p"))
              .deserialize(new ByteArrayInputStream(body));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    assertNull(pending.error());
    assertNotNull(pending.pending(), "rows wait for the precisions");
    assertTrue(pending.after().isEmpty() && pending.before().isEmpty());
    Rows rows = pending.pending().apply(resolved(map));
    assertNull(rows.error(), rows.error());
    return rows;
  }

  /** Asserts every column whose name starts with {@code prefix} against the server's text. */
  private static void assertImage(String[] server, Object[] image, String prefix) {
    assertEquals(server.length - 1, image.length);
    assertEquals(Long.parseLong(server[1]), image[0]);
    int compared = 0;
    for (int i = 1; i < image.length; i++) {
      String name = columns.get(i).name();
      if (name.startsWith(prefix)) {
        String expected = server[i + 1].equals("NULL") ? null : server[i + 1];
        assertEquals(expected, image[i], "id " + server[1] + " column " + name);
        compared++;
      }
    }
    assertEquals(7, compared);
  }

  private void assertInsertedRows(String prefix) {
    Rows rows = rows(23);
    assertEquals(inserted.size(), rows.after().size());
    int i = 0;
    for (String[] server : inserted.values()) {
      assertImage(server, rows.after().get(i++), prefix);
    }
  }

  @Test
  void tableMapHasTheOldCodesWithoutMetadataSoThePrecisionComesFromTheDefinition() {
    BinlogTable map = tableMap();
    assertTrue(map.precisionPending());
    for (int n = 0; n <= 6; n++) {
      assertEquals(BinlogTypes.DATETIME, map.types()[1 + n]);
      assertEquals(BinlogTypes.TIME, map.types()[8 + n]);
      assertEquals(BinlogTypes.TIMESTAMP, map.types()[15 + n]);
      assertEquals(BinlogTypes.FSP_FROM_SCHEMA, map.metas()[1 + n]);
    }
    BinlogTable r = resolved(map);
    for (int n = 0; n <= 6; n++) {
      assertEquals(n, r.metas()[1 + n]);
      assertEquals(n, r.column(8 + n).scale(), "TIME(" + n + ") definition");
      assertEquals(n, r.column(15 + n).scale());
    }
    // the definition capture publishes equals information_schema's, as for the 5.6 formats
    assertEquals(
        definition.columns().stream().map(ColumnDef::asBinlogDescribes).toList(), r.columns());
  }

  @Test
  void datetimeCode12PlainAndHiresEqualTheServersSelect() {
    assertInsertedRows("dt");
  }

  @Test
  void timeCode11PlainAndHiresEqualTheServersSelect() {
    assertInsertedRows("tm");
  }

  @Test
  void timestampCode7PlainAndHiresEqualTheServersSelect() {
    assertInsertedRows("ts");
  }

  @Test
  void aOneRowUpdateIsOneChangeWithBothImagesExact() {
    Rows rows = rows(24);
    assertEquals(1, rows.rowCount());
    for (String prefix : List.of("dt", "tm", "ts")) {
      assertImage(inserted.get(1L), rows.before().get(0), prefix);
      assertImage(last.get(1L), rows.after().get(0), prefix);
    }
  }

  @Test
  void aDeleteCarriesTheExactBeforeImage() {
    Rows rows = rows(25);
    assertEquals(1, rows.rowCount());
    for (String prefix : List.of("dt", "tm", "ts")) {
      assertImage(inserted.get(7L), rows.before().get(0), prefix);
    }
  }

  @Test
  void cellLengthsFollowMariaDbsHiresTables() {
    int[] datetime = {8, 6, 6, 7, 7, 7, 8};
    int[] time = {3, 4, 4, 5, 5, 5, 6};
    int[] timestamp = {4, 5, 5, 6, 6, 7, 7};
    for (int n = 0; n <= 6; n++) {
      assertEquals(datetime[n], BinlogTemporals.oldFormatLength(BinlogTypes.DATETIME, n));
      assertEquals(time[n], BinlogTemporals.oldFormatLength(BinlogTypes.TIME, n));
      assertEquals(timestamp[n], BinlogTemporals.oldFormatLength(BinlogTypes.TIMESTAMP, n));
    }
  }

  @Test
  void readingTheCellsWithoutTheirPrecisionIsRefusedNotPublished() {
    // what capture did before: every old code read in the plain layout; now it never gets there
    BinlogTable map = tableMap();
    BinlogTable guessed = map.withPrecisions(new int[map.columnCount()]);
    byte[] body = events.get(1).getValue();
    Rows rows =
        new RowsEventParser(RowOp.INSERT, false, Map.of(map.tableId(), map), Set.of("p"))
            .decode(guessed, body);
    assertNotNull(rows.error(), "a wrong layout shows as an error, not as values");
    Rows unresolved =
        new RowsEventParser(RowOp.INSERT, false, Map.of(map.tableId(), map), Set.of("p"))
            .decode(map, body);
    assertTrue(unresolved.error().contains("precision"), unresolved.error());
  }

  @Test
  void aDefinitionThatNoLongerTellsThePrecisionIsRefusedNamingColumnFormatAndWhatToDo() {
    BinlogTable map = tableMap();
    List<ColumnDef> converted = new ArrayList<>(columns);
    converted.set(
        4,
        TableSchemaReader.column(
            "dt3", "datetime", "datetime(3)", null, null, 0, 0, 0, 0, 3, true, false));
    var e =
        assertThrows(
            SchemaCache.UndecodableTableException.class,
            () ->
                SchemaCache.precisions(
                    map, Optional.of(new TableSchema("p", "old", converted, List.of("id")))));
    assertTrue(e.getMessage().contains("column dt3 of p.old"), e.getMessage());
    assertTrue(e.getMessage().contains("DATETIME in MariaDB's pre-5.6 format"), e.getMessage());
    assertTrue(e.getMessage().contains("ALTER TABLE ... FORCE"), e.getMessage());
    assertTrue(e.getMessage().contains("recopy"), e.getMessage());

    List<ColumnDef> dropped = new ArrayList<>(columns);
    dropped.remove(9);
    e =
        assertThrows(
            SchemaCache.UndecodableTableException.class,
            () ->
                SchemaCache.precisions(
                    map, Optional.of(new TableSchema("p", "old", dropped, List.of("id")))));
    assertTrue(e.getMessage().contains("column tm1 of p.old"), e.getMessage());
    assertTrue(e.getMessage().contains("no such column"), e.getMessage());

    e =
        assertThrows(
            SchemaCache.UndecodableTableException.class,
            () -> SchemaCache.precisions(map, Optional.empty()));
    assertTrue(e.getMessage().contains("no longer exists"), e.getMessage());
  }

  @Test
  void onMySqlTheOldCodesAreThePlainPre56Layout() {
    // MySQL never wrote fractions under the old codes (5.6 brought the new codes with fractions)
    BinlogTable map =
        new TableMapParser(MariaDbCharsets.builtIn(), false, Set.of("p"))
            .parse(events.get(0).getValue());
    assertTrue(!map.precisionPending());
    assertEquals(0, map.metas()[1]);
    assertEquals(0, map.column(8).scale());
    // the cells of dt0, tm0, ts0 of row 1 as recorded: 2024-02-29 12:34:56, -838:59:59, 12:34:56
    assertEquals("2024-02-29 12:34:56", decode(BinlogTypes.DATETIME, 0, "80c5aa8b68120000"));
    assertEquals("-838:59:59", decode(BinlogTypes.TIME, 0, "590a80"));
    assertEquals("838:59:59", decode(BinlogTypes.TIME, 0, "a7f57f"));
    assertEquals("2024-02-29 12:34:56", decode(BinlogTypes.TIMESTAMP, 0, "f079e065"));
  }

  private static String decode(int type, int fsp, String hex) {
    return BinlogTemporals.decode(type, fsp, new ByteCursor(HexFormat.of().parseHex(hex)));
  }
}
