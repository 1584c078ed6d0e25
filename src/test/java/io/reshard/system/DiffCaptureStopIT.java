package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.CaptureListener;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.core.position.GtidPosition;
import io.reshard.differ.DiffReport;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.switcher.CaptureRegistry;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.StreamSeams;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowState;
import io.reshard.switcher.WorkflowStatus;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A source capture that stops for good while a diff waits for the appliers to reach the source's
 * snapshot position G ends that diff at once with the capture's message, not at the end of its 5
 * minute wait; the appliers run on, and once the capture runs again the diff is clean.
 *
 * <p>The order is made, not hoped for: the test runs the source's capture itself, registered with
 * the runner as the daemon registers its configured captures ({@link CaptureRegistry#external}).
 * The capture is stopped (on request: that is no failure, so the diff's check before it starts
 * passes) before a 2 MB row is written to the source, so the diff's G covers a change nothing has
 * published and no applier can reach it. Only once the diff's catch-up threads wait in {@code
 * StreamControl.runTo} (seen in their stacks; they cannot leave before G or the timeout) is the
 * capture started again, and it stops for good on the 2 MB row (the change topic takes 1 MB). Its
 * message must reach the diff within the timeout asserted here, far below the wait's 300 s.
 */
@ExtendWith(LocalClusterExtension.class)
class DiffCaptureStopIT {
  private static final Logger LOG = LoggerFactory.getLogger(DiffCaptureStopIT.class);
  private static final long CAPTURE_ID = 7601;
  private static final Duration PROMPT = Duration.ofSeconds(60);

  @Test
  void aCaptureStoppingWhileTheDiffWaitsEndsTheDiffAtOnce(TestCluster cluster) throws Exception {
    String ks = cluster.database();
    ClusterDescriptor.Server source = cluster.shards().get(3);
    List<ShardAssignment> v1 = SplitFixture.prepare(cluster, ks);
    long ch = SplitFixture.channelIn("c0-");
    cluster.execute(
        source,
        "CREATE TABLE big (id BIGINT PRIMARY KEY, b LONGTEXT) ENGINE=InnoDB",
        "INSERT INTO messages SELECT seq, " + ch + ", CONCAT('m', seq) FROM seq_1_to_200");
    VSchema vschema = VSchema.parse(SplitLifecycleIT.VSCHEMA);
    ShardMapTopicConfig topic = SplitLifecycleIT.shardMapTopic(cluster);
    WorkflowSpec spec =
        SplitFixture.spec(
            cluster,
            "capture-stops",
            CAPTURE_ID,
            Duration.ofMillis(500),
            Duration.ofSeconds(2),
            Duration.ofSeconds(3));
    Map<String, String> captureConfig =
        CaptureConfig.forServer(
            source.host(),
            source.port(),
            source.user(),
            "",
            CAPTURE_ID,
            ks,
            "c0-",
            cluster.bootstrap(),
            cluster.topicPrefix());
    captureConfig.put("heartbeat.interval.ms", "200");
    captureConfig.put("batch.max.wait.ms", "5");
    // a limit below the 2 MB row below (capture would size itself for any row this source allows)
    captureConfig.put("topic.max.message.bytes", "1048588");
    AtomicReference<CaptureEngine> capture = new AtomicReference<>(started(captureConfig));
    CaptureRegistry captures = new CaptureRegistry();
    captures.external(
        ks, "c0-", () -> capture.get().committedPosition(), () -> {}, () -> failure(capture.get()));
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        KafkaWorkflowStore store =
            KafkaWorkflowStore.open(cluster.bootstrap(), cluster.topicPrefix() + ".workflows");
        WorkflowRunner runner =
            new WorkflowRunner(
                spec, new WorkflowEngine(store, Clock.systemUTC()), publisher, captures)) {
      publisher.publish(ShardMap.first(ks, vschema, v1));
      runner.create();
      runner.copy(CopierConfig.defaults());
      assertEquals(WorkflowState.RUNNING, runner.workflow().state());

      // the capture stops on request (no failure), and the source takes a change it cannot publish
      capture.get().close();
      assertEquals(CaptureEngine.State.STOPPED, capture.get().state());
      cluster.execute(source, "INSERT INTO big VALUES (1, REPEAT('x', 2000000))");

      FutureTask<List<DiffReport>> diff = new FutureTask<>(runner::diff);
      Thread t = new Thread(diff, "diff");
      t.setDaemon(true);
      t.start();
      // past its check of the capture, the diff stops the appliers, reads G (past the 2 MB row)
      // and waits for every applier to reach it: only then does the capture start again
      awaitWaitingInRunTo(spec.targets().size());
      long restarted = System.nanoTime();
      AtomicLong stoppedAt = new AtomicLong();
      capture.set(started(captureConfig, stoppedAt));

      SwitchRefusedException refused = refusal(diff);
      long ended = System.nanoTime();
      assertEquals(CaptureEngine.State.FAILED, capture.get().state());
      // the engine is FAILED before it tells its listener, so the diff may have seen it first
      assertTrue(capture.get().awaitTermination(Duration.ofSeconds(10)));
      long fromRestart = (ended - restarted) / 1_000_000;
      long fromStop = (ended - stoppedAt.get()) / 1_000_000;
      LOG.info(
          "the diff ended {} ms after the capture stopped ({} ms after its start)",
          fromStop,
          fromRestart);
      assertTrue(fromRestart < PROMPT.toMillis(), "the diff ended after " + fromRestart + " ms");
      assertTrue(fromStop < 5_000, "the diff ended " + fromStop + " ms after the capture stopped");
      String m = refused.getMessage();
      assertTrue(m.contains("the capture of shard c0- has stopped"), m);
      assertTrue(m.contains("max.message.bytes"), m);
      assertTrue(m.contains("run the diff again"), m);
      assertEquals(WorkflowState.RUNNING, runner.workflow().state());

      // doing what the message says: raise the topic's limit and start capture again; the
      // appliers were resumed (one left at its stop point G would never apply the row after it),
      // and the diff is clean
      cluster.setTopicConfig(
          ChangeRecords.changeTopic(cluster.topicPrefix(), ks, "c0-"),
          "max.message.bytes",
          Integer.toString(4 << 20));
      capture.get().close();
      capture.set(started(captureConfig));
      cluster.execute(source, "INSERT INTO messages VALUES (100000, " + ch + ", 'after')");
      awaitApplied(runner, sourcePosition(cluster, source));
      assertTrue(runner.diff().stream().allMatch(DiffReport::isClean), "the diff is clean");
    } finally {
      capture.get().close();
    }
  }

  private static CaptureEngine started(Map<String, String> config) {
    return started(config, new AtomicLong());
  }

  /** A capture started; {@code stoppedAt} gets the time (nanoTime) it stops for good. */
  private static CaptureEngine started(Map<String, String> config, AtomicLong stoppedAt) {
    CaptureListener listener =
        new CaptureListener() {
          @Override
          public void onStopped(CdcException failure) {
            if (failure != null) {
              stoppedAt.set(System.nanoTime());
            }
          }
        };
    CaptureEngine e = new CaptureEngine(CaptureConfig.from(config), listener, Clock.systemUTC());
    e.start();
    return e;
  }

  /** What the daemon reports for a capture stopped for good; empty while it runs or stopped. */
  private static Optional<String> failure(CaptureEngine e) {
    return e.state() == CaptureEngine.State.FAILED
        ? Optional.of(e.failure().map(Throwable::getMessage).orElse("capture failed"))
        : Optional.empty();
  }

  /**
   * Waits until {@code n} threads wait in {@code StreamControl.runTo} (the diff's catch-up of each
   * target, in {@code StreamSeams}): they stay there until their applier reaches G or the wait
   * ends.
   */
  private static void awaitWaitingInRunTo(int n) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (waitingInRunTo() < n) {
      assertTrue(System.nanoTime() < deadline, "the diff never waited for its appliers");
      Thread.sleep(10);
    }
  }

  private static long waitingInRunTo() {
    return Thread.getAllStackTraces().values().stream()
        .filter(
            stack ->
                Arrays.stream(stack)
                    .anyMatch(
                        f ->
                            f.getClassName().startsWith(StreamSeams.class.getName())
                                && f.getMethodName().equals("runTo")))
        .count();
  }

  /** The diff's refusal, waiting at most {@link #PROMPT}. */
  private static SwitchRefusedException refusal(FutureTask<List<DiffReport>> diff)
      throws InterruptedException {
    try {
      List<DiffReport> reports = diff.get(PROMPT.toSeconds(), TimeUnit.SECONDS);
      return fail("the diff went through: " + reports);
    } catch (TimeoutException e) {
      return fail("the diff still waits after " + PROMPT.toSeconds() + " s");
    } catch (ExecutionException e) {
      return assertInstanceOf(SwitchRefusedException.class, e.getCause(), e.getCause().toString());
    }
  }

  private static GtidPosition sourcePosition(TestCluster cluster, ClusterDescriptor.Server s)
      throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
      rs.next();
      return GtidPosition.parse(rs.getString(1));
    }
  }

  /** Waits until every forward stream has applied {@code position}. */
  private static void awaitApplied(WorkflowRunner runner, GtidPosition position)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      List<WorkflowStatus.Stream> streams = runner.status().streams();
      if (streams.stream()
          .allMatch(
              st ->
                  st.positions().values().stream()
                      .allMatch(p -> GtidPosition.parse(p).covers(position)))) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the streams did not apply " + position);
      Thread.sleep(100);
    }
  }
}
