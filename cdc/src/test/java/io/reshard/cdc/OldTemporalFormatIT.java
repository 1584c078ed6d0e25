package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.VSchema;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tables in MariaDB's old temporal format (created with {@code mysql56_temporal_format = OFF}:
 * DATETIME(n), TIME(n), TIMESTAMP(n) written to the binlog under the pre-5.6 type codes, n = 0 in
 * the plain layout and n = 1..6 in MariaDB 5.3's hires layout) captured from a real server: every
 * published value of every insert, update and delete equals the server's own {@code CAST(... AS
 * CHAR)} of the same row, a one-row UPDATE is one record, temporal primary keys included, and the
 * changes applied to a target whose tables are in today's format leave it equal to the source.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OldTemporalFormatIT {
  private static final List<String> TEMPORALS =
      IntStream.rangeClosed(0, 6)
          .boxed()
          .flatMap(n -> List.of("dt" + n, "tm" + n, "ts" + n).stream())
          .toList();

  private static final String OLD =
      "CREATE TABLE old_t (id INT PRIMARY KEY, "
          + IntStream.rangeClosed(0, 6)
              .mapToObj(
                  n ->
                      "dt%d DATETIME(%d), tm%d TIME(%d), ts%d TIMESTAMP(%d) NULL"
                          .formatted(n, n, n, n, n, n))
              .collect(Collectors.joining(", "))
          + ") ENGINE=InnoDB";

  /** Temporal columns in the primary key, and a TIMESTAMP NOT NULL. */
  private static final String KEYED =
      "CREATE TABLE old_k (k DATETIME(3) NOT NULL, t TIME(2) NOT NULL, s INT NOT NULL,"
          + " ts TIMESTAMP(6) NOT NULL DEFAULT '2000-01-01 00:00:00', v INT,"
          + " PRIMARY KEY (k, t)) ENGINE=InnoDB";

  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"old_t": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "old_k": {"column_vindexes": [{"column": "s", "name": "hash"}]}}}
      """;

  /** (id, DATETIME, TIME, TIMESTAMP), each written to the column of every precision. */
  private static final String[][] ROWS = {
    {"1", "2024-02-29 12:34:56.123456", "-838:59:59", "2024-02-29 12:34:56.123456"},
    {"2", "0000-00-00 00:00:00", "00:00:00", "0000-00-00 00:00:00"},
    {"3", "1000-01-01 00:00:00.000001", "-838:59:59.999999", "1970-01-01 00:00:01.000001"},
    {"4", "9999-12-31 23:59:59.999999", "838:59:59.999999", "2038-01-19 03:14:07.999999"},
    {"5", "2024-00-10 01:02:03.5", "-00:00:00.000001", "2000-01-01 00:00:00.5"},
    {"6", "2024-05-00 00:00:00.654321", "-00:00:01.5", "1999-12-31 23:59:59.999999"},
    {"7", "0000-01-01 00:00:00.1", "-12:34:56.654321", "2024-01-02 03:04:05.100001"},
    {"8", "0001-01-01 00:00:00", "100:00:00.1", "1970-01-01 00:00:01.5"},
    {"9", "2024-12-31 23:59:59.999999", "24:00:00", "2024-02-29 00:00:00"},
    {"10", null, null, null},
    {"11", "1999-09-09 09:09:09.090909", "-01:00:00.000001", "2010-10-10 10:10:10.010101"},
    {"12", "2000-01-01 00:00:00.999999", "-00:00:00.999999", "1970-01-01 00:00:01.999999"},
  };

  private final TestCluster cluster;
  private final ClusterDescriptor.Server source;
  private final ClusterDescriptor.Server target;
  private CaptureEngine engine;
  private CaptureConfig config;
  private List<ChangeRecord> records;

  /** The server's text of each row of old_t after the inserts and at the end, by id. */
  private Map<Long, Map<String, String>> inserted;

  private Map<Long, Map<String, String>> last;
  private Map<String, Map<String, String>> keyedInserted;
  private Map<String, Map<String, String>> keyedLast;
  private GtidPosition start;
  private GtidPosition end;

  OldTemporalFormatIT(TestCluster cluster) {
    this.cluster = cluster;
    this.source = cluster.shards().get(1);
    this.target = cluster.spares().get(0);
  }

  @BeforeAll
  void captureChangesOfOldFormatTables() throws Exception {
    createInOldFormat(OLD, KEYED);
    assertEquals(
        24,
        count(
            source,
            "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
                + " AND COLUMN_TYPE LIKE '%mariadb-5.3%'"),
        "the server made every temporal column in the old format");
    // the target's tables are in today's (MySQL 5.6) format
    cluster.execute(target, OLD, KEYED);
    config = CaptureConfig.from(CaptureSupport.config(cluster, source, "-"));
    engine = new CaptureEngine(config);
    engine.start();
    start = CaptureSupport.binlogPosition(cluster, source);
    StringBuilder values = new StringBuilder();
    for (String[] r : ROWS) {
      values.append(values.isEmpty() ? "" : ", ").append('(').append(r[0]);
      for (int n = 0; n <= 6; n++) {
        values.append(", ").append(lit(r[1])).append(", ").append(lit(r[2]));
        values.append(", ").append(lit(r[3]));
      }
      values.append(')');
    }
    String columns = "id, " + String.join(", ", TEMPORALS);
    exec("INSERT INTO old_t (" + columns + ") VALUES " + values);
    exec(
        "INSERT INTO old_k (k, t, s, ts, v) VALUES"
            + " ('2024-02-29 12:34:56.789', '-838:59:59.99', 1, '2038-01-19 03:14:07.999999', 1),"
            + " ('0000-00-00 00:00:00.000', '00:00:00.00', 2, '1970-01-01 00:00:01.000001', 2),"
            + " ('2024-02-29 12:34:56.789', '00:00:00.01', 3, '2024-02-29 12:34:56.000001', 3)");
    inserted = byId(select(source, "old_t", "id"));
    keyedInserted = select(source, "old_k", "k, t");
    exec(
        "UPDATE old_t SET tm3 = '-00:00:00.001', dt6 = '2024-02-29 23:59:59.000001',"
            + " ts2 = '2001-02-03 04:05:06.07' WHERE id = 1",
        "DELETE FROM old_t WHERE id = 7",
        "UPDATE old_k SET v = 20 WHERE s = 2",
        "UPDATE old_k SET k = '2025-01-01 00:00:00.5', t = '-00:00:00.5' WHERE s = 3",
        "DELETE FROM old_k WHERE s = 1");
    last = byId(select(source, "old_t", "id"));
    keyedLast = select(source, "old_k", "k, t");
    end = CaptureSupport.binlogPosition(cluster, source);
    CaptureSupport.awaitCommitted(engine, end, Duration.ofSeconds(60));
    records =
        CaptureSupport.data(
            CaptureSupport.read(
                cluster.bootstrap(),
                config.changeTopic(),
                Duration.ofSeconds(30),
                CaptureSupport.rows("old_k", "d", 1)));
  }

  @AfterAll
  void stop() throws Exception {
    if (engine != null) {
      engine.close();
    }
  }

  /** Creates tables in the old format, restoring the server's setting whatever happens. */
  private void createInOldFormat(String... ddl) throws SQLException {
    String before;
    try (Connection c = cluster.connect(source);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@GLOBAL.mysql56_temporal_format")) {
      rs.next();
      before = rs.getString(1);
    }
    try {
      cluster.execute(source, "SET GLOBAL mysql56_temporal_format = OFF");
      cluster.execute(source, ddl); // a new session, which sees the new setting
    } finally {
      cluster.execute(
          source, "SET GLOBAL mysql56_temporal_format = " + ("1".equals(before) ? "ON" : before));
    }
  }

  private static String lit(String v) {
    return v == null ? "NULL" : "'" + v + "'";
  }

  private List<ChangeRecord> of(String table, String op) {
    return records.stream().filter(r -> r.table().equals(table) && r.op().equals(op)).toList();
  }

  private static Map<String, String> text(Map<String, Object> image) {
    Map<String, String> out = new LinkedHashMap<>();
    image.forEach((k, v) -> out.put(k, v == null ? null : v.toString()));
    return out;
  }

  @Test
  void everyInsertedValueIsTheServersText() {
    List<ChangeRecord> inserts = of("old_t", "c");
    assertEquals(ROWS.length, inserts.size());
    for (ChangeRecord r : inserts) {
      long id = ((Number) r.key().get("id")).longValue();
      assertEquals(inserted.get(id), text(r.after()), "inserted row " + id);
    }
    assertEquals("-838:59:59.000000", inserted.get(1L).get("tm6"), "the server's text, as read");
    assertEquals("1970-01-01 00:00:01.5", inserted.get(8L).get("ts1"));
  }

  @Test
  void aOneRowUpdateIsOneRecordWithBothImagesExact() {
    List<ChangeRecord> updates = of("old_t", "u");
    assertEquals(1, updates.size(), "one UPDATE of one row: one record");
    ChangeRecord u = updates.get(0);
    assertEquals(1L, ((Number) u.key().get("id")).longValue());
    assertEquals(inserted.get(1L), text(u.before()));
    assertEquals(last.get(1L), text(u.after()));
    assertEquals("-00:00:00.001", u.after().get("tm3"));
  }

  @Test
  void aDeleteCarriesTheExactBeforeImage() {
    List<ChangeRecord> deletes = of("old_t", "d");
    assertEquals(1, deletes.size());
    assertEquals(inserted.get(7L), text(deletes.get(0).before()));
  }

  @Test
  void temporalPrimaryKeysAreExactInKeysAndImages() {
    List<ChangeRecord> inserts = of("old_k", "c");
    assertEquals(3, inserts.size());
    for (ChangeRecord r : inserts) {
      String key = r.after().get("k") + "|" + r.after().get("t");
      assertEquals(keyedInserted.get(key), text(r.after()), "row " + key);
      assertEquals(Map.of("k", r.after().get("k"), "t", r.after().get("t")), r.key());
    }
    List<ChangeRecord> updates = of("old_k", "u");
    assertEquals(2, updates.size(), "two one-row UPDATEs");
    ChangeRecord moved =
        updates.stream().filter(u -> Objects.equals(u.after().get("s"), 3L)).findFirst().get();
    assertEquals(keyedInserted.get("2024-02-29 12:34:56.789|00:00:00.01"), text(moved.before()));
    assertEquals(keyedLast.get("2025-01-01 00:00:00.500|-00:00:00.50"), text(moved.after()));
    assertEquals(1, of("old_k", "d").size());
    assertEquals(
        keyedInserted.get("2024-02-29 12:34:56.789|-838:59:59.99"),
        text(of("old_k", "d").get(0).before()));
  }

  @Test
  void publishedDefinitionsCarryThePrecisions() {
    ChangeRecord r = of("old_t", "c").get(0);
    for (int n = 0; n <= 6; n++) {
      assertEquals(n, r.schema().column("dt" + n).scale());
      assertEquals(n, r.schema().column("tm" + n).scale());
      assertEquals(n, r.schema().column("ts" + n).scale());
    }
  }

  @Test
  void appliedToTablesInTodaysFormatTheTargetEqualsTheSource() throws Exception {
    ApplyConfig apply =
        new ApplyConfig(
            "old-temporal",
            "-",
            cluster.jdbcUrl(target),
            target.user(),
            "",
            cluster.database(),
            VSchema.parse(VSCHEMA),
            cluster.bootstrap(),
            Map.of(config.changeTopic(), start),
            1000,
            Duration.ofMillis(100));
    try (ApplyEngine e = new ApplyEngine(apply)) {
      e.start();
      assertTrue(
          e.awaitApplied(config.changeTopic(), end, Duration.ofSeconds(60)),
          "applied: " + e.lastError());
    }
    assertEquals(last, byId(select(target, "old_t", "id")));
    assertEquals(keyedLast, select(target, "old_k", "k, t"));
    assertEquals(
        0,
        count(
            target,
            "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
                + " AND COLUMN_TYPE LIKE '%mariadb-5.3%'"),
        "the target's columns are in today's format");
  }

  private void exec(String... sql) throws SQLException {
    try (Connection c = cluster.connect(source);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION time_zone = '+00:00', sql_mode = ''");
      for (String q : sql) {
        st.execute(q);
      }
    }
  }

  private long count(ClusterDescriptor.Server server, String sql) throws SQLException {
    try (Connection c = cluster.connect(server);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static Map<Long, Map<String, String>> byId(Map<String, Map<String, String>> rows) {
    Map<Long, Map<String, String>> out = new LinkedHashMap<>();
    rows.forEach((k, v) -> out.put(Long.parseLong(k), v));
    return out;
  }

  /**
   * Every row of {@code table} as the server prints it: {@code CAST(c AS CHAR)} of each column in a
   * session with time_zone +00:00 (integers as their digits), keyed by the primary key's text.
   */
  private Map<String, Map<String, String>> select(
      ClusterDescriptor.Server server, String table, String order) throws SQLException {
    Map<String, Map<String, String>> out = new LinkedHashMap<>();
    try (Connection c = cluster.connect(server);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION time_zone = '+00:00'");
      List<String> names = new ArrayList<>();
      try (ResultSet rs =
          st.executeQuery(
              "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()"
                  + " AND TABLE_NAME = '"
                  + table
                  + "' ORDER BY ORDINAL_POSITION")) {
        while (rs.next()) {
          names.add(rs.getString(1));
        }
      }
      String cols =
          names.stream().map(n -> "CAST(`" + n + "` AS CHAR)").collect(Collectors.joining(", "));
      try (ResultSet rs =
          st.executeQuery("SELECT " + cols + " FROM " + table + " ORDER BY " + order)) {
        while (rs.next()) {
          Map<String, String> row = new LinkedHashMap<>();
          for (int i = 0; i < names.size(); i++) {
            row.put(names.get(i), rs.getString(i + 1));
          }
          String key =
              table.equals("old_k") ? row.get("k") + "|" + row.get("t") : row.get(names.get(0));
          out.put(key, row);
        }
      }
    }
    return out;
  }
}
