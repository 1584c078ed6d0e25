package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Group commit: while one Kafka commit is slow, the small source transactions captured meanwhile
 * join one batch (within {@code batch.max.rows}) instead of queueing one commit each, and the topic
 * still holds every row change exactly once, in order, each transaction whole.
 */
@ExtendWith(LocalClusterExtension.class)
class CaptureGroupCommitIT {
  private static final int TRANSACTIONS = 30;

  private final TestCluster cluster;

  CaptureGroupCommitIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void transactionsCapturedDuringASlowCommitAreCommittedTogether() throws Exception {
    List<Integer> rowsPerCommit = captureDuringAHeldCommit("gc_join", "a0-a1", Map.of());
    // without joining, they queue behind the held commit as several commits (measured: 4)
    assertTrue(
        rowsPerCommit.size() <= 3,
        "the held commit, then the transactions written meanwhile together: " + rowsPerCommit);
  }

  @Test
  void joinedBatchesStayWithinTheRowLimit() throws Exception {
    List<Integer> rowsPerCommit =
        captureDuringAHeldCommit("gc_limit", "a2-a3", Map.of("batch.max.rows", "10"));
    assertTrue(rowsPerCommit.stream().allMatch(n -> n <= 10), "rows per commit: " + rowsPerCommit);
    assertTrue(
        rowsPerCommit.stream().anyMatch(n -> n > 1),
        "every row in a commit of its own: " + rowsPerCommit);
  }

  /**
   * Captures one transaction whose commit is held, writes {@link #TRANSACTIONS} one-row
   * transactions meanwhile, releases the commit, checks the topic, and returns the row changes of
   * each commit from the held one on. {@code topicShard} names the capture's topic.
   */
  private List<Integer> captureDuringAHeldCommit(
      String table, String topicShard, Map<String, String> settings) throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(0);
    cluster.execute(shard, "CREATE TABLE " + table + " (id INT PRIMARY KEY, pad VARCHAR(20))");
    Map<String, String> config = new HashMap<>(CaptureSupport.config(cluster, shard, topicShard));
    config.put("start.position", CaptureSupport.binlogPosition(cluster, shard).toString());
    config.putAll(settings);
    AtomicBoolean hold = new AtomicBoolean();
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<Integer> rowsPerCommit = new CopyOnWriteArrayList<>();
    CaptureListener slowCommit =
        new CaptureListener() {
          @Override
          public void beforeCommit(CapturePosition position, int rows) {
            if (hold.compareAndSet(true, false)) {
              held.countDown();
              try {
                release.await(60, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          }

          @Override
          public void afterCommit(CapturePosition position, int rows) {
            if (held.getCount() == 0 && rows > 0) {
              rowsPerCommit.add(rows);
            }
          }
        };
    try (CaptureEngine engine =
        new CaptureEngine(CaptureConfig.from(config), slowCommit, Clock.systemUTC())) {
      engine.start();
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      hold.set(true);
      try (Connection c = cluster.connect(shard);
          Statement st = c.createStatement()) {
        st.execute("INSERT INTO " + table + " VALUES (0, 'held')");
        assertTrue(held.await(30, TimeUnit.SECONDS), "the first commit was not reached");
        for (int i = 1; i <= TRANSACTIONS; i++) {
          st.execute("INSERT INTO " + table + " VALUES (" + i + ", 'meanwhile')");
        }
      }
      GtidPosition end = CaptureSupport.binlogPosition(cluster, shard);
      Thread.sleep(1500); // the engine reads and hands over all of them while the commit is held
      release.countDown();
      CaptureSupport.awaitCommitted(engine, end, Duration.ofSeconds(60));
    }
    List<ChangeRecord> all =
        CaptureSupport.read(
            cluster.bootstrap(),
            CaptureConfig.from(config).changeTopic(),
            Duration.ofSeconds(30),
            CaptureSupport.rows(table, "c", TRANSACTIONS + 1));
    List<ChangeRecord> rows =
        CaptureSupport.data(all).stream().filter(r -> table.equals(r.table())).toList();
    assertEquals(TRANSACTIONS + 1, rows.size(), "every row change exactly once");
    for (int i = 0; i <= TRANSACTIONS; i++) {
      ChangeRecord r = rows.get(i);
      assertEquals((long) i, r.after().get("id"), "row " + i + " in order");
      String gtid = r.gtid();
      assertEquals(
          1,
          all.stream().filter(x -> x.kind() == RecordKind.BEGIN && gtid.equals(x.gtid())).count());
      assertEquals(
          1, all.stream().filter(x -> x.kind() == RecordKind.END && gtid.equals(x.gtid())).count());
    }
    assertEquals(
        TRANSACTIONS + 1,
        rowsPerCommit.stream().mapToInt(Integer::intValue).sum(),
        "rows per commit: " + rowsPerCommit);
    return rowsPerCommit;
  }
}
