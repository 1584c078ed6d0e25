package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.placement.SplitFixture;
import io.reshard.core.schema.TableRefusedException;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A table with every column type and edge values is split from db4 ({@code c0-}) to db5 ({@code
 * c0-e0}) and db6 ({@code e0-}): each row lands on exactly the target its keyspace id names, and
 * every value is equal byte for byte ({@code HEX} on both sides, and {@code CHECKSUM TABLE} of each
 * target against the same rows copied inside the source server).
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CopyTypesIT {
  static final Vindex HASH = Vindex.of(VindexType.HASH);
  static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
              + " \"tables\": {\"all_types\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]},"
              + " \"no_pk\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]},"
              + " \"my_isam\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}");

  static final String DDL =
      "CREATE TABLE all_types ("
          + " id BIGINT NOT NULL PRIMARY KEY,"
          + " i8 TINYINT, u8 TINYINT UNSIGNED, i64 BIGINT, u64 BIGINT UNSIGNED,"
          + " dec1 DECIMAL(30,10), dec0 DECIMAL(5,0),"
          + " f FLOAT, f2 FLOAT(7,3), d DOUBLE,"
          + " dt DATETIME(6), dt0 DATETIME, ts TIMESTAMP(6) NULL DEFAULT NULL, dte DATE,"
          + " t TIME(6), y YEAR,"
          + " b BIT(10), b64 BIT(64),"
          + " bin BINARY(8), vbin VARBINARY(20), blb BLOB,"
          + " lat VARCHAR(20) CHARACTER SET latin1,"
          + " utf VARCHAR(40) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci,"
          + " ch CHAR(5), txt TEXT CHARACTER SET utf8mb4,"
          + " e ENUM('a','b','c'), s SET('x','y','z'), j JSON,"
          + " gen BIGINT AS (id * 2) VIRTUAL,"
          + " gens VARCHAR(60) AS (CONCAT(utf, '!')) STORED"
          + ") ENGINE=InnoDB";

  /** Every non-generated column, and the expression that shows its exact value. */
  static final List<String> COLUMNS =
      List.of(
          "id", "i8", "u8", "i64", "u64", "dec1", "dec0", "f", "f2", "d", "dt", "dt0", "ts", "dte",
          "t", "y", "b", "b64", "bin", "vbin", "blb", "lat", "utf", "ch", "txt", "e", "s", "j");

  static String exact(String column) {
    return switch (column) {
      case "f", "f2", "d" -> "HEX(CAST(CAST(" + column + " AS DOUBLE) AS CHAR))";
      case "b", "b64", "bin", "vbin", "blb", "lat", "utf", "ch", "txt", "e", "s", "j" ->
          "HEX(" + column + ")";
      default -> "HEX(CAST(" + column + " AS CHAR))";
    };
  }

  static final String EXACT_ROWS =
      "SELECT id, "
          + COLUMNS.stream().map(CopyTypesIT::exact).collect(Collectors.joining(", "))
          + ", gen, HEX(gens) FROM all_types ORDER BY id";

  private final SplitFixture fx;
  private final List<Long> ids = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private long outsideId;
  private CopyProgress result;

  CopyTypesIT(TestCluster cluster) {
    fx = new SplitFixture(cluster);
  }

  /** An id whose hash falls in {@code range}, searching up from {@code from}. */
  static long idIn(KeyRange range, long from) {
    for (long k = from; ; k++) {
      if (range.contains(HASH.keyspaceId(k))) {
        return k;
      }
    }
  }

  @BeforeAll
  void loadAndCopy() throws Exception {
    fx.everywhere(DDL);
    List<String> edge = edgeRows();
    long next = 1;
    List<String> values = new ArrayList<>();
    for (String row : edge) {
      long id = idIn(SplitFixture.SOURCE_RANGE, next);
      next = id + 1;
      ids.add(id);
      values.add("(" + id + ", " + row + ")");
    }
    Random random = new Random(7);
    for (int i = 0; i < 60; i++) {
      long id = idIn(SplitFixture.SOURCE_RANGE, next);
      next = id + 1;
      ids.add(id);
      values.add("(" + id + ", " + randomRow(random) + ")");
    }
    outsideId = idIn(KeyRange.parse("-40"), 1);
    values.add("(" + outsideId + ", " + randomRow(random) + ")");
    fx.loose(
        fx.source,
        "INSERT INTO all_types ("
            + String.join(", ", COLUMNS)
            + ") VALUES "
            + String.join(", ", values));

    CopierConfig config =
        CopierConfig.builder()
            .initialChunkRows(7)
            .minChunkRows(1)
            .maxChunkRows(50)
            .maxRowsPerStatement(5)
            .build();
    result =
        Copier.builder(CopySpecs.split(fx, "types", VSCHEMA, "all_types"))
            .config(config)
            .coverage(StreamCoverage.staticSource())
            .meterRegistry(registry)
            .build()
            .run();
  }

  static List<String> edgeRows() {
    return List.of(
        // maxima
        "127, 255, 9223372036854775807, 18446744073709551615,"
            + " 99999999999999999999.9999999999, 99999, 3.40282e38, 9999.999,"
            + " 1.7976931348623157e308, '9999-12-31 23:59:59.999999', '9999-12-31 23:59:59',"
            + " '2038-01-19 03:14:07.999999', '9999-12-31', '838:59:59.000000', 2155,"
            + " b'1111111111', b'1111111111111111111111111111111111111111111111111111111111111111',"
            + " X'6162', X'61000000', X'00FF00', X'63616680', 'café 😀', 'ab',"
            + " REPEAT('x', 1000), 'c', 'x,z', '{\"a\": 1,  \"b\":[1, 2.50]}'",
        // minima, zero dates, empty strings, ENUM's error value ''
        "-128, 0, -9223372036854775808, 0, -99999999999999999999.9999999999, -99999,"
            + " -1.17549435e-38, -9999.999, -2.2250738585072014e-308,"
            + " '0000-00-00 00:00:00.000000', '0000-00-00 00:00:00', '0000-00-00 00:00:00',"
            + " '0000-00-00', '-838:59:59.000000', 0000, b'0', b'0', X'', X'', X'', X'', '', '',"
            + " '', '', '', '\"\"'",
        // tricky: precision, zero parts in dates, trailing zero bytes, combining accents
        "0, 1, 0, 9223372036854775808, 0.0000000001, 0, 16777217, 0.001, 0.30000000000000004,"
            + " '2020-00-15 12:00:00.5', '1000-01-01 00:00:00', '1970-01-01 00:00:01',"
            + " '2020-02-00', '-00:00:00.000001', 1901, b'0000000001',"
            + " b'1000000000000000000000000000000000000000000000000000000000000000',"
            + " X'0000000000000000', X'610000', X'00010203FEFF', X'E9', 'cafe\u0301', 'a  ',"
            + " 'line1\\nline2\\ttab\\\\ back''quote', 'a', 'x,y,z', '{\"é\": \"\\\\u00e9\", \"n\": null}'",
        // negative zero and small magnitudes
        "-1, 128, -1, 1, -0.0000000001, -1, -0e0, -0.001, -0e0, '1000-01-01 00:00:00.000001',"
            + " '2000-02-29 00:00:00', '1999-12-31 23:59:59.999999', '2000-02-29', '00:00:00', 1970,"
            + " b'1', b'1', X'00', X'00', X'00', X'20', ' leading', ' ', ' x ', 'b', 'y', '[]'",
        // NULL everywhere
        String.join(", ", java.util.Collections.nCopies(COLUMNS.size() - 1, "NULL")));
  }

  static String randomRow(Random r) {
    HexFormat hex = HexFormat.of();
    byte[] blob = new byte[r.nextInt(40)];
    r.nextBytes(blob);
    byte[] bin = new byte[r.nextInt(9)];
    r.nextBytes(bin);
    double d = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(40) - 20);
    float f = (float) ((r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(20) - 10));
    String text = randomText(r);
    return String.join(
        ", ",
        Integer.toString(r.nextInt(256) - 128),
        Integer.toString(r.nextInt(256)),
        Long.toString(r.nextLong()),
        Long.toUnsignedString(r.nextLong()),
        new java.math.BigDecimal(java.math.BigInteger.valueOf(r.nextLong()), 10).toPlainString(),
        Integer.toString(r.nextInt(199_999) - 99_999),
        Float.toString(f),
        String.format("%.3f", r.nextDouble() * 1000),
        Double.toString(d),
        "'"
            + String.format(
                "%04d-%02d-%02d %02d:%02d:%02d.%06d",
                1000 + r.nextInt(8999),
                1 + r.nextInt(12),
                1 + r.nextInt(28),
                r.nextInt(24),
                r.nextInt(60),
                r.nextInt(60),
                r.nextInt(1_000_000))
            + "'",
        "'"
            + String.format(
                "%04d-%02d-%02d %02d:%02d:%02d",
                1000 + r.nextInt(8999),
                1 + r.nextInt(12),
                1 + r.nextInt(28),
                r.nextInt(24),
                r.nextInt(60),
                r.nextInt(60))
            + "'",
        "FROM_UNIXTIME("
            + (1 + r.nextInt(2_000_000_000))
            + " + "
            + r.nextInt(1_000_000)
            + " / 1000000)",
        "'"
            + String.format(
                "%04d-%02d-%02d", 1000 + r.nextInt(8999), 1 + r.nextInt(12), 1 + r.nextInt(28))
            + "'",
        "'"
            + (r.nextBoolean() ? "-" : "")
            + r.nextInt(839)
            + ":"
            + r.nextInt(60)
            + ":"
            + r.nextInt(60)
            + "."
            + r.nextInt(1_000_000)
            + "'",
        Integer.toString(1901 + r.nextInt(255)),
        "b'" + Integer.toBinaryString(r.nextInt(1024)) + "'",
        "b'" + Long.toBinaryString(r.nextLong()) + "'",
        "X'" + hex.formatHex(bin) + "'",
        "X'" + hex.formatHex(bin) + "00'",
        "X'" + hex.formatHex(blob) + "'",
        "X'" + hex.formatHex(new byte[] {(byte) (0x80 + r.nextInt(0x60)), 0x41}) + "'",
        "_utf8mb4 X'" + hex.formatHex(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + "'",
        "'" + (char) ('a' + r.nextInt(26)) + "'",
        "_utf8mb4 X'"
            + hex.formatHex((text + text).getBytes(java.nio.charset.StandardCharsets.UTF_8))
            + "'",
        "'" + "abc".charAt(r.nextInt(3)) + "'",
        "'" + List.of("x", "y", "z", "x,y", "y,z", "").get(r.nextInt(6)) + "'",
        "'{\"v\": " + r.nextInt() + ", \"s\": \"" + (char) ('a' + r.nextInt(26)) + "\"}'");
  }

  static String randomText(Random r) {
    String alphabet = "aAeEéÉèüßçøå日本語😀🙂\u0301 ";
    StringBuilder b = new StringBuilder();
    int n = 1 + r.nextInt(12);
    while (b.codePointCount(0, b.length()) < n) {
      int i = r.nextInt(alphabet.length());
      int cp = alphabet.codePointAt(i);
      if (Character.isLowSurrogate(alphabet.charAt(i))) {
        continue;
      }
      b.appendCodePoint(cp);
    }
    return b.toString().replace("'", "");
  }

  @Test
  void everyRowLandsOnTheTargetItsKeyspaceIdNamesWithEveryValueEqual() throws SQLException {
    int[] found =
        fx.assertPlacedExactly(
            EXACT_ROWS, id -> SplitFixture.targetOf(HASH.keyspaceId(Long.parseLong(id))));
    assertEquals(ids.size(), found[0] + found[1]);
    assertTrue(
        found[0] > 0 && found[1] > 0, "both targets receive rows: " + found[0] + "/" + found[1]);
  }

  @Test
  void eachTargetHoldsTheSameRecordBytesAsTheSource() throws SQLException {
    for (int i = 0; i < 2; i++) {
      int target = i;
      String part = "part_" + i;
      List<String> mine =
          ids.stream()
              .filter(id -> SplitFixture.targetOf(HASH.keyspaceId(id)) == target)
              .map(String::valueOf)
              .toList();
      String cols = String.join(", ", COLUMNS);
      fx.loose(
          fx.source,
          "DROP TABLE IF EXISTS " + part,
          "CREATE TABLE " + part + " LIKE all_types",
          "INSERT INTO "
              + part
              + " ("
              + cols
              + ") SELECT "
              + cols
              + " FROM all_types WHERE id IN ("
              + String.join(",", mine)
              + ")");
      long want = checksum(fx.source, part);
      assertEquals(want, checksum(fx.targets.get(i), "all_types"), "CHECKSUM TABLE on target " + i);
    }
  }

  private long checksum(ClusterDescriptor.Server s, String table) throws SQLException {
    try (Connection c = fx.cluster.connect(s);
        var st = c.createStatement();
        var rs = st.executeQuery("CHECKSUM TABLE " + table)) {
      rs.next();
      return rs.getLong(2);
    }
  }

  @Test
  void aRowOutsideTheSourceRangeIsSkippedAndCounted() throws SQLException {
    for (ClusterDescriptor.Server t : fx.targets) {
      assertEquals(0, fx.number(t, "SELECT COUNT(*) FROM all_types WHERE id = " + outsideId));
    }
    assertEquals(
        1.0,
        registry.find("reshard.copy.rows.outside").tags("table", "all_types").counter().count());
  }

  @Test
  void theCopyStateSaysDoneOnEveryTargetAndProgressIsComplete() throws Exception {
    long rows = 0;
    for (ClusterDescriptor.Server t : fx.targets) {
      assertEquals(
          1, fx.number(t, "SELECT done FROM _reshard.copy_state WHERE workflow = 'types'"));
      rows += fx.number(t, "SELECT rows_copied FROM _reshard.copy_state WHERE workflow = 'types'");
    }
    assertEquals(ids.size(), rows);
    assertTrue(result.done());
    assertEquals(ids.size() + 1, result.rowsCopied());
    assertEquals(1.0, result.fraction());
    assertTrue(result.tables().get(0).rowsPerSecond() > 0);
  }

  @Test
  void aFinishedCopyRunsAgainWithoutWriting() throws Exception {
    List<String> chunks = new ArrayList<>();
    CopyProgress again =
        Copier.builder(CopySpecs.split(fx, "types", VSCHEMA, "all_types"))
            .coverage(StreamCoverage.staticSource())
            .listener(
                new CopyListener() {
                  @Override
                  public void chunkCommitted(
                      String table, long chunk, int rows, io.reshard.core.rows.RowKey key) {
                    chunks.add(table + chunk);
                  }
                })
            .build()
            .run();
    assertTrue(chunks.isEmpty(), "no chunk copied again: " + chunks);
    assertTrue(again.done());
    assertEquals(ids.size(), again.rowsCopied());
  }

  @Test
  void tablesWithoutPrimaryKeyOrNotInnoDbAreRefusedBeforeAnythingIsWritten() throws SQLException {
    fx.everywhere(
        "CREATE TABLE IF NOT EXISTS no_pk (id BIGINT, v INT) ENGINE=InnoDB",
        "CREATE TABLE IF NOT EXISTS my_isam (id BIGINT PRIMARY KEY) ENGINE=MyISAM");
    TableRefusedException noPk =
        assertThrows(
            TableRefusedException.class,
            () ->
                Copier.builder(CopySpecs.split(fx, "refused", VSCHEMA, "no_pk"))
                    .coverage(StreamCoverage.staticSource())
                    .build()
                    .run());
    assertTrue(noPk.getMessage().contains("has no primary key"), noPk.getMessage());
    TableRefusedException myIsam =
        assertThrows(
            TableRefusedException.class,
            () ->
                Copier.builder(CopySpecs.split(fx, "refused", VSCHEMA, "my_isam"))
                    .coverage(StreamCoverage.staticSource())
                    .build()
                    .run());
    assertTrue(myIsam.getMessage().contains("uses engine MyISAM"), myIsam.getMessage());
    for (ClusterDescriptor.Server t : fx.targets) {
      assertEquals(
          0, fx.number(t, "SELECT COUNT(*) FROM _reshard.copy_state WHERE workflow = 'refused'"));
    }
  }
}
