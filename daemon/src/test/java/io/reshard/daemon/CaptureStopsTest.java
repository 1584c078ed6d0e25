package io.reshard.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.cdc.CaptureFencedException;
import io.reshard.cdc.PositionLostException;
import io.reshard.cdc.UnsupportedChangeException;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Which way on each capture stop gets, and the skip's refusal when there is nothing to skip. */
class CaptureStopsTest {

  @Test
  void aChangeCaptureCannotPublishIsSkippedByNameAndThenRepaired() {
    String way =
        CaptureStops.wayOn(
            "split1",
            "c0-",
            new UnsupportedChangeException("the row image of ks.t is not full at GTID 0-1-9"));
    assertTrue(way.contains("`reshard workflow resume split1 --skip-capture-stop`"), way);
    assertTrue(way.contains("`reshard workflow diff split1 --repair`"), way);
    assertTrue(way.contains("the stop's message names the setting"), way);
    assertTrue(way.contains("with the --cluster or --config"), way);
  }

  @Test
  void aRowTooLargeIsFirstKeptByRaisingTheLimit() {
    String way =
        CaptureStops.wayOn(
            "split1",
            "c0-",
            new UnsupportedChangeException("... raise the topic's max.message.bytes above 2000"));
    assertTrue(way.contains("raise the limit the message names and restart the daemon"), way);
    assertTrue(way.contains("--skip-capture-stop"), way);
  }

  @Test
  void aLostPositionIsCancelAndCreateAndAFencedCaptureIsTheOtherProcess() {
    String lost =
        CaptureStops.wayOn("split1", "c0-", new PositionLostException("0-1-5", "purged", null));
    assertTrue(lost.contains("`reshard workflow cancel split1`"), lost);
    assertTrue(lost.contains("create it again"), lost);
    String fenced =
        CaptureStops.wayOn("split1", "c0-", new CaptureFencedException("reshard-capture.x", null));
    assertTrue(fenced.contains("another capture process"), fenced);
  }

  @Test
  void afterASkipTheWayOnIsTheRepairUntilADiffIsClean() {
    CaptureStops stops = new CaptureStops((keyspace, shard) -> Optional.empty());
    Workflow w =
        new Workflow(
                "split1",
                "ks",
                List.of("c0-"),
                List.of("c0-e0", "e0-"),
                WorkflowState.RUNNING,
                "1-1-1",
                null,
                true,
                null,
                Instant.EPOCH)
            .withCaptureGap("shard c0-: changes after 1-1-5 were skipped", Instant.EPOCH);
    String way = stops.wayOn(w).orElseThrow();
    assertTrue(way.contains("`reshard workflow diff split1 --repair`"), way);
    assertEquals(Optional.empty(), stops.wayOn(w.withDiff(true, Instant.EPOCH)));
  }

  @Test
  void aCaptureThatDidNotStopOnAnUnsupportedChangeHasNothingToSkip() throws Exception {
    CaptureService s = failingService("-80", "a bug while making the engine");
    IllegalStateException before = assertThrows(IllegalStateException.class, s::skipStoppedChange);
    assertTrue(before.getMessage().contains("nothing to skip"), before.getMessage());
    s.start();
    awaitFailed(s);
    assertEquals(ServiceState.FAILED, s.state());
    IllegalStateException failed = assertThrows(IllegalStateException.class, s::skipStoppedChange);
    assertTrue(failed.getMessage().contains("a bug while making the engine"), failed.getMessage());
    assertEquals(ServiceState.FAILED, s.state(), "nothing was started");
    s.stop();
  }

  @Test
  void theCapturesAWorkflowReadsAreItsSourcesBeforeTheWriteSwitchAndItsTargetsAfter()
      throws Exception {
    CaptureService failed = failingService("c0-", "cannot start");
    failed.start();
    awaitFailed(failed);
    CaptureStops stops =
        new CaptureStops((keyspace, s) -> s.equals("c0-") ? Optional.of(failed) : Optional.empty());
    Workflow copying =
        Workflow.create(
                "split1", "ks", List.of("c0-"), List.of("c0-e0", "e0-"), "1-1-1", Instant.EPOCH)
            .transition(WorkflowState.COPYING, Instant.EPOCH);
    List<java.util.Map<String, Object>> seen = stops.captures(copying);
    assertEquals(1, seen.size(), seen.toString());
    assertEquals("c0-", seen.get(0).get("shard"));
    assertEquals("FAILED", seen.get(0).get("state"));
    assertTrue(String.valueOf(seen.get(0).get("detail")).contains("cannot start"), seen.toString());
    Workflow switched =
        new Workflow(
            "split1",
            "ks",
            List.of("c0-"),
            List.of("c0-e0", "e0-"),
            WorkflowState.WRITES_SWITCHED,
            "1-1-1",
            "1-1-9",
            true,
            null,
            Instant.EPOCH);
    assertEquals(List.of(), stops.captures(switched), "the targets' captures are read now");
    failed.stop();
  }

  /** The capture service of ks/{@code shard} whose engine cannot even be made. */
  private static CaptureService failingService(String shard, String why) {
    DaemonConfig c =
        DaemonConfig.builder()
            .set("kafka.bootstrap.servers", "127.0.0.1:1")
            .set("shards.0.keyspace", "ks")
            .set("shards.0.shard", shard)
            .set("shards.0.host", "127.0.0.1")
            .set("shards.0.user", "u")
            .set("shards.0.server.id", "7")
            .validate();
    SourceShard s = c.shards().get(0);
    return new CaptureService(
        s,
        c.captureConfig(s),
        (cfg, listener) -> {
          throw new IllegalStateException(why);
        },
        new CaptureMetrics(new SimpleMeterRegistry(), s, Clock.systemUTC()),
        Duration.ofMillis(100),
        Duration.ofMillis(400),
        Duration.ofSeconds(10),
        (d, stop) -> {});
  }

  /** Waits (at most 10 s) until {@code s} has stopped for good. */
  private static void awaitFailed(CaptureService s) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (s.state() != ServiceState.FAILED && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
  }
}
