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
import io.reshard.switcher.CutoverAbortedException;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowState;
import io.reshard.switcher.WorkflowStatus;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The write switch's refusals and rollback that need a stream held back on purpose: a target server
 * locked with {@code FLUSH TABLES WITH READ LOCK} stops its applier, so the lag grows past the
 * limit (the switch is refused, nothing changes), and a switch started while it is held times out
 * waiting for G (the source is writable again, the map unchanged, the workflow resumable).
 */
@ExtendWith(LocalClusterExtension.class)
class SwitchRefusalsIT {

  @Test
  void lagAboveTheLimitRefusesAndACatchUpTimeoutRollsBack(TestCluster cluster) throws Exception {
    String ks = cluster.database();
    VSchema vschema = VSchema.parse(SplitLifecycleIT.VSCHEMA);
    List<ShardAssignment> v1 = SplitFixture.prepare(cluster, ks);
    ClusterDescriptor.Server source = cluster.shards().get(3);
    long ch = SplitFixture.channelIn("c0-");
    cluster.execute(
        source, "INSERT INTO messages SELECT seq, " + ch + ", CONCAT('m', seq) FROM seq_1_to_200");
    ShardMapTopicConfig topic = SplitLifecycleIT.shardMapTopic(cluster);
    WorkflowSpec spec =
        SplitFixture.spec(
            cluster,
            "held-back",
            7501,
            Duration.ofMillis(500),
            Duration.ofSeconds(2),
            Duration.ofSeconds(3));
    // the captures' limit below the 2 MB row below (capture would size itself for any row the
    // servers allow)
    try (io.reshard.switcher.CaptureRegistry captures =
            new io.reshard.switcher.CaptureRegistry(
                io.reshard.switcher.CaptureRegistry.ENGINE,
                java.util.Map.of("topic.max.message.bytes", "1048588"));
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
      long version = publisher.newest().orElseThrow().version();

      // the refusal: a target's applier held back while the source takes writes
      try (Connection lock = cluster.connect(cluster.spares().get(0));
          Statement l = lock.createStatement()) {
        l.execute("FLUSH TABLES WITH READ LOCK");
        long id = 1000;
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (runner.maxLagMillis() <= 1000) {
          cluster.execute(
              source, "INSERT INTO messages VALUES (" + id++ + ", " + ch + ", 'lagging')");
          Thread.sleep(50);
          assertTrue(System.nanoTime() < deadline, "the lag never grew: " + runner.maxLagMillis());
        }
        SwitchRefusedException refused =
            assertThrows(SwitchRefusedException.class, () -> runner.switchWrites(false));
        assertTrue(refused.getMessage().contains("lags"), refused.getMessage());
        assertEquals(WorkflowState.RUNNING, runner.workflow().state());
        assertFalse(SplitLifecycleIT.readOnly(source), "a refused switch leaves the source alone");

        l.execute("UNLOCK TABLES");
        awaitCaughtUp(runner);

        // the rollback: the target held again right before the switch (the lag is still under
        // the limit), so it cannot apply G within the 3 s catch-up timeout
        l.execute("FLUSH TABLES WITH READ LOCK");
        CutoverAbortedException aborted =
            assertThrows(CutoverAbortedException.class, () -> runner.switchWrites(false));
        assertTrue(aborted.getMessage().contains("did not apply"), aborted.getMessage());
        l.execute("UNLOCK TABLES");
      }
      assertEquals(WorkflowState.RUNNING, runner.workflow().state(), "back where it started");
      assertEquals(version, publisher.newest().orElseThrow().version(), "the map is unchanged");
      assertFalse(SplitLifecycleIT.readOnly(source), "the source is writable again");
      assertEquals(
          1,
          SplitFixture.sourceFenceWritable(cluster, ks),
          "the source's fence row is writable again");
      cluster.execute(
          source, "INSERT INTO messages VALUES (999999, " + ch + ", 'after the rollback')");

      // resumable: once the stream catches up, a diff is clean and the switch goes through
      awaitCaughtUp(runner);
      assertTrue(runner.diff().stream().allMatch(r -> r.isClean()));
      awaitCaughtUp(runner); // the diff paused the appliers; the lag limit here is only 500 ms
      assertEquals(WorkflowState.WRITES_SWITCHED, runner.switchWrites(false).state());
      assertEquals(version + 1, publisher.newest().orElseThrow().version());

      // a capture that stops for good (a row larger than its topic accepts, on a target that now
      // takes the writes) shows as an error of the reverse stream reading it, although that
      // applier is caught up with everything that was published
      cluster.execute(
          cluster.spares().get(0),
          "CREATE TABLE big (id BIGINT PRIMARY KEY, b LONGTEXT) ENGINE=InnoDB",
          "INSERT INTO big VALUES (1, REPEAT('x', 2000000))");
      long until = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      WorkflowStatus.Stream stopped = null;
      while (stopped == null) {
        assertTrue(System.nanoTime() < until, "no stream shows the stopped capture");
        Thread.sleep(200);
        stopped =
            runner.status().streams().stream()
                .filter(st -> "ERROR".equals(st.state()))
                .findFirst()
                .orElse(null);
      }
      assertEquals("reverse", stopped.direction());
      assertTrue(
          stopped.lastError().contains("the capture of shard c0-e0 has stopped"),
          stopped.lastError());
      assertTrue(stopped.lastError().contains("max.message.bytes"), stopped.lastError());
      // reversing would fence the targets and then wait for a capture that publishes nothing:
      // refused, and nothing changed
      SwitchRefusedException noReverse =
          assertThrows(SwitchRefusedException.class, runner::reverseTraffic);
      assertTrue(
          noReverse.getMessage().contains("the capture of shard c0-e0 has stopped"),
          noReverse.getMessage());
      assertEquals(WorkflowState.WRITES_SWITCHED, runner.workflow().state());
      assertEquals(version + 1, publisher.newest().orElseThrow().version());
    } finally {
      cluster.execute(source, "SET GLOBAL read_only = OFF");
    }
  }

  private static void awaitCaughtUp(WorkflowRunner runner) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (runner.maxLagMillis() > 100) {
      assertTrue(System.nanoTime() < deadline, "the stream did not catch up");
      Thread.sleep(100);
    }
  }
}
