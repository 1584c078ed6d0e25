package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.router.KeyRange;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import io.reshard.testkit.UseFlavor;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole reshard on MySQL 8.0.31, through the CLI and the daemon only: a single-shard keyspace
 * whose table has a column of every MySQL type (JSON, spatial, bit, unsigned, fractional temporal,
 * {@code utf8mb4_0900_ai_ci} and latin1 text, blobs, ENUM/SET) with edge values is split into
 * {@code -80} and {@code 80-} while a writer inserts, updates (primary and sharding keys too) and
 * deletes on the source; diff, switch reads and writes, writes on the targets flow back through the
 * reverse streams, reverse traffic, switch again, complete. The daemon halts at three phase
 * boundaries on the way, each time taken up by a new one from the stored state: after the first
 * switch's journal and the targets' opening (finished forward), after the reverse's publish
 * (finished), and inside the second switch's fenced window (rolled back, the source writable again;
 * then switched for real). Before the complete the targets together hold exactly the source's rows,
 * byte for byte ({@code HEX} of every column), each on the shard that owns it; after it the retired
 * source is {@code super_read_only}.
 */
@ExtendWith(LocalClusterExtension.class)
@UseFlavor(Flavor.MYSQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MySqlLifecycleIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"everything": {"column_vindexes": [{"column": "k", "name": "hash"}]}}}
      """;
  static final String TABLE =
      """
      CREATE TABLE everything (
        id BIGINT PRIMARY KEY, k BIGINT NOT NULL,
        ti TINYINT, tu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT UNSIGNED, i INT,
        bu BIGINT UNSIGNED, de DECIMAL(65,30), fl FLOAT, db DOUBLE, bt BIT(64),
        da DATE, dt DATETIME(6), ts TIMESTAMP(6) NULL, tm TIME(6), yr YEAR,
        ch CHAR(10), vc VARCHAR(100) COLLATE utf8mb4_0900_ai_ci, l1 VARCHAR(20) CHARACTER SET latin1,
        bn BINARY(4), vb VARBINARY(20), tt TINYTEXT, tx TEXT, mt MEDIUMTEXT, lt LONGTEXT,
        tb TINYBLOB, bl BLOB, mb MEDIUMBLOB, lb LONGBLOB,
        en ENUM('a','b','c'), st SET('x','y','z'), js JSON, gm GEOMETRY, pt POINT,
        KEY (k)) ENGINE=InnoDB""";

  private final TestCluster cluster;
  private final CliSession ops;
  private final String ks;
  private final Path vschema;
  private final ClusterDescriptor.Server source;

  MySqlLifecycleIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
    this.ks = cluster.database();
    this.source = cluster.shards().get(0);
    this.vschema = Files.createTempFile("vschema", ".json");
    Files.writeString(vschema, VSCHEMA, StandardCharsets.UTF_8);
    cluster.execute(source, TABLE);
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP TABLE IF EXISTS everything");
    }
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    ops.close();
    Files.deleteIfExists(vschema);
    cluster.execute(source, "SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF");
  }

  /** {@code reshard plan} reads the MySQL shard's rows: two ranges covering the keyspace. */
  private void assertPlanCoversTheKeyspace() throws Exception {
    Run plan = ops.verb("plan", "--keyspace", ks, "--shards", "2", "--output", "json");
    assertEquals(0, plan.exit(), plan.out() + plan.err());
    com.fasterxml.jackson.databind.JsonNode p = JSON.readTree(plan.out());
    assertTrue(p.at("/sample/counted_rows").asLong() >= 400, plan.out());
    List<KeyRange> targets = new ArrayList<>();
    p.get("targets").forEach(t -> targets.add(KeyRange.parse(t.get("range").asText())));
    assertEquals(2, targets.size(), plan.out());
    assertEquals(KeyRange.FULL, KeyRange.mergeAll(targets), plan.out());
  }

  @Test
  void splitReverseSwitchAgainAndCompleteOnMySql() throws Exception {
    for (int id = 1; id <= 400; id++) {
      insert(source, id, id * 7L);
    }
    edgeRows();
    ops.startDaemon(NO_STREAM);
    Run init =
        ops.cli(
            "keyspace", "init", "--keyspace", ks, "--vschema", vschema.toString(), "--shards=-");
    assertEquals(0, init.exit(), init.err());
    assertPlanCoversTheKeyspace();

    AtomicBoolean stop = new AtomicBoolean();
    Writer writer = new Writer(new Random(17));
    CompletableFuture<Void> writing =
        CompletableFuture.runAsync(
            () -> {
              while (!stop.get()) {
                writer.step();
              }
            });
    Run created =
        ops.cli(
            "workflow",
            "create",
            "--keyspace",
            ks,
            "--source",
            "-",
            "--targets=-80,80-",
            "split",
            "--output",
            "json");
    assertEquals(0, created.exit(), created.err());
    ops.awaitCopyDone("split");
    Thread.sleep(1500);
    stop.set(true);
    writing.get();
    assertEquals(0, writer.errors.get(), "the writer's statements all succeeded");
    assertTrue(writer.ops.get() > 20, "the writer ran during the copy: " + writer.ops.get());
    System.err.println("[mysql lifecycle] writer statements during the copy: " + writer.ops.get());

    CliSession.assertClean(ops.diff("split"));
    assertEquals(0, ops.cli("workflow", "switch-traffic", "split", "--reads").exit());
    // the daemon halts after the journal and the targets' opening, before the map is out; the
    // next one takes the journal up and finishes the switch (the reverse streams run once the
    // targets' rows reach the source below)
    haltAndRestart("switch:targets-open", "workflow", "switch-traffic", "split", "--writes");
    ops.awaitState("split", "WRITES_SWITCHED");
    Run twice = ops.cli("workflow", "switch-traffic", "split", "--writes");
    assertEquals(3, twice.exit(), twice.out() + twice.err());
    assertTrue((twice.out() + twice.err()).contains("writes are switched already"), twice.err());

    // writes now go to their owners; the reverse streams carry them back to the source
    List<ClusterDescriptor.Server> targets = cluster.spares();
    for (int id = 5001; id <= 5040; id++) {
      long k = 3L * id;
      insert(owner(targets, k), id, k);
    }
    for (ClusterDescriptor.Server t : targets) {
      sql(t, "UPDATE everything SET vc = CONCAT(vc, ' après') WHERE id % 5 = 0");
      sql(t, "DELETE FROM everything WHERE id % 23 = 0 AND id < 5000");
    }
    awaitSameRows(targets);
    // reverse traffic halts after its publish, before the new forward streams start
    haltAndRestart("reverse:published", "workflow", "reverse-traffic", "split");
    ops.awaitState("split", "RUNNING");
    sql(source, "UPDATE everything SET tx = 'back on the source' WHERE id % 11 = 0");
    sql(source, "DELETE FROM everything WHERE id % 29 = 0");
    CliSession.assertClean(ops.diff("split"));
    // a switch halted in its fenced window is rolled back: the source writable again
    ops.awaitCaughtUp("split");
    haltAndRestart("state:SWITCHING_WRITES", "workflow", "switch-traffic", "split", "--writes");
    ops.awaitState("split", "RUNNING");
    assertEquals(List.of(0, 0), readOnly(source), "read_only, super_read_only after the roll-back");
    ops.awaitCaughtUp("split");
    Run again = ops.cli("workflow", "switch-traffic", "split", "--writes");
    assertEquals(0, again.exit(), again.err());
    sql(targets.get(1), "UPDATE everything SET js = JSON_OBJECT('last', TRUE) WHERE id % 13 = 0");
    awaitSameRows(targets);

    Run complete = ops.cli("workflow", "complete", "split");
    assertEquals(0, complete.exit(), complete.err());
    try (Connection c = cluster.connect(source);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@GLOBAL.super_read_only")) {
      rs.next();
      assertEquals(1, rs.getInt(1), "a retired MySQL source is super_read_only");
    }
  }

  // ---- the daemon halted -------------------------------------------------------------------

  /** The daemon's settings here: the keyspace stream has its own test (KeyspaceStreamIT). */
  private static final String NO_STREAM = "keyspace.stream.enabled=false";

  /**
   * Runs {@code command} on a daemon armed to halt at {@code failpoint} (the command fails with
   * it), then starts a daemon without one, which takes the workflow up from its stored state.
   */
  private void haltAndRestart(String failpoint, String... command) throws Exception {
    ops.startDaemonHaltingAt(failpoint, NO_STREAM);
    Run halted = ops.cli(command);
    assertNotEquals(0, halted.exit(), "the daemon halted at " + failpoint + ": " + halted.out());
    ops.awaitDaemonHalted();
    ops.startDaemon(NO_STREAM);
  }

  private List<Integer> readOnly(ClusterDescriptor.Server s) throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@GLOBAL.read_only, @@GLOBAL.super_read_only")) {
      rs.next();
      return List.of(rs.getInt(1), rs.getInt(2));
    }
  }

  // ---- data --------------------------------------------------------------------------------

  private void insert(ClusterDescriptor.Server s, long id, long k) throws Exception {
    sql(
        s,
        "INSERT INTO everything VALUES ("
            + id
            + ", "
            + k
            + ", -128, 255, -32768, 16777215, "
            + (id % 2 == 0 ? "-2147483648" : "2147483647")
            + ", 18446744073709551615, '-12345678901234567890123456789012345.123456789012345678901234567890',"
            + " -3.4E38, -2.2250738585072014E-308, b'1010101010101010101010101010101010101010101010101010101010101010',"
            + " '1000-01-01', '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999999',"
            + " '-838:59:59.000000', 2155, 'ch"
            + id
            + "', 'Ünïcödé ✓ 𝄞 "
            + id
            + "', 'café', x'00FF7F80', x'000102', 'tiny', REPEAT('t', 300), REPEAT('m', 70000),"
            + " REPEAT('l', 1000), x'DEADBEEF', RANDOM_BYTES(200), REPEAT(RANDOM_BYTES(1000), 70), x'',"
            + " 'b', 'x,z', JSON_OBJECT('id', "
            + id
            + ", 'f', 1.5, 'n', NULL, 'a', JSON_ARRAY(1, 'é', TRUE), 'big', 18446744073709551615),"
            + " ST_GeomFromText('LINESTRING(0 0, 1 1, 2 5)'), POINT("
            + id
            + ", -1.5))");
  }

  /** NULLs everywhere nullable, empty strings, zero and negative zero, the smallest values. */
  private void edgeRows() throws Exception {
    sql(source, "INSERT INTO everything (id, k) VALUES (1000, 1000)");
    sql(
        source,
        "INSERT INTO everything (id, k, ti, tu, i, bu, de, fl, db, bt, da, dt, ts, tm, yr, ch, vc,"
            + " l1, bn, vb, tt, en, st, js) VALUES (1001, -9223372036854775808, 127, 0, 0, 0,"
            + " 0.000000000000000000000000000001, -0.0, 1e-300, b'0', '2024-02-29',"
            + " '1970-01-01 00:00:00.000001', '1970-01-01 00:00:01', '00:00:00.5', 1901, '', '', '',"
            + " x'00000000', x'', '', 'a', '', '[]')");
    sql(
        source,
        "INSERT INTO everything (id, k, vc, js) VALUES (1002, 9223372036854775807,"
            + " 'a\\\\b\\'c\"d\\n\\t', '\"just a string\"')");
  }

  /** Inserts, updates (the primary and the sharding key too) and deletes on the source. */
  final class Writer {
    final Random random;
    final AtomicInteger ops = new AtomicInteger();
    final AtomicInteger errors = new AtomicInteger();
    long nextId = 10_000;

    Writer(Random random) {
      this.random = random;
    }

    void step() {
      try {
        long id = 1 + random.nextInt(400);
        switch (random.nextInt(6)) {
          case 0 -> insert(source, nextId, nextId++ * 13);
          case 1 ->
              sql(
                  source,
                  "UPDATE everything SET vc = CONCAT('u', "
                      + ops.get()
                      + "), js = JSON_SET(COALESCE(js, '{}'), '$.u', "
                      + ops.get()
                      + ") WHERE id = "
                      + id);
          case 2 -> sql(source, "UPDATE everything SET k = k + 1 WHERE id = " + id);
          case 3 ->
              sql(
                  source,
                  "UPDATE everything SET id = id + 100000 WHERE id = "
                      + id
                      + " AND id + 100000 NOT IN (SELECT id FROM (SELECT id FROM everything) x)");
          case 4 -> sql(source, "DELETE FROM everything WHERE id = " + id);
          default -> sql(source, "UPDATE everything SET bl = RANDOM_BYTES(50) WHERE id = " + id);
        }
        ops.incrementAndGet();
        Thread.sleep(5);
      } catch (Exception e) {
        errors.incrementAndGet();
        System.err.println("[mysql lifecycle] writer: " + e);
      }
    }
  }

  // ---- checks ------------------------------------------------------------------------------

  private ClusterDescriptor.Server owner(List<ClusterDescriptor.Server> targets, long k) {
    return KeyRange.parse("-80").contains(HASH.keyspaceId(k)) ? targets.get(0) : targets.get(1);
  }

  /**
   * Waits until the targets together hold exactly the source's rows, HEX of every column equal,
   * each row on the target that owns its sharding key.
   */
  private void awaitSameRows(List<ClusterDescriptor.Server> targets) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
    String last = "";
    while (System.nanoTime() < deadline) {
      Map<Long, String> want = hexRows(source);
      Map<Long, String> got = new TreeMap<>();
      List<String> misplaced = new ArrayList<>();
      for (int t = 0; t < targets.size(); t++) {
        KeyRange range = KeyRange.parse(t == 0 ? "-80" : "80-");
        for (Map.Entry<Long, String> e : hexRows(targets.get(t)).entrySet()) {
          got.put(e.getKey(), e.getValue());
          long k = Long.parseLong(e.getValue().split("\\|", 3)[1]);
          if (!range.contains(HASH.keyspaceId(k))) {
            misplaced.add(e.getKey() + " on " + range);
          }
        }
      }
      assertTrue(misplaced.isEmpty(), "rows on a shard that does not own them: " + misplaced);
      if (want.equals(got)) {
        assertTrue(want.size() > 300, "rows compared: " + want.size());
        System.err.println("[mysql lifecycle] rows equal, HEX of every column: " + want.size());
        return;
      }
      last = difference(want, got);
      Thread.sleep(500);
    }
    throw new AssertionError("the targets never equalled the source: " + last);
  }

  private static String difference(Map<Long, String> want, Map<Long, String> got) {
    List<String> d = new ArrayList<>();
    for (Map.Entry<Long, String> e : want.entrySet()) {
      String g = got.get(e.getKey());
      if (!e.getValue().equals(g)) {
        d.add(e.getKey() + (g == null ? " missing" : " differs"));
      }
    }
    got.keySet().stream().filter(id -> !want.containsKey(id)).forEach(id -> d.add(id + " extra"));
    return d.size() + " rows: " + d.subList(0, Math.min(10, d.size()));
  }

  /** id -> "id|k|HEX(col)|HEX(col)..." of every row, NULL as "N". */
  private Map<Long, String> hexRows(ClusterDescriptor.Server s) throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      List<String> columns = new ArrayList<>();
      try (ResultSet rs = st.executeQuery("SELECT * FROM `" + ks + "`.everything LIMIT 0")) {
        ResultSetMetaData m = rs.getMetaData();
        for (int i = 1; i <= m.getColumnCount(); i++) {
          columns.add(m.getColumnName(i));
        }
      }
      StringBuilder select = new StringBuilder("SELECT id, k");
      for (String col : columns) {
        select.append(", HEX(`").append(col).append("`)");
      }
      try (ResultSet rs =
          st.executeQuery(select.append(" FROM `").append(ks).append("`.everything").toString())) {
        while (rs.next()) {
          StringBuilder row = new StringBuilder().append(rs.getLong(1)).append('|');
          row.append(rs.getLong(2));
          for (int i = 3; i <= columns.size() + 2; i++) {
            String v = rs.getString(i);
            row.append('|').append(v == null ? "N" : v);
          }
          rows.put(rs.getLong(1), row.toString());
        }
      }
    }
    return rows;
  }

  // ---- the CLI -----------------------------------------------------------------------------

  private void sql(ClusterDescriptor.Server s, String statement) throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      st.execute("USE `" + ks + "`");
      st.execute(statement);
    }
  }
}
