package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.CapturePosition;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A second capture of the same shard (same transactional.id) fences the first: the first stops with
 * {@link CaptureFencedException} and whatever it had sent but not committed stays invisible; the
 * second continues from the stored position, so every row change is in the topic exactly once.
 */
@ExtendWith(LocalClusterExtension.class)
class CaptureFencingIT {
  private final TestCluster cluster;

  CaptureFencingIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @Test
  void aSecondCaptureOfTheShardFencesTheFirst() throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(3);
    cluster.execute(shard, "CREATE TABLE f (id INT PRIMARY KEY, v INT)");
    Map<String, String> config = CaptureSupport.config(cluster, shard, "-80");
    config.put("batch.max.rows", "5");
    AtomicBoolean slow = new AtomicBoolean(true);
    CaptureListener pauseBeforeCommit =
        new CaptureListener() {
          @Override
          public void beforeCommit(CapturePosition position, int rows) {
            if (slow.get() && rows > 0) {
              sleep(1500); // the second engine starts while the first holds an open transaction
            }
          }
        };
    CaptureEngine first =
        new CaptureEngine(
            CaptureConfig.from(config), pauseBeforeCommit, java.time.Clock.systemUTC());
    first.start();
    // a capture's start position counts once it is stored; before that, a second process with no
    // stored position would start from its own "current" and rightly skip older changes
    while (first.committedPosition().isEmpty()) {
      Thread.sleep(20);
    }
    insert(shard, 1, 40);
    Thread.sleep(700); // the first engine is now between sending a batch and committing it

    Map<String, String> second = new HashMap<>(config);
    second.put(
        "source.server.id", CaptureSupport.config(cluster, shard, "-80").get("source.server.id"));
    try (CaptureEngine engine2 = new CaptureEngine(CaptureConfig.from(second))) {
      engine2.start();
      CdcException failure = CaptureSupport.awaitFailure(first, Duration.ofSeconds(60));
      assertInstanceOf(CaptureFencedException.class, failure, failure.toString());
      assertTrue(failure.getMessage().contains("took over"), failure.getMessage());
      assertEquals(CaptureEngine.State.FAILED, first.state());

      insert(shard, 41, 60);
      CaptureSupport.awaitCommitted(
          engine2, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      assertEquals(CaptureEngine.State.RUNNING, engine2.state());
    }
    List<ChangeRecord> rows =
        CaptureSupport.data(
            CaptureSupport.read(
                cluster.bootstrap(), CaptureConfig.from(config).changeTopic(),
                Duration.ofSeconds(30), CaptureSupport.rows("f", "c", 60)));
    assertEquals(60, rows.size(), "each row change exactly once");
    for (int i = 0; i < 60; i++) {
      assertEquals((long) i + 1, rows.get(i).after().get("id"));
    }
  }

  private void insert(ClusterDescriptor.Server shard, int from, int to) throws Exception {
    try (Connection c = cluster.connect(shard);
        PreparedStatement ps = c.prepareStatement("INSERT INTO f VALUES (?, ?)")) {
      for (int i = from; i <= to; i++) {
        ps.setInt(1, i);
        ps.setInt(2, i * 10);
        ps.executeUpdate();
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
