package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.io.BufferedReader;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly once across an applier crash: an applier in a child JVM works through a backlog of
 * batched inserts, updates, primary-key changes, sharding-key moves, unique-value swaps and
 * deletes, and is killed with SIGKILL while it applies (its target transaction open, statements in
 * flight). A restarted applier continues from the position stored in {@code _reshard.streams}; at
 * the end the target holds exactly the source rows whose keyspace id is in its range, compared with
 * plain SQL on both sides.
 */
@ExtendWith(LocalClusterExtension.class)
class ApplyKillIT {
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"t": {"column_vindexes": [{"column": "k", "name": "hash"}]}}}
      """;
  private static final String TABLE =
      "CREATE TABLE t (id BIGINT PRIMARY KEY, k BIGINT NOT NULL, v VARCHAR(40), n INT NOT NULL,"
          + " w BIGINT AS (n * 2) STORED, UNIQUE KEY u_v (v)) ENGINE=InnoDB";
  private static final int ROWS = 8_000;
  private static final String RANGE = "80-";
  private static final String COLUMNS = "id, k, HEX(v), n, w";

  private final TestCluster cluster;

  ApplyKillIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void killMinus9WhileApplyingThenRestartEndsEqualToTheSource() throws Exception {
    ClusterDescriptor.Server source = cluster.shards().get(1);
    ClusterDescriptor.Server target = cluster.spares().get(0);
    cluster.execute(source, TABLE);
    cluster.execute(target, TABLE);
    Map<String, String> m =
        CaptureConfig.forServer(
            source.host(),
            source.port(),
            source.user(),
            "",
            7311,
            cluster.database(),
            "-",
            cluster.bootstrap(),
            cluster.topicPrefix());
    m.put("batch.max.wait.ms", "20");
    CaptureConfig captureConfig = CaptureConfig.from(m);
    String topic = captureConfig.changeTopic();
    try (CaptureEngine capture = new CaptureEngine(captureConfig)) {
      capture.start();
      GtidPosition p0 = position(source);
      waitFor(capture, p0);
      writeBacklog(source);
      GtidPosition end = position(source);
      waitFor(capture, end); // the whole backlog is in the topic before the applier starts

      Path file = childConfig(target, topic, p0);
      Process child = startChild(file);
      BlockingQueue<String> lines = new LinkedBlockingQueue<>();
      Thread reader = new Thread(() -> readLines(child, lines), "apply-child-output");
      reader.setDaemon(true);
      reader.start();
      long rowsAtKill;
      try {
        rowsAtKill = awaitProgress(lines, ROWS / 2);
      } finally {
        child.destroyForcibly(); // SIGKILL: no rollback, no close
        child.waitFor(30, TimeUnit.SECONDS);
      }
      long stored = storedOffset(target, topic);
      long endOffset = endOffset(topic);
      assertTrue(
          stored < endOffset,
          "killed before the end: stored offset " + stored + " of " + endOffset + " records");
      assertTrue(rowsAtKill > 0, "the child had applied rows when it was killed");

      ApplyConfig config =
          new ApplyConfig(
              "wkill",
              RANGE,
              cluster.jdbcUrl(target),
              target.user(),
              "",
              cluster.database(),
              VSchema.parse(VSCHEMA),
              cluster.bootstrap(),
              Map.of(topic, p0),
              500,
              Duration.ofMillis(100));
      try (ApplyEngine restarted = new ApplyEngine(config)) {
        restarted.start();
        assertTrue(
            restarted.awaitApplied(topic, end, Duration.ofSeconds(120)),
            "restarted applier caught up: " + restarted.lastError());
      }
    }
    List<String> expected = new ArrayList<>();
    KeyRange range = KeyRange.parse(RANGE);
    Vindex hash = Vindex.of(VindexType.HASH);
    for (String row : rows(source, "SELECT " + COLUMNS + " FROM t ORDER BY id")) {
      if (range.contains(hash.keyspaceId(Long.parseLong(row.split("\\|")[1])))) {
        expected.add(row);
      }
    }
    List<String> actual = rows(target, "SELECT " + COLUMNS + " FROM t ORDER BY id");
    assertTrue(expected.size() > ROWS / 4, "a fair share of rows is in range: " + expected.size());
    assertEquals(expected.size(), actual.size(), "row count");
    assertEquals(expected, actual);
  }

  /**
   * Inserts, then updates of every kind, in transactions of a few hundred row changes: the order of
   * changes to one key matters (a key is changed several times, keys move in and out of the range,
   * unique values pass between rows), so a lost, repeated-out-of-order or reordered change shows.
   */
  private void writeBacklog(ClusterDescriptor.Server source) throws SQLException {
    try (Connection c = cluster.connect(source);
        Statement s = c.createStatement()) {
      for (int from = 1; from <= ROWS; from += 400) {
        StringBuilder sql = new StringBuilder("INSERT INTO t (id, k, v, n) VALUES ");
        for (int id = from; id < from + 400; id++) {
          sql.append(id == from ? "" : ",")
              .append("(" + id + ", " + (id * 7919L) + ", 'v" + id + "', 0)");
        }
        s.execute(sql.toString());
      }
      for (int round = 1; round <= 3; round++) {
        s.execute("UPDATE t SET n = n + " + round + " WHERE id % 3 = " + (round % 3));
        // sharding-key moves: rows leave and enter the target's range
        s.execute("UPDATE t SET k = k + " + round + " WHERE id % 5 = " + (round % 5));
        // primary-key changes, and back
        s.execute("UPDATE t SET id = id + 100000 WHERE id % 11 = " + round);
        s.execute("UPDATE t SET id = id - 100000 WHERE id > 100000 AND id % 2 = 0");
      }
      for (int id = 2; id < 1000; id += 10) {
        // a swap of unique values through a temporary one, in one transaction
        s.execute("BEGIN");
        s.execute("UPDATE t SET v = 'tmp' WHERE v = 'v" + id + "'");
        s.execute("UPDATE t SET v = 'v" + id + "' WHERE v = 'v" + (id + 1) + "'");
        s.execute("UPDATE t SET v = 'v" + (id + 1) + "' WHERE v = 'tmp'");
        s.execute("COMMIT");
      }
      s.execute("DELETE FROM t WHERE id % 7 = 0");
      s.execute(
          "INSERT INTO t (id, k, v, n) SELECT id + 200000, k, CONCAT('x', v), n FROM t"
              + " WHERE id % 13 = 0");
      s.execute("DELETE FROM t WHERE id > 200000 AND id % 2 = 1");
    }
  }

  private Path childConfig(ClusterDescriptor.Server target, String topic, GtidPosition p0)
      throws Exception {
    Properties p = new Properties();
    p.put("workflow", "wkill");
    p.put("range", RANGE);
    p.put("jdbcUrl", cluster.jdbcUrl(target));
    p.put("user", target.user());
    p.put("database", cluster.database());
    p.put("vschema", VSCHEMA);
    p.put("bootstrap", cluster.bootstrap());
    p.put("topic", topic);
    p.put("p0", p0.toString());
    p.put("rowsPerCommit", "500");
    Path file = Files.createTempFile("apply", ".properties");
    try (OutputStream out = new FileOutputStream(file.toFile())) {
      p.store(out, null);
    }
    return file;
  }

  private static Process startChild(Path file) throws Exception {
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            classpath,
            ApplyChild.class.getName(),
            file.toString())
        .redirectErrorStream(true)
        .start();
  }

  /**
   * Waits until the child reports at least {@code rows} row changes sent and a commit behind it,
   * with rows sent after that commit: the kill then lands inside a target transaction.
   */
  private static long awaitProgress(BlockingQueue<String> lines, long rows) throws Exception {
    long lastCommits = -1;
    long rowsAtLastCommit = -1;
    while (true) {
      String line = lines.poll(120, TimeUnit.SECONDS);
      if (line == null) {
        throw new AssertionError("the child printed nothing for 120 s");
      }
      if (!line.startsWith("APPLIED ")) {
        continue;
      }
      String[] f = line.split(" ");
      long applied = Long.parseLong(f[1]);
      long commits = Long.parseLong(f[2]);
      if (commits != lastCommits) {
        lastCommits = commits;
        rowsAtLastCommit = applied;
      } else if (applied >= rows && commits > 0 && applied > rowsAtLastCommit) {
        return applied;
      }
    }
  }

  private long storedOffset(ClusterDescriptor.Server target, String topic) throws SQLException {
    return Long.parseLong(
        rows(
                target,
                "SELECT next_offset FROM _reshard.streams WHERE workflow = 'wkill' AND topic = '"
                    + topic
                    + "'")
            .get(0));
  }

  private long endOffset(String topic) {
    try (var consumer =
        new org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]>(
            ChangeRecords.consumerProperties(cluster.bootstrap(), null))) {
      var tp = new org.apache.kafka.common.TopicPartition(topic, 0);
      return consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
    }
  }

  private static void waitFor(CaptureEngine capture, GtidPosition p) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!capture.committedPosition().map(c -> c.gtids().covers(p)).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "capture reached " + p);
      Thread.sleep(50);
    }
  }

  private GtidPosition position(ClusterDescriptor.Server s) throws SQLException {
    return GtidPosition.parse(rows(s, "SELECT @@gtid_binlog_pos").get(0));
  }

  private List<String> rows(ClusterDescriptor.Server s, String sql) throws SQLException {
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

  private static void readLines(Process child, BlockingQueue<String> into) {
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line; (line = r.readLine()) != null; ) {
        into.add(line);
      }
    } catch (java.io.IOException ignored) {
      // the child was killed
    }
  }
}
