package io.reshard.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.reshard.router.ShardMap;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The heal conditions against a stand-in daemon (the JDK's HTTP server answering {@code /health}
 * and {@code /workflows/split1} with set documents), and the owners of {@link MapTimelineTest#V3}.
 */
class HealWatchTest {
  private static final String UP = "{\"status\": \"up\", \"services\": []}";

  private HttpServer server;
  private final AtomicReference<String> health = new AtomicReference<>(UP);
  private final AtomicReference<String> workflow = new AtomicReference<>();
  private final AtomicBoolean daemonUp = new AtomicBoolean(true);
  private final AtomicBoolean answered = new AtomicBoolean(true);
  private final Map<String, Long> acks = new ConcurrentHashMap<>();
  private boolean created = true;
  private HealWatch watch;
  private long since;

  @BeforeEach
  void standInDaemon() throws Exception {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/health", x -> reply(x, 200, health.get()));
    server.createContext(
        "/workflows/split1",
        x -> {
          String w = workflow.get();
          reply(x, w == null ? 404 : 200, w == null ? "{\"error\": \"no workflow\"}" : w);
        });
    server.start();
    URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    AdminEndpoint admin =
        new AdminEndpoint(
            Path.of("unused"), () -> daemonUp.get() ? Optional.of(base) : Optional.empty());
    ShardMap map = MapTimelineTest.V3;
    watch =
        new HealWatch(
            admin,
            () -> created ? Optional.of("split1") : Optional.empty(),
            answered::get,
            () -> shard -> acks.getOrDefault(shard, 0L),
            () -> map,
            5000);
    since = System.nanoTime();
    for (String owner : new String[] {"-40", "40-80", "80-"}) {
      acks.put(owner, since + 1);
    }
    workflow.set(workflow("RUNNING", "RUNNING", 10, ""));
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private static void reply(com.sun.net.httpserver.HttpExchange x, int status, String body)
      throws java.io.IOException {
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    x.sendResponseHeaders(status, b.length);
    x.getResponseBody().write(b);
    x.close();
  }

  private static String workflow(String state, String streamState, long lag, String extra) {
    return "{\"name\": \"split1\", \"state\": \""
        + state
        + "\", \"hosted\": true, \"streams\": [{\"direction\": \"forward\", \"target\": \"-40\","
        + " \"state\": \""
        + streamState
        + "\", \"lag_ms\": "
        + lag
        + ", \"last_error\": \"boom\"}]"
        + extra
        + "}";
  }

  private Optional<String> unmet() throws InterruptedException {
    return watch.unmet(since, new long[] {-1});
  }

  @Test
  void everythingUpCaughtUpAndWrittenIsHealed() throws Exception {
    assertEquals(Optional.empty(), unmet());
    HealWatch.Result r = watch.await(since, Duration.ofSeconds(5));
    assertTrue(r.healed(), r.toString());
  }

  @Test
  void aDaemonDownOrDegradedIsNot() throws Exception {
    daemonUp.set(false);
    assertTrue(unmet().orElse("").contains("does not answer"));
    daemonUp.set(true);
    health.set(
        "{\"status\": \"degraded\", \"services\": [{\"name\": \"workflows\", \"state\":"
            + " \"RETRYING\", \"detail\": \"a stream is in error\"}]}");
    assertTrue(
        unmet().orElse("").contains("workflows RETRYING: a stream is in error"),
        unmet().toString());
  }

  @Test
  void aStreamInErrorOrLaggingOrAWorkflowNotTakenUpIsNot() throws Exception {
    workflow.set(workflow("RUNNING", "ERROR", 0, ""));
    assertTrue(unmet().orElse("").contains("in ERROR: boom"), unmet().toString());
    workflow.set(workflow("RUNNING", "RUNNING", 9000, ""));
    assertTrue(unmet().orElse("").contains("lags 9000 ms"), unmet().toString());
    workflow.set(workflow("RUNNING", "STOPPED", 9000, "")); // a frozen stream's lag does not count
    assertEquals(Optional.empty(), unmet());
    workflow.set("{\"name\": \"split1\", \"state\": \"RUNNING\", \"hosted\": false}");
    assertTrue(unmet().orElse("").contains("not taken up"), unmet().toString());
  }

  @Test
  void aFailedOrStuckCopyIsNotButAMovingOneIs() throws Exception {
    workflow.set(workflow("COPYING", "RUNNING", 0, ", \"copy_error\": \"Socket error\""));
    assertTrue(unmet().orElse("").contains("copy failed: Socket error"), unmet().toString());
    long[] baseline = {-1};
    workflow.set(workflow("COPYING", "RUNNING", 0, ", \"copy\": {\"rows_copied\": 100}"));
    assertTrue(watch.unmet(since, baseline).orElse("").contains("has not moved"));
    assertTrue(watch.unmet(since, baseline).isPresent(), "still 100 rows");
    workflow.set(workflow("COPYING", "RUNNING", 0, ", \"copy\": {\"rows_copied\": 300}"));
    assertEquals(Optional.empty(), watch.unmet(since, baseline));
  }

  @Test
  void anUnansweredActionOrAnOwnerWithoutANewWriteIsNot() throws Exception {
    answered.set(false);
    assertTrue(unmet().orElse("").contains("has not answered"));
    answered.set(true);
    acks.put("40-80", since - 1); // its last write began before the fault was over
    assertTrue(unmet().orElse("").contains("no write acknowledged on [40-80]"), unmet().toString());
  }

  @Test
  void beforeCreateOnlyTheDaemonCountsAndAFinishedWorkflowIsHealed() throws Exception {
    created = false;
    workflow.set(null);
    assertEquals(Optional.empty(), unmet());
    created = true;
    workflow.set(workflow("COMPLETED", "ERROR", 99999, ""));
    assertEquals(Optional.empty(), unmet());
    workflow.set(null);
    assertTrue(unmet().orElse("").contains("cannot be read"), unmet().toString());
  }

  @Test
  void notHealedWithinTheBoundSaysWhy() throws Exception {
    workflow.set(workflow("RUNNING", "ERROR", 0, ""));
    HealWatch.Result r = watch.await(System.nanoTime(), Duration.ofMillis(600));
    assertFalse(r.healed());
    assertTrue(r.unmet().contains("in ERROR"), r.unmet());
    assertTrue(r.millis() >= 600, r.toString());
  }
}
