package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.switcher.CaptureRegistry;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowState;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Steps refused because a capture has stopped for good (a 2 MB row, larger than its change topic
 * takes). After a write switch and its reverse, a target's capture stops: switching writes back is
 * refused at once (not after the 60 s wait for that capture), naming it and its message, with the
 * workflow, the map, the source's fence and {@code read_only} as before. Then the source's capture
 * stops: switching reads is refused (nothing changed), and {@code resume} refuses, naming the
 * capture and saying it does not start one again.
 *
 * <p>The runner shares a {@link CaptureRegistry} of the test's, so the test waits on each capture's
 * failure (with a deadline) before it tries a step: the order is made, not hoped for.
 */
@ExtendWith(LocalClusterExtension.class)
class StoppedCaptureRefusalsIT {
  private static final Duration PROMPT = Duration.ofSeconds(10);
  private static final String BIG_ROW = "INSERT INTO big VALUES (1, REPEAT('x', 2000000))";

  @Test
  void stepsThatNeedAStoppedCaptureAreRefusedAtOnce(TestCluster cluster) throws Exception {
    String ks = cluster.database();
    VSchema vschema = VSchema.parse(SplitLifecycleIT.VSCHEMA);
    ClusterDescriptor.Server source = cluster.shards().get(3);
    ClusterDescriptor.Server target = cluster.spares().get(0);
    List<ShardAssignment> v1 = SplitFixture.prepare(cluster, ks);
    // not a moved table: only its 2 MB row matters, which no change topic takes
    for (ClusterDescriptor.Server s : List.of(source, target)) {
      cluster.execute(s, "CREATE TABLE big (id BIGINT PRIMARY KEY, b LONGTEXT) ENGINE=InnoDB");
    }
    long ch = SplitFixture.channelIn("c0-e0");
    cluster.execute(
        source, "INSERT INTO messages SELECT seq, " + ch + ", CONCAT('m', seq) FROM seq_1_to_100");
    ShardMapTopicConfig topic = SplitLifecycleIT.shardMapTopic(cluster);
    WorkflowSpec spec =
        SplitFixture.spec(
            cluster,
            "stopped-capture",
            7701,
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30));
    // a limit below the 2 MB row below (capture would size itself for any row the source allows)
    try (CaptureRegistry captures =
            new CaptureRegistry(
                CaptureRegistry.ENGINE, java.util.Map.of("topic.max.message.bytes", "1048588"));
        ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        KafkaWorkflowStore store =
            KafkaWorkflowStore.open(cluster.bootstrap(), cluster.topicPrefix() + ".workflows");
        WorkflowRunner runner =
            new WorkflowRunner(
                spec, new WorkflowEngine(store, Clock.systemUTC()), publisher, captures)) {
      publisher.publish(ShardMap.first(ks, vschema, v1));
      runner.create();
      runner.copy(CopierConfig.defaults());
      assertTrue(runner.diff().stream().allMatch(r -> r.isClean()));
      assertEquals(WorkflowState.WRITES_SWITCHED, runner.switchWrites(false).state());
      assertEquals(WorkflowState.RUNNING, runner.reverseTraffic().state());

      // the write switch back, with a target's capture stopped for good
      cluster.execute(target, BIG_ROW);
      awaitFailure(captures, ks, "c0-e0");
      long version = publisher.newest().orElseThrow().version();
      long start = System.nanoTime();
      SwitchRefusedException noSwitch =
          assertThrows(SwitchRefusedException.class, () -> runner.switchWrites(true));
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      assertTrue(took.compareTo(PROMPT) < 0, "refused after " + took);
      assertStoppedCapture(noSwitch, "c0-e0");
      assertTrue(
          noSwitch.getMessage().contains("switch-traffic --writes refused"), noSwitch.getMessage());
      assertEquals(WorkflowState.RUNNING, runner.workflow().state());
      assertEquals(WorkflowState.RUNNING, store.load("stopped-capture").orElseThrow().state());
      assertEquals(version, publisher.newest().orElseThrow().version(), "the map is unchanged");
      assertFalse(SplitLifecycleIT.readOnly(source), "the source stays writable");
      assertEquals(
          1,
          SplitFixture.sourceFenceWritable(cluster, ks),
          "the source's fence row stays writable");

      // the sources' capture stopped for good: no read switch, and resume says why
      cluster.execute(source, BIG_ROW);
      awaitFailure(captures, ks, "c0-");
      SwitchRefusedException noReads =
          assertThrows(SwitchRefusedException.class, runner::switchReads);
      assertStoppedCapture(noReads, "c0-");
      assertTrue(noReads.getMessage().contains("switch-traffic --reads"), noReads.getMessage());
      assertEquals(WorkflowState.RUNNING, runner.workflow().state());
      assertEquals(WorkflowState.RUNNING, store.load("stopped-capture").orElseThrow().state());
      assertEquals(version, publisher.newest().orElseThrow().version(), "the map is unchanged");
      assertTrue(
          runner.status().streams().stream().allMatch(s -> "ERROR".equals(s.state())),
          "status shows the streams in error");
      SwitchRefusedException noResume =
          assertThrows(SwitchRefusedException.class, runner::resumeStreams);
      assertStoppedCapture(noResume, "c0-");
      assertTrue(
          noResume.getMessage().contains("resume does not start a capture again"),
          noResume.getMessage());
      assertTrue(noResume.getMessage().contains("restart the daemon"), noResume.getMessage());
    } finally {
      cluster.execute(source, "SET GLOBAL read_only = OFF");
      cluster.execute(target, "SET GLOBAL read_only = OFF");
      cluster.execute(cluster.spares().get(1), "SET GLOBAL read_only = OFF");
    }
  }

  private static void assertStoppedCapture(SwitchRefusedException e, String shard) {
    assertTrue(
        e.getMessage().contains("the capture of shard " + shard + " has stopped"), e.getMessage());
    assertTrue(e.getMessage().contains("max.message.bytes"), e.getMessage());
  }

  /** Waits until the capture of {@code shard} has stopped for good. */
  private static void awaitFailure(CaptureRegistry captures, String ks, String shard)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (captures.failure(ks, shard).isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "the capture of " + shard + " did not stop");
      Thread.sleep(100);
    }
  }
}
