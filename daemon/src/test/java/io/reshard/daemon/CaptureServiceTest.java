package io.reshard.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.CaptureRefusedException;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.PositionLostException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The capture supervisor without MariaDB or Kafka: real engines against a closed port (the source
 * is unreachable: a retriable failure at start), and a pause that records instead of sleeping.
 */
class CaptureServiceTest {

  private static int closedPort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static DaemonConfig config(int port) {
    return DaemonConfig.builder()
        .set("kafka.bootstrap.servers", "127.0.0.1:1")
        .set("shards.0.keyspace", "ks")
        .set("shards.0.shard", "-80")
        .set("shards.0.host", "127.0.0.1")
        .set("shards.0.port", Integer.toString(port))
        .set("shards.0.user", "u")
        .set("shards.0.server.id", "7")
        .validate();
  }

  @Test
  void anUnreachableSourceIsRetriedWithADoublingBoundedBackoffUntilStopped() throws Exception {
    DaemonConfig c = config(closedPort());
    SourceShard shard = c.shards().get(0);
    List<Duration> pauses = new CopyOnWriteArrayList<>();
    CountDownLatch fivePauses = new CountDownLatch(5);
    CaptureMetrics metrics =
        new CaptureMetrics(new SimpleMeterRegistry(), shard, Clock.systemUTC());
    CaptureService s =
        new CaptureService(
            shard,
            c.captureConfig(shard),
            (cfg, listener) -> new CaptureEngine(cfg, listener, Clock.systemUTC()),
            metrics,
            Duration.ofMillis(100),
            Duration.ofMillis(400),
            Duration.ofSeconds(10),
            (d, stop) -> {
              pauses.add(d);
              fivePauses.countDown();
            });
    assertEquals("capture/ks/-80", s.name());
    assertEquals(ServiceState.NEW, s.state());
    s.start();
    assertTrue(fivePauses.await(60, TimeUnit.SECONDS), "pauses: " + pauses);
    assertEquals(ServiceState.RETRYING, s.state());
    assertTrue(s.detail().startsWith("cannot reach the source ks/-80@127.0.0.1:"), s.detail());
    s.stop();
    assertEquals(ServiceState.STOPPED, s.state());
    assertEquals(
        List.of(100L, 200L, 400L, 400L, 400L),
        pauses.subList(0, 5).stream().map(Duration::toMillis).toList());
    int after = pauses.size();
    Thread.sleep(300);
    assertEquals(after, pauses.size(), "no restart after stop");
  }

  @Test
  void aFailureThatCannotPassLeavesTheServiceFailedWithoutRestarting() throws Exception {
    DaemonConfig c = config(closedPort());
    SourceShard shard = c.shards().get(0);
    List<Duration> pauses = new CopyOnWriteArrayList<>();
    CaptureService s =
        new CaptureService(
            shard,
            c.captureConfig(shard),
            (cfg, listener) -> {
              throw new IllegalStateException("a bug while making the engine");
            },
            new CaptureMetrics(new SimpleMeterRegistry(), shard, Clock.systemUTC()),
            Duration.ofMillis(100),
            Duration.ofMillis(400),
            Duration.ofSeconds(10),
            (d, stop) -> pauses.add(d));
    s.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (s.state() != ServiceState.FAILED && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertEquals(ServiceState.FAILED, s.state());
    assertTrue(s.detail().contains("a bug while making the engine"), s.detail());
    assertEquals(List.of(), pauses);
    s.stop();
    assertEquals(ServiceState.FAILED, s.state(), "stopping keeps the failure visible");
  }

  @Test
  void onlyFailuresTransientAtTheirRootAreRestarted() {
    CdcException transientCause = new CdcException.Retriable("Kafka unreachable", null);
    assertTrue(CaptureService.transientAtRoot(transientCause));
    assertTrue(
        CaptureService.transientAtRoot(
            new CdcException("no progress for 300 s: Kafka unreachable", false, transientCause)),
        "the engine gave up on a transient failure: the daemon tries again");
    assertFalse(
        CaptureService.transientAtRoot(
            new CaptureRefusedException("capture", List.of("no binlog"))));
    assertFalse(CaptureService.transientAtRoot(new CdcException("fenced", false, null)));
    assertFalse(
        CaptureService.transientAtRoot(new RuntimeException(new IllegalStateException("bug"))));
    assertFalse(
        CaptureService.transientAtRoot(
            new PositionLostException("1-1-5", "Could not find GTID state", null)));
  }

  @Test
  void aRunningCaptureThatHasNotCommittedForFourHeartbeatsOrTwentySecondsCountsAsStuck() {
    Duration heartbeat = Duration.ofSeconds(5);
    assertEquals(Duration.ofSeconds(20), CaptureService.stalledAfter(heartbeat));
    assertEquals(Duration.ofSeconds(40), CaptureService.stalledAfter(Duration.ofSeconds(10)));
    assertTrue(CaptureService.stalled(Duration.ofSeconds(19).toNanos(), heartbeat).isEmpty());
    String why = CaptureService.stalled(Duration.ofSeconds(21).toNanos(), heartbeat).orElseThrow();
    assertTrue(why.startsWith("no commit to Kafka for 21 s"), why);
    assertTrue(why.contains("the broker (or the source) is not answering"), why);
  }
}
