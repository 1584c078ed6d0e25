package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Apply against real processes: capture of source shard {@code c0-} (db4, the last shard) into its
 * change topic, and appliers into {@code c0-e0} (db5) and {@code e0-} (db6), the two spares.
 * Results are checked with plain SQL on both sides ({@code HEX} of every column), not through
 * reshard's own code. {@link MySqlApplyEngineIT} runs the same on MySQL 8.0.31 servers.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApplyEngineIT {
  static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]},
                  "kinds": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "altered": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "checked": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "years": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "jscalars": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}
      """;
  static final String MESSAGES =
      "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL, body VARCHAR(100)"
          + " CHARACTER SET latin1, note VARCHAR(100), UNIQUE KEY u_note (note)) ENGINE=InnoDB";
  static final String KINDS =
      "CREATE TABLE kinds (id BIGINT PRIMARY KEY, u BIGINT UNSIGNED, d DECIMAL(65,30), d0 DECIMAL(8,0),"
          + " f FLOAT, g DOUBLE, b BIT(13), dt DATETIME(6), ts TIMESTAMP(3) NULL, t TIME(4), y YEAR,"
          + " dz DATE, c CHAR(5) CHARACTER SET latin1, v VARCHAR(20) CHARACTER SET utf8mb4,"
          + " bin BINARY(6), vb VARBINARY(10), bl BLOB, e ENUM('a','b','c'), s SET('x','y','z'),"
          + " j JSON, gen BIGINT AS (id * 2) VIRTUAL) ENGINE=InnoDB";

  private final TestCluster cluster;
  final ClusterDescriptor.Server source;
  final ClusterDescriptor.Server left;
  private final ClusterDescriptor.Server right;
  final String topic;
  private CaptureEngine capture;

  ApplyEngineIT(TestCluster cluster) {
    this.cluster = cluster;
    this.source = cluster.shards().get(cluster.shards().size() - 1);
    this.left = cluster.spares().get(0);
    this.right = cluster.spares().get(1);
    this.topic = ChangeRecords.changeTopic(cluster.topicPrefix(), cluster.database(), "c0-");
  }

  @BeforeAll
  void startCapture() throws Exception {
    for (ClusterDescriptor.Server s : List.of(source, left, right)) {
      cluster.execute(
          s, MESSAGES, KINDS, "CREATE TABLE altered (id BIGINT PRIMARY KEY, v INT) ENGINE=InnoDB");
    }
    // the left target refuses what the source accepts: a row it cannot take must be named
    cluster.execute(source, "CREATE TABLE checked (id BIGINT PRIMARY KEY, v INT) ENGINE=InnoDB");
    cluster.execute(right, "CREATE TABLE checked (id BIGINT PRIMARY KEY, v INT) ENGINE=InnoDB");
    cluster.execute(
        left,
        "CREATE TABLE checked (id BIGINT PRIMARY KEY, v INT, CONSTRAINT small CHECK (v < 100))"
            + " ENGINE=InnoDB");
    Map<String, String> m =
        CaptureConfig.forServer(
            source.host(),
            source.port(),
            source.user(),
            "",
            7104,
            cluster.database(),
            "c0-",
            cluster.bootstrap(),
            cluster.topicPrefix());
    m.put("source.flavor", source.flavorOrDefault().id());
    m.put("heartbeat.interval.ms", "500");
    m.put("batch.max.wait.ms", "20");
    capture = new CaptureEngine(CaptureConfig.from(m));
    capture.start();
    // as in a workflow: the change stream must cover a position before anything after it counts
    GtidPosition now = position(source);
    waitFor(
        () -> capture.committedPosition().map(p -> p.gtids().covers(now)).orElse(false),
        Duration.ofSeconds(60));
  }

  @AfterAll
  void stopCapture() throws Exception {
    capture.close();
  }

  ApplyEngine applier(
      String workflow,
      ClusterDescriptor.Server target,
      String range,
      GtidPosition p0,
      int rowsPerCommit) {
    ApplyEngine e = new ApplyEngine(config(workflow, target, range, p0, rowsPerCommit));
    e.start();
    return e;
  }

  private ApplyConfig config(
      String workflow,
      ClusterDescriptor.Server target,
      String range,
      GtidPosition p0,
      int rowsPerCommit) {
    return new ApplyConfig(
        workflow,
        range,
        cluster.jdbcUrl(target),
        target.user(),
        "",
        cluster.database(),
        VSchema.parse(VSCHEMA),
        cluster.bootstrap(),
        Map.of(topic, p0),
        rowsPerCommit,
        Duration.ofMillis(100));
  }

  @Test
  void lagAndThroughputMetersFollowTheApplier() throws Exception {
    GtidPosition p0 = position(source);
    long c = channelIn("c0-e0", 700);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (ApplyEngine l = new ApplyEngine(config("w6", left, "c0-e0", p0, 1000), registry)) {
      l.start();
      TimeGauge lag = registry.get("reshard.apply.lag").tag("workflow", "w6").timeGauge();
      FunctionCounter rows =
          registry
              .get("reshard.apply.rows")
              .tag("target", "c0-e0")
              .tag("workflow", "w6")
              .functionCounter();
      exec(source, "INSERT INTO messages VALUES (7001, " + c + ", 'a', 'w6a')");
      GtidPosition g = position(source);
      assertTrue(l.awaitApplied(topic, g, Duration.ofSeconds(60)), "applied: " + l.lastError());
      waitFor(() -> lag.value(TimeUnit.MILLISECONDS) == 0, Duration.ofSeconds(30));
      assertEquals(1, rows.count(), "the one row change in range");
      double commits =
          registry.get("reshard.apply.commits").tag("workflow", "w6").functionCounter().count();
      assertTrue(commits >= 1, "commits: " + commits);

      // a transaction on the target holds the row: the applier's next change of it waits, and
      // the lag is the growing age of that unapplied change
      try (Connection blocker = cluster.connect(left);
          Statement st = blocker.createStatement()) {
        blocker.setAutoCommit(false);
        st.executeQuery("SELECT * FROM messages WHERE id = 7001 FOR UPDATE").close();
        exec(source, "UPDATE messages SET body = 'b' WHERE id = 7001");
        waitFor(() -> lag.value(TimeUnit.MILLISECONDS) > 1000, Duration.ofSeconds(30));
        double before = lag.value(TimeUnit.MILLISECONDS);
        Thread.sleep(300);
        assertTrue(lag.value(TimeUnit.MILLISECONDS) >= before + 250, "lag grows while blocked");
        assertEquals(1, rows.count(), "nothing more applied while blocked");
        blocker.rollback();
      }
      GtidPosition g2 = position(source);
      assertTrue(l.awaitApplied(topic, g2, Duration.ofSeconds(60)), "applied: " + l.lastError());
      waitFor(() -> lag.value(TimeUnit.MILLISECONDS) == 0, Duration.ofSeconds(30));
      assertEquals(2, rows.count());
      assertEquals("b", rows(left, "SELECT body FROM messages WHERE id = 7001").get(0));
    }
  }

  @Test
  void rowsLandOnTheTargetTheirKeyspaceIdSaysAndMoveWhenTheirShardingKeyChanges() throws Exception {
    // history before P0: the copy would bring these rows; apply must not replay their changes
    exec(
        source,
        "INSERT INTO messages VALUES (1, 1, 'before', 'n1')",
        "UPDATE messages SET body = 'old' WHERE id = 1");
    GtidPosition p0 = position(source);
    long c1 = channelIn("c0-e0", 100);
    long c2 = channelIn("e0-", 100);
    try (ApplyEngine l = applier("w1", left, "c0-e0", p0, 3);
        ApplyEngine r = applier("w1", right, "e0-", p0, 3)) {
      for (int i = 10; i < 40; i++) {
        exec(
            source,
            "INSERT INTO messages VALUES ("
                + i
                + ", "
                + (i % 2 == 0 ? c1 : c2)
                + ", 'caf\u00e9 \u20ac"
                + i
                + "', 'n"
                + i
                + "')");
      }
      exec(
          source,
          "UPDATE messages SET body = 'edited' WHERE id = 10",
          "UPDATE messages SET id = 1000 WHERE id = 12", // primary key change
          "UPDATE messages SET channel_id = " + c2 + " WHERE id = 14", // moves c0-e0 -> e0-
          "UPDATE messages SET channel_id = " + c1 + " WHERE id = 15", // moves e0- -> c0-e0
          "DELETE FROM messages WHERE id IN (16, 17)",
          // a swap of unique values through a third one, in one transaction
          "BEGIN",
          "UPDATE messages SET note = 'tmp' WHERE id = 18",
          "UPDATE messages SET note = 'n18' WHERE id = 19",
          "UPDATE messages SET note = 'n19' WHERE id = 18",
          "COMMIT");
      GtidPosition g = position(source);
      assertTrue(
          l.awaitApplied(topic, g, Duration.ofSeconds(60)), "left caught up: " + l.lastError());
      assertTrue(
          r.awaitApplied(topic, g, Duration.ofSeconds(60)), "right caught up: " + r.lastError());
      waitFor(() -> l.lagMillis() == 0, Duration.ofSeconds(30));
    }
    String cols = "id, channel_id, HEX(body), HEX(note)";
    List<String> all =
        rows(source, "SELECT " + cols + " FROM messages WHERE id BETWEEN 10 AND 1000 ORDER BY id");
    assertEquals(
        inRange(all, "c0-e0"),
        rows(left, "SELECT " + cols + " FROM messages WHERE id BETWEEN 10 AND 1000 ORDER BY id"));
    assertEquals(
        inRange(all, "e0-"),
        rows(right, "SELECT " + cols + " FROM messages WHERE id BETWEEN 10 AND 1000 ORDER BY id"));
    assertEquals(
        0,
        count(left, "SELECT COUNT(*) FROM messages WHERE id = 1"),
        "pre-P0 history not replayed");
    assertEquals(
        1,
        count(right, "SELECT COUNT(*) FROM messages WHERE id = 15")
            + count(left, "SELECT COUNT(*) FROM messages WHERE id = 15"));
  }

  @Test
  void everyColumnKindArrivesByteForByte() throws Exception {
    GtidPosition p0 = position(source);
    long[] k = idsIn("c0-", 40); // rows a c0- shard holds
    // the lowest TIME(4): MariaDB's goes below -838:59:59 by a fraction, MySQL's stops there
    String lowestTime = cluster.flavor() == Flavor.MYSQL ? "-838:59:59" : "-838:59:59.0001";
    try (ApplyEngine l = applier("w2", left, "c0-e0", p0, 1000);
        ApplyEngine r = applier("w2", right, "e0-", p0, 1000)) {
      exec(
          source,
          "INSERT INTO kinds (id, u, d, d0, f, g, b, dt, ts, t, y, dz, c, v, bin, vb, bl, e, s, j) VALUES"
              + " ("
              + k[0]
              + ", 18446744073709551615, -12345678901234567890.123456789012345678901234567890, 0, 3.14159, -2.5e-300,"
              + " b'1010101010101', '2024-02-29 23:59:59.012345', '2038-01-19 03:14:07.999', '"
              + lowestTime
              + "', 2155,"
              + " '0000-00-00', x'80819d', 'Zo\u00eb \ud83d\ude00', x'000102', x'00ff00', x'deadbeef', 'b', 'x,z', '{\"k\": [1, 2.50]}'),"
              + " ("
              + k[1]
              + ", 0, 0, -99999999, -0.0, 1e308, b'0', '0000-00-00 00:00:00', NULL, '00:00:00', 0,"
              + " '2024-00-10', '', '', x'', x'', '', 'c', '', 'null'),"
              + " ("
              + k[2]
              + ", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)",
          "UPDATE kinds SET v = 'chang\u00e9', bin = x'ff', d = 0.000000000000000000000000000001 WHERE id = "
              + k[0],
          "DELETE FROM kinds WHERE id = " + k[2]);
      for (int i = 3; i < 40; i++) {
        exec(source, "INSERT INTO kinds (id, v, c) VALUES (" + k[i] + ", 'v" + i + "', x'8d9d')");
      }
      GtidPosition g = position(source);
      assertTrue(l.awaitApplied(topic, g, Duration.ofSeconds(60)), "left: " + l.lastError());
      assertTrue(r.awaitApplied(topic, g, Duration.ofSeconds(60)), "right: " + r.lastError());
    }
    String cols =
        "id, HEX(u), HEX(d), HEX(d0), HEX(f), HEX(g), HEX(b), HEX(dt), HEX(ts), HEX(t), HEX(y), HEX(dz),"
            + " HEX(c), HEX(v), HEX(bin), HEX(vb), HEX(bl), HEX(e), HEX(s), HEX(j), gen";
    List<String> all = rows(source, "SELECT " + cols + " FROM kinds ORDER BY id");
    List<String> applied =
        new ArrayList<>(rows(left, "SELECT " + cols + " FROM kinds ORDER BY id"));
    applied.addAll(rows(right, "SELECT " + cols + " FROM kinds ORDER BY id"));
    applied.sort(java.util.Comparator.comparingLong(x -> Long.parseLong(x.split("\\|")[0])));
    assertEquals(all, applied);
    assertEquals(39, all.size());
    assertTrue(
        rows(left, "SELECT id FROM kinds").size() > 0
            && rows(right, "SELECT id FROM kinds").size() > 0,
        "both targets received rows");
  }

  static long[] idsIn(String shard, int n) {
    long[] ids = new long[n];
    long next = 1;
    for (int i = 0; i < n; i++) {
      ids[i] = channelIn(shard, next);
      next = ids[i] + 1;
    }
    return ids;
  }

  @Test
  void aStreamStopsAtExactlyTheAskedPositionAndResumes() throws Exception {
    GtidPosition p0 = position(source);
    long c = channelIn("c0-e0", 500);
    try (ApplyEngine l = applier("w3", left, "c0-e0", p0, 1000)) {
      exec(source, "INSERT INTO messages VALUES (2001, " + c + ", 'a', 'w3a')");
      GtidPosition g = position(source);
      l.stopAt(topic, g);
      exec(source, "INSERT INTO messages VALUES (2002, " + c + ", 'b', 'w3b')");
      assertTrue(l.awaitApplied(topic, g, Duration.ofSeconds(60)));
      assertTrue(l.awaitStopped(topic, g, Duration.ofSeconds(60)), "woken when it stops at G");
      assertEquals(io.reshard.core.state.StreamsTable.State.STOPPED, l.state());
      Thread.sleep(1500);
      assertEquals(
          1,
          count(left, "SELECT COUNT(*) FROM messages WHERE id = 2001"),
          () -> dump(left, "w3", g));
      assertEquals(
          0, count(left, "SELECT COUNT(*) FROM messages WHERE id = 2002"), "nothing after G");
      assertEquals(io.reshard.core.state.StreamsTable.State.STOPPED, l.state());
      l.resume();
      assertTrue(l.awaitApplied(topic, position(source), Duration.ofSeconds(60)));
      assertEquals(1, count(left, "SELECT COUNT(*) FROM messages WHERE id = 2002"));
    }
  }

  @Test
  void aDdlOnAMovedTableStopsTheStreamNamingItAndResumeContinues() throws Exception {
    GtidPosition p0 = position(source);
    try (ApplyEngine l = applier("w4", left, "c0-e0", p0, 1000);
        ApplyEngine r = applier("w4", right, "e0-", p0, 1000)) {
      long[] k = idsIn("c0-", 8);
      exec(
          source,
          "INSERT INTO altered VALUES ("
              + k[0]
              + ", 1), ("
              + k[1]
              + ", 2), ("
              + k[2]
              + ", 3), ("
              + k[3]
              + ", 4)");
      exec(source, "ALTER TABLE altered ADD COLUMN extra INT DEFAULT 7");
      exec(
          source,
          "INSERT INTO altered VALUES ("
              + k[4]
              + ", 5, 5), ("
              + k[5]
              + ", 6, 6), ("
              + k[6]
              + ", 7, 7), ("
              + k[7]
              + ", 8, 8)");
      waitFor(
          () -> l.state() == io.reshard.core.state.StreamsTable.State.ERROR,
          Duration.ofSeconds(60));
      String error = l.lastError().orElseThrow();
      assertTrue(error.contains("ALTER TABLE altered ADD COLUMN extra INT DEFAULT 7"), error);
      assertTrue(error.contains("resume"), error);
      assertEquals(
          0, count(left, "SELECT COUNT(*) FROM altered WHERE v >= 5"), "nothing after the DDL");
      assertEquals(
          0, count(right, "SELECT COUNT(*) FROM altered WHERE v >= 5"), "nothing after the DDL");
      exec(left, "ALTER TABLE altered ADD COLUMN extra INT DEFAULT 7");
      exec(right, "ALTER TABLE altered ADD COLUMN extra INT DEFAULT 7");
      waitFor(
          () -> r.state() == io.reshard.core.state.StreamsTable.State.ERROR,
          Duration.ofSeconds(60));
      l.resumeAfterError();
      r.resumeAfterError();
      GtidPosition g = position(source);
      assertTrue(l.awaitApplied(topic, g, Duration.ofSeconds(60)), "left: " + l.lastError());
      assertTrue(r.awaitApplied(topic, g, Duration.ofSeconds(60)), "right: " + r.lastError());
    }
    assertEquals(
        8,
        count(left, "SELECT COUNT(*) FROM altered") + count(right, "SELECT COUNT(*) FROM altered"));
    assertEquals(rows(source, "SELECT * FROM altered ORDER BY id").size(), 8);
  }

  @Test
  void aRowTheTargetRefusesStopsTheStreamNamingTheRow() throws Exception {
    GtidPosition p0 = position(source);
    long[] k = idsIn("c0-e0", 3);
    try (ApplyEngine l = applier("w6", left, "c0-e0", p0, 1000)) {
      exec(
          source,
          "INSERT INTO checked VALUES (" + k[0] + ", 1), (" + k[1] + ", 500), (" + k[2] + ", 2)");
      waitFor(
          () -> l.state() == io.reshard.core.state.StreamsTable.State.ERROR,
          Duration.ofSeconds(60));
      String error = l.lastError().orElseThrow();
      assertTrue(error.toUpperCase(Locale.ROOT).contains("CONSTRAINT"), error);
      assertTrue(error.contains("small"), "names the constraint: " + error);
      assertTrue(error.contains(cluster.database() + ".checked key {id=" + k[1] + "}"), error);
      assertTrue(error.contains("op c"), error);
      assertEquals(
          0,
          count(left, "SELECT COUNT(*) FROM checked WHERE id >= " + k[1]),
          "nothing from the refused row on");
      // the operator fixes the target and resumes: the refused row is applied, not passed over
      exec(left, "ALTER TABLE checked DROP CONSTRAINT small");
      l.resumeAfterError();
      GtidPosition g = position(source);
      assertTrue(l.awaitApplied(topic, g, Duration.ofSeconds(60)), "left: " + l.lastError());
      assertEquals(
          List.of(k[0] + "|1", k[1] + "|500", k[2] + "|2"),
          rows(left, "SELECT id, v FROM checked ORDER BY id"));
    }
  }

  @Test
  void aRestartedApplierContinuesFromItsStoredPositionWithoutDuplicatesOrGaps() throws Exception {
    GtidPosition p0 = position(source);
    long c = channelIn("e0-", 900);
    try (ApplyEngine r = applier("w5", right, "e0-", p0, 2)) {
      for (int i = 0; i < 20; i++) {
        exec(
            source,
            "INSERT INTO messages VALUES (" + (3000 + i) + ", " + c + ", 'x', 'w5-" + i + "')");
      }
      assertTrue(r.awaitApplied(topic, position(source), Duration.ofSeconds(60)));
    }
    for (int i = 20; i < 40; i++) {
      exec(
          source,
          "INSERT INTO messages VALUES (" + (3000 + i) + ", " + c + ", 'x', 'w5-" + i + "')");
    }
    exec(source, "UPDATE messages SET body = 'y' WHERE id BETWEEN 3000 AND 3039");
    try (ApplyEngine r = applier("w5", right, "e0-", p0, 2)) {
      assertTrue(r.awaitApplied(topic, position(source), Duration.ofSeconds(60)));
    }
    assertEquals(
        40,
        count(
            right, "SELECT COUNT(*) FROM messages WHERE id BETWEEN 3000 AND 3039 AND body = 'y'"));
  }

  // --- helpers

  private String dump(ClusterDescriptor.Server target, String workflow, GtidPosition g) {
    StringBuilder b = new StringBuilder("g=" + g + "\n");
    try {
      b.append(
              rows(
                  target,
                  "SELECT next_offset, source_position, state, message FROM _reshard.streams WHERE workflow = '"
                      + workflow
                      + "'"))
          .append("\n");
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      try (var consumer =
          new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
              ChangeRecords.consumerProperties(cluster.bootstrap(), null))) {
        consumer.assign(List.of(tp));
        consumer.seekToBeginning(List.of(tp));
        long end = consumer.endOffsets(List.of(tp)).get(tp);
        List<String> lines = new ArrayList<>();
        while (consumer.position(tp) < end) {
          for (var r : consumer.poll(Duration.ofMillis(200))) {
            ChangeRecord c = ChangeRecords.parse(r);
            lines.add(
                r.offset()
                    + " "
                    + c.kind()
                    + " "
                    + c.gtid()
                    + " "
                    + c.op()
                    + " "
                    + c.table()
                    + " "
                    + (c.after() != null
                        ? c.after().get("id")
                        : c.before() != null ? c.before().get("id") : "")
                    + " "
                    + (c.position() != null ? c.position().gtids() : ""));
          }
        }
        lines
            .subList(Math.max(0, lines.size() - 25), lines.size())
            .forEach(l -> b.append(l).append("\n"));
      }
    } catch (Exception e) {
      b.append(e);
    }
    return b.toString();
  }

  private static long channelIn(String shard, long from) {
    KeyRange range = KeyRange.parse(shard);
    Vindex hash = Vindex.of(VindexType.HASH);
    for (long k = from; ; k++) {
      if (range.contains(hash.keyspaceId(k))) {
        return k;
      }
    }
  }

  private static List<String> inRange(List<String> rows, String shard) {
    KeyRange range = KeyRange.parse(shard);
    Vindex hash = Vindex.of(VindexType.HASH);
    return rows.stream()
        .filter(r -> range.contains(hash.keyspaceId(Long.parseLong(r.split("\\|")[1]))))
        .toList();
  }

  GtidPosition position(ClusterDescriptor.Server s) throws SQLException {
    try (Connection c = cluster.connect(s)) {
      return ServerPositions.current(c);
    }
  }

  void exec(ClusterDescriptor.Server s, String... sql) throws SQLException {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION time_zone = '+00:00'");
      st.execute("SET SESSION sql_mode = 'STRICT_TRANS_TABLES'");
      for (String q : sql) {
        st.execute(q);
      }
    }
  }

  List<String> rows(ClusterDescriptor.Server s, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          b.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(b.toString());
      }
    }
    return out;
  }

  private long count(ClusterDescriptor.Server s, String sql) throws SQLException {
    return Long.parseLong(rows(s, sql).get(0));
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertFalse(System.nanoTime() > deadline, "condition not met within " + timeout);
      Thread.sleep(50);
    }
  }
}
