package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.core.value.ValueCodec;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.math.BigInteger;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every column type with edge values, inserted, updated and deleted on a real MariaDB shard and
 * captured into Kafka: the envelope values are asserted exactly, string bytes against the server's
 * {@code HEX()}, and the same rows read over JDBC with {@link ValueCodec} equal what capture
 * published (one representation for both paths). {@link MySqlTypeMatrixIT} runs the same body on a
 * MySQL 8.0.31 shard, with its own forms beside it ({@link #writeFirst}).
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TypeMatrixIT {
  private static final String DDL =
      """
      CREATE TABLE types (
        id INT PRIMARY KEY,
        ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
        mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
        bi BIGINT, biu BIGINT UNSIGNED,
        d0 DECIMAL(8,0), d2 DECIMAL(10,2), d65 DECIMAL(65,30),
        f FLOAT, dbl DOUBLE,
        b1 BIT(1), b10 BIT(10), b64 BIT(64),
        dt DATE, dtm0 DATETIME, dtm3 DATETIME(3), dtm6 DATETIME(6),
        ts0 TIMESTAMP NULL, ts6 TIMESTAMP(6) NULL,
        tm0 TIME, tm3 TIME(3), tm6 TIME(6), y YEAR,
        c_utf CHAR(4) CHARACTER SET utf8mb4, v_utf VARCHAR(20) CHARACTER SET utf8mb4,
        t_utf TEXT CHARACTER SET utf8mb4,
        c_lat CHAR(4) CHARACTER SET latin1, v_lat VARCHAR(300) CHARACTER SET latin1,
        t_lat MEDIUMTEXT CHARACTER SET latin1,
        v_bin VARCHAR(10) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin,
        bn BINARY(4), vb VARBINARY(10), tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
        e ENUM('a','b','café') CHARACTER SET utf8mb4, e_lat ENUM('x','é') CHARACTER SET latin1,
        s SET('r','w','x'), j JSON,
        g INT AS (i + 1) VIRTUAL,
        gs VARCHAR(30) CHARACTER SET utf8mb4 AS (CONCAT(v_bin, '!')) STORED,
        d5 DECIMAL(5,5), d30 DECIMAL(30,0) UNSIGNED, c255 CHAR(255) CHARACTER SET utf8mb4,
        e300 ENUM(%s) CHARACTER SET ascii, s64 SET(%s) CHARACTER SET ascii,
        gm GEOMETRY, pt POINT, y4 YEAR(4)
      ) ENGINE=InnoDB"""
          .formatted(labels("e", 300), labels("s", 64));

  private static final String ROW_1 =
      """
      INSERT INTO types (id, ti, tiu, si, siu, mi, miu, i, iu, bi, biu, d0, d2, d65, f, dbl,
        b1, b10, b64, dt, dtm0, dtm3, dtm6, ts0, ts6, tm0, tm3, tm6, y,
        c_utf, v_utf, t_utf, c_lat, v_lat, t_lat, v_bin, bn, vb, tb, bl, mb, lb, e, e_lat, s, j,
        d5, d30, c255, e300, s64, gm, pt, y4)
      VALUES (1, -128, 255, -32768, 65535, -8388608, 16777215, -2147483648, 4294967295,
        -9223372036854775808, 18446744073709551615, 12345678, -0.01,
        -99999999999999999999999999999999999.999999999999999999999999999999, 1.5,
        -1.7976931348623157E308, b'1', b'1010101010', 0xFFFFFFFFFFFFFFFF,
        '0000-00-00', '2024-00-10 00:00:00', '1000-01-01 00:00:00.001',
        '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07', '1970-01-01 00:00:01.012345',
        '-838:59:59', '-00:00:00.001', '-12:34:56.012345', 0,
        'ab', x'F09F9880C3A9', 'multi\nline', x'E9', x'80818D8F909D9FFF00', %s, 'AbC',
        x'6162', x'000102000000', x'', x'00FF', REPEAT('x', 70000), x'DEADBEEF',
        'café', 'é', 'r,x', '{"k": [1, 2.50, "é"],  "z": null}',
        -0.12345, 999999999999999999999999999999, REPEAT('é', 255), 'e299', 's0,s63',
        ST_GeomFromText('LINESTRING(0 0, 1 1.5)', 4326), POINT(-1.25, 2), 1901)""";

  private static final String ROW_3 =
      """
      INSERT INTO types (id, biu, d65, f, dbl, b64, dt, dtm6, ts0, tm3, y, e, s, j)
      VALUES (3, 0, 0, 0.1, 0.1, 0, '2024-02-29', '2024-02-29 12:00:00.000000',
        '0000-00-00 00:00:00', '00:00:00.000', 2155, 'b', '', '[]')""";

  /** The JSON document of row 1, as the test writes it. */
  static final String JSON_1 = "{\"k\": [1, 2.50, \"é\"],  \"z\": null}";

  // captured once for the class (in @BeforeAll, after the extension has set up the cluster)
  TestCluster cluster;
  ClusterDescriptor.Server shard;
  private CaptureEngine engine;
  private List<ChangeRecord> records;

  @BeforeAll
  void captureInsertUpdateDelete(TestCluster testCluster) throws Exception {
    cluster = testCluster;
    shard = cluster.shards().get(0);
    cluster.execute(shard, DDL);
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, shard, "-40"));
    engine = new CaptureEngine(config);
    engine.start();
    String allBytes = "x'" + HexFormat.of().formatHex(allBytes()) + "'";
    try (Connection c = cluster.connect(shard);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION sql_mode = '', time_zone = '+00:00'");
      writeFirst(c);
      st.execute(ROW_1.formatted(allBytes));
      st.execute("INSERT INTO types (id) VALUES (2)");
      st.execute(ROW_3);
      st.execute(
          "UPDATE types SET biu = biu - 1, v_lat = x'FF', tm0 = '00:00:00', j = NULL WHERE id = 1");
      st.execute("DELETE FROM types WHERE id = 3");
    }
    CaptureSupport.awaitCommitted(
        engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
    records =
        CaptureSupport.read(
            cluster.bootstrap(),
            config.changeTopic(),
            Duration.ofSeconds(30),
            CaptureSupport.rows("types", "d", 1));
  }

  @AfterAll
  void stop() throws Exception {
    if (engine != null) {
      engine.close();
    }
  }

  /**
   * Writes a subclass's own tables in the capture session ({@code sql_mode = ''}, UTC), before the
   * matrix's rows, so that reading up to the matrix's delete has read them too. Nothing here.
   */
  void writeFirst(Connection c) throws Exception {}

  /** The text capture publishes for {@link #JSON_1}: on MariaDB, a text column, as written. */
  String expectedJson1() {
    return JSON_1;
  }

  ChangeRecord row(String op, long id) {
    return row("types", op, id);
  }

  /** The first change {@code op} of the row {@code id} of {@code table}. */
  ChangeRecord row(String table, String op, long id) {
    return CaptureSupport.data(records).stream()
        .filter(r -> r.table().equals(table))
        .filter(r -> r.op().equals(op))
        .filter(r -> Long.valueOf(id).equals(r.key().get("id")))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no "
                        + op
                        + " of "
                        + table
                        + " id "
                        + id
                        + " among "
                        + records.size()
                        + " records"));
  }

  @Test
  void insertedEdgeValuesAreExact() {
    Map<String, Object> a = row("c", 1).after();
    Map<String, Object> expected = new LinkedHashMap<>();
    expected.put("id", 1L);
    expected.put("ti", -128L);
    expected.put("tiu", 255L);
    expected.put("si", -32768L);
    expected.put("siu", 65535L);
    expected.put("mi", -8388608L);
    expected.put("miu", 16777215L);
    expected.put("i", -2147483648L);
    expected.put("iu", 4294967295L);
    expected.put("bi", Long.MIN_VALUE);
    expected.put("biu", new BigInteger("18446744073709551615"));
    expected.put("d0", "12345678");
    expected.put("d2", "-0.01");
    expected.put("d65", "-99999999999999999999999999999999999.999999999999999999999999999999");
    expected.put("f", 1.5f);
    expected.put("dbl", -1.7976931348623157E308);
    expected.put("dt", "0000-00-00");
    expected.put("dtm0", "2024-00-10 00:00:00");
    expected.put("dtm3", "1000-01-01 00:00:00.001");
    expected.put("dtm6", "9999-12-31 23:59:59.999999");
    expected.put("ts0", "2038-01-19 03:14:07");
    expected.put("ts6", "1970-01-01 00:00:01.012345");
    expected.put("tm0", "-838:59:59");
    expected.put("tm3", "-00:00:00.001");
    expected.put("tm6", "-12:34:56.012345");
    expected.put("y", 0);
    expected.put("c_utf", "ab");
    expected.put("v_utf", "\uD83D\uDE00\u00E9");
    expected.put("t_utf", "multi\nline");
    expected.put("c_lat", "\u00E9");
    expected.put("v_lat", "\u20AC\u0081\u008D\u008F\u0090\u009D\u0178\u00FF\u0000");
    expected.put("v_bin", "AbC");
    expected.put("e", "café");
    expected.put("e_lat", "é");
    expected.put("s", "r,x");
    expected.put("j", expectedJson1());
    expected.put("g", -2147483647L);
    expected.put("gs", "AbC!");
    expected.put("d5", "-0.12345");
    expected.put("d30", "999999999999999999999999999999");
    expected.put("c255", "\u00E9".repeat(255));
    expected.put("e300", "e299");
    expected.put("s64", "s0,s63");
    expected.put("y4", 1901);
    assertAll( // every column's verdict, not only the first wrong one's
        expected.entrySet().stream()
            .map(e -> () -> assertEquals(e.getValue(), a.get(e.getKey()), "column " + e.getKey())));
    assertArrayEquals(new byte[] {1}, (byte[]) a.get("b1"));
    assertArrayEquals(new byte[] {0x02, (byte) 0xAA}, (byte[]) a.get("b10"));
    assertArrayEquals(HexFormat.of().parseHex("FFFFFFFFFFFFFFFF"), (byte[]) a.get("b64"));
    assertArrayEquals(new byte[] {'a', 'b', 0, 0}, (byte[]) a.get("bn"));
    assertArrayEquals(new byte[] {0, 1, 2, 0, 0, 0}, (byte[]) a.get("vb"));
    assertArrayEquals(new byte[0], (byte[]) a.get("tb"));
    assertEquals(70000, ((byte[]) a.get("mb")).length);
    assertArrayEquals(
        allBytes(), ValueCodec.exactBytes(row("c", 1).schema().column("t_lat"), a.get("t_lat")));
  }

  @Test
  void envelopeJsonShowsTheRepresentation() {
    ChangeRecord r = row("c", 1);
    var after = r.value().get("after");
    assertEquals("18446744073709551615", after.get("biu").toString());
    assertEquals("\"-0.01\"", after.get("d2").toString());
    assertEquals("\"Aqo=\"", after.get("b10").toString(), "BIT as base64 of its bytes");
    assertEquals("\"YWIAAA==\"", after.get("bn").toString(), "BINARY keeps its zero padding");
    assertEquals("1.5", after.get("f").toString());
    assertEquals("\"c\"", r.value().get("op").toString());
    assertEquals(cluster.database(), r.value().path("source").path("db").asText());
    assertEquals("-40", r.value().path("source").path("shard").asText());
    assertTrue(r.schema().column("g").generated());
    assertTrue(r.schema().column("gs").generated());
  }

  @Test
  void nullsEverywhere() {
    Map<String, Object> a = row("c", 2).after();
    a.forEach(
        (k, v) -> {
          if (!k.equals("id")) {
            assertNull(v, "column " + k);
          }
        });
    assertEquals(56, a.size());
  }

  @Test
  void zeroTimestampEmptySetAndInexactFloats() {
    Map<String, Object> a = row("c", 3).after();
    assertEquals("0000-00-00 00:00:00", a.get("ts0"));
    assertEquals("", a.get("s"));
    assertEquals(0.1f, a.get("f"));
    assertEquals(0.1, a.get("dbl"));
    assertEquals(0L, a.get("biu"));
    assertEquals("0.000000000000000000000000000000", a.get("d65"));
    assertEquals(2155, a.get("y"));
    assertEquals("00:00:00.000", a.get("tm3"));
  }

  @Test
  void updateCarriesFullBeforeAndAfterImages() {
    ChangeRecord u = row("u", 1);
    assertEquals(row("c", 1).after().get("biu"), u.before().get("biu"));
    assertEquals(new BigInteger("18446744073709551614"), u.after().get("biu"));
    assertEquals("\u00FF", u.after().get("v_lat"));
    assertEquals("00:00:00", u.after().get("tm0"));
    assertNull(u.after().get("j"));
    assertEquals(56, u.before().size());
    ChangeRecord d = row("d", 3);
    assertNull(d.after());
    assertEquals("2024-02-29 12:00:00.000000", d.before().get("dtm6"));
  }

  @Test
  void stringBytesEqualTheServersHex() throws Exception {
    ChangeRecord u = row("u", 1);
    List<String> columns =
        List.of(
            "c_utf", "v_utf", "t_utf", "c_lat", "v_lat", "t_lat", "v_bin", "bn", "vb", "tb", "bl",
            "lb", "e", "e_lat", "s", "b10", "b64", "gs", "c255", "e300", "s64", "gm", "pt");
    String select = columns.stream().map(c -> "HEX(`" + c + "`)").collect(Collectors.joining(", "));
    try (Connection c = cluster.connect(shard);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + select + " FROM types WHERE id = 1")) {
      rs.next();
      for (int i = 0; i < columns.size(); i++) {
        String col = columns.get(i);
        byte[] captured = u.exactBytes(col, true);
        String hex = HexFormat.of().formatHex(captured).toUpperCase();
        String server = rs.getString(i + 1);
        if (col.startsWith("b") && col.length() <= 3 && !col.equals("bl") && !col.equals("bn")) {
          server = server.length() % 2 == 1 ? "0" + server : server; // HEX(BIT) drops a leading 0
        }
        assertEquals(server, hex, "bytes of " + col);
      }
    }
  }

  @Test
  void jdbcReadsTheSameValuesAndTheSameColumnDefinitions() throws Exception {
    String url = cluster.jdbcUrl(shard) + "?useServerPrepStmts=true";
    try (Connection c = DriverManager.getConnection(url, shard.user(), "")) {
      try (Statement st = c.createStatement()) {
        st.execute("SET time_zone = '+00:00'");
      }
      TableSchema schema = TableSchemaReader.read(c, cluster.database(), "types").orElseThrow();
      // the binlog cannot know the full type text, the collation or the character count
      assertEquals(
          row("u", 1).schema().columns(),
          schema.columns().stream().map(ColumnDef::asBinlogDescribes).toList());
      assertEquals(List.of("id"), schema.primaryKey());
      String select =
          schema.columns().stream()
              .map(ValueCodec::selectExpression)
              .collect(Collectors.joining(", "));
      try (PreparedStatement ps =
          c.prepareStatement("SELECT " + select + " FROM types WHERE id = ?")) {
        for (ChangeRecord captured : List.of(row("u", 1), row("c", 2))) {
          ps.setLong(1, (Long) captured.key().get("id"));
          try (ResultSet rs = ps.executeQuery()) {
            assertTrue(rs.next());
            for (int i = 0; i < schema.columns().size(); i++) {
              ColumnDef col = schema.columns().get(i);
              Object jdbc = ValueCodec.fromJdbc(rs, i + 1, col);
              assertValueEquals(captured.after().get(col.name()), jdbc, col.name());
            }
          }
        }
      }
    }
  }

  /**
   * MariaDB's INET4, INET6 and UUID are written as BINARY cells, but no value kind carries them:
   * capture refuses the table at its first row, before anything of it is published, naming table,
   * column, type and the change to make.
   */
  @Test
  void aTypeCdcCannotRepresentIsRefusedBeforeAnythingOfTheTableIsPublished() throws Exception {
    assumeTrue(cluster.flavor() == Flavor.MARIADB, "INET6 is a MariaDB type");
    ClusterDescriptor.Server other = cluster.shards().get(2);
    cluster.execute(other, "CREATE TABLE addresses (id INT PRIMARY KEY, a INET6) ENGINE=InnoDB");
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, other, "80-c0"));
    try (CaptureEngine refusing = new CaptureEngine(config)) {
      refusing.start();
      cluster.execute(other, "INSERT INTO addresses VALUES (1, '::1')");
      CdcException e = CaptureSupport.awaitFailure(refusing, Duration.ofSeconds(60));
      assertTrue(e instanceof UnsupportedChangeException, e.toString());
      String m = e.getMessage();
      assertTrue(m.contains("column a of " + cluster.database() + ".addresses"), m);
      assertTrue(m.contains("type inet6"), m);
      assertTrue(m.contains("ALTER TABLE"), m);
    }
    List<ChangeRecord> published =
        CaptureSupport.read(
            cluster.bootstrap(), config.changeTopic(), Duration.ofSeconds(2), l -> false);
    assertTrue(
        CaptureSupport.data(published).isEmpty(), "nothing of the table published: " + published);
  }

  static void assertValueEquals(Object expected, Object actual, String column) {
    if (expected instanceof byte[] e && actual instanceof byte[] a) {
      assertTrue(
          Arrays.equals(e, a),
          column + ": " + HexFormat.of().formatHex(e) + " vs " + HexFormat.of().formatHex(a));
    } else {
      assertEquals(expected, actual, "column " + column);
    }
  }

  /** {@code 'p0','p1',...} with {@code n} labels. */
  private static String labels(String prefix, int n) {
    return java.util.stream.IntStream.range(0, n)
        .mapToObj(i -> "'" + prefix + i + "'")
        .collect(Collectors.joining(","));
  }

  private static byte[] allBytes() {
    byte[] b = new byte[256];
    for (int i = 0; i < 256; i++) {
      b[i] = (byte) i;
    }
    return b;
  }
}
