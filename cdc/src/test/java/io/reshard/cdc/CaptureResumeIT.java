package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
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
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Exactly once across crashes: capture is killed (kill -9 of a child JVM, or a failure inside the
 * engine) between sending a batch and committing it, in the middle of a large source transaction; a
 * restarted capture resumes from the stored position, and a read_committed consumer sees every row
 * change exactly once, in order, with one BEGIN and one END.
 */
@ExtendWith(LocalClusterExtension.class)
class CaptureResumeIT {
  private static final int ROWS = 12_000;
  private static final int BATCH = 500;

  private final TestCluster cluster;
  private long committedRows;

  CaptureResumeIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void killMinus9InsideALargeTransactionThenResume() throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(1);
    Map<String, String> config = largeTransaction(shard, "big9", "80-c0");
    Path file = Files.createTempFile("capture", ".properties");
    Properties p = new Properties();
    p.putAll(config);
    try (OutputStream out = new FileOutputStream(file.toFile())) {
      p.store(out, null);
    }
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                classpath,
                CaptureChild.class.getName(),
                file.toString(),
                "400")
            .redirectErrorStream(true)
            .start();
    BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> readLines(child, lines), "child-output");
    reader.setDaemon(true);
    reader.start();
    String sentLine;
    try {
      int commitsInside = 0;
      committedRows = -1;
      while (true) {
        String line = lines.poll(60, TimeUnit.SECONDS);
        if (line == null) {
          throw new AssertionError("the child printed nothing for 60 s");
        }
        if (line.startsWith("COMMITTED") && line.contains("\"txn\"")) {
          commitsInside++;
          java.util.regex.Matcher m =
              java.util.regex.Pattern.compile("\"rows\":(\\d+)").matcher(line);
          if (m.find()) {
            committedRows = Long.parseLong(m.group(1));
          }
        }
        if (line.startsWith("SENT") && commitsInside >= 3) {
          sentLine = line; // records of this batch are sent, its commit is pending: kill now
          break;
        }
        if (line.startsWith("ENDED")) {
          throw new AssertionError("the child ended: " + line);
        }
      }
    } finally {
      child.destroyForcibly(); // SIGKILL: no abort, no close
      child.waitFor(30, TimeUnit.SECONDS);
    }
    assertTrue(sentLine.contains("\"txn\""), sentLine);
    String topic = CaptureConfig.from(config).changeTopic();
    List<ChangeRecord> beforeRestart =
        CaptureSupport.read(cluster.bootstrap(), topic, Duration.ofSeconds(5), l -> false);
    long visible =
        CaptureSupport.data(beforeRestart).stream().filter(r -> "big9".equals(r.table())).count();
    assertTrue(visible >= 3 * BATCH && visible < ROWS, "committed rows visible: " + visible);
    // exactly what the last committed position says was published inside the transaction: a batch
    // may commit before it is full (capture commits an aging batch), so no multiple of BATCH is
    // assumed
    long visibleInside =
        CaptureSupport.data(beforeRestart).stream()
            .filter(r -> "big9".equals(r.table()) && ((Number) r.after().get("id")).longValue() > 0)
            .count();
    assertEquals(
        committedRows, visibleInside, "only committed batches of the transaction are visible");

    resumeAndCheck(shard, config, "big9");
  }

  @Test
  void failureBetweenSendAndCommitAbortsThenResume() throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(2);
    Map<String, String> config = largeTransaction(shard, "bigf", "c0-");
    AtomicInteger commits = new AtomicInteger();
    CaptureListener crashOnFourth =
        new CaptureListener() {
          @Override
          public void beforeCommit(CapturePosition position, int rows) {
            if (position.insideTransaction() && commits.incrementAndGet() == 4) {
              throw new IllegalStateException("simulated crash before commit");
            }
          }
        };
    CaptureEngine first =
        new CaptureEngine(CaptureConfig.from(config), crashOnFourth, Clock.systemUTC());
    first.start();
    CdcException failure = CaptureSupport.awaitFailure(first, Duration.ofSeconds(60));
    assertTrue(failure.getMessage().contains("simulated crash"), failure.getMessage());
    resumeAndCheck(shard, config, "bigf");
  }

  /** Creates the table, writes small + one large + small transactions; returns the config. */
  private Map<String, String> largeTransaction(
      ClusterDescriptor.Server shard, String table, String name) throws Exception {
    cluster.execute(shard, "CREATE TABLE " + table + " (id INT PRIMARY KEY, pad VARCHAR(100))");
    GtidPosition before = CaptureSupport.binlogPosition(cluster, shard);
    try (Connection c = cluster.connect(shard);
        Statement st = c.createStatement()) {
      st.execute("INSERT INTO " + table + " VALUES (-1, 'small before')");
      c.setAutoCommit(false);
      st.execute("INSERT INTO " + table + " SELECT seq, REPEAT('p', 90) FROM seq_1_to_" + ROWS);
      c.commit();
      c.setAutoCommit(true);
      st.execute("INSERT INTO " + table + " VALUES (-2, 'small after')");
    }
    Map<String, String> config = new HashMap<>(CaptureSupport.config(cluster, shard, name));
    config.put("start.position", before.toString());
    config.put("batch.max.rows", Integer.toString(BATCH));
    config.put("batch.max.bytes", "100000000");
    return config;
  }

  private void resumeAndCheck(
      ClusterDescriptor.Server shard, Map<String, String> config, String table) throws Exception {
    Map<String, String> again = new HashMap<>(config);
    again.put(
        "source.server.id", CaptureSupport.config(cluster, shard, "x").get("source.server.id"));
    List<CapturePosition> resumedFrom = new ArrayList<>();
    CaptureListener record =
        new CaptureListener() {
          @Override
          public void onSessionStarted(CapturePosition from, boolean stored) {
            resumedFrom.add(from);
          }
        };
    try (CaptureEngine second =
        new CaptureEngine(CaptureConfig.from(again), record, Clock.systemUTC())) {
      second.start();
      CaptureSupport.awaitCommitted(
          second, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(120));
      assertTrue(resumedFrom.get(0).insideTransaction(), "resumed inside: " + resumedFrom);
    }
    String topic = CaptureConfig.from(config).changeTopic();
    List<ChangeRecord> all =
        CaptureSupport.read(
            cluster.bootstrap(),
            topic,
            Duration.ofSeconds(60),
            CaptureSupport.rows(table, "c", ROWS + 2));
    List<ChangeRecord> rows =
        CaptureSupport.data(all).stream().filter(r -> table.equals(r.table())).toList();
    assertEquals(ROWS + 2, rows.size(), "every row change exactly once");
    assertEquals(-1L, rows.get(0).after().get("id"));
    assertEquals(-2L, rows.get(rows.size() - 1).after().get("id"));
    String bigGtid = rows.get(1).gtid();
    for (int i = 1; i <= ROWS; i++) {
      ChangeRecord r = rows.get(i);
      assertEquals((long) i, r.after().get("id"), "row " + i + " in order");
      assertEquals(bigGtid, r.gtid());
      assertEquals(i, r.totalOrder(), "total_order continues across the restart");
    }
    long begins =
        all.stream().filter(r -> r.kind() == RecordKind.BEGIN && bigGtid.equals(r.gtid())).count();
    List<ChangeRecord> ends =
        all.stream().filter(r -> r.kind() == RecordKind.END && bigGtid.equals(r.gtid())).toList();
    assertEquals(1, begins, "one BEGIN");
    assertEquals(1, ends.size(), "one END");
    assertEquals(ROWS, ends.get(0).eventCount());
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
