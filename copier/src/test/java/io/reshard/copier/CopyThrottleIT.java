package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.core.placement.SplitFixture;
import io.reshard.router.VSchema;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Threads_running throttle reads the real source; the copier pauses while a throttle says so.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CopyThrottleIT {
  static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
              + " \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}");

  private final SplitFixture fx;

  CopyThrottleIT(TestCluster cluster) throws Exception {
    fx = new SplitFixture(cluster);
    fx.everywhere("CREATE TABLE t (id BIGINT PRIMARY KEY, v INT) ENGINE=InnoDB");
    List<String> rows = new ArrayList<>();
    for (int i = -500; i < 500; i++) {
      rows.add("(" + i + ", " + i + ")");
    }
    fx.cluster.execute(fx.source, "INSERT INTO t VALUES " + String.join(", ", rows));
  }

  @Test
  void threadsRunningAboveTheLimitPausesAndBelowItDoesNot() throws Exception {
    try (ThreadsRunningThrottle busy =
            new ThreadsRunningThrottle(
                SplitFixture.endpoint(fx.source), 1, Duration.ZERO, Clock.systemUTC());
        ThreadsRunningThrottle idle =
            new ThreadsRunningThrottle(
                SplitFixture.endpoint(fx.source), 1000, Duration.ZERO, Clock.systemUTC());
        Connection sleeper = fx.cluster.connect(fx.source)) {
      CompletableFuture<Void> sleeping =
          CompletableFuture.runAsync(
              () -> {
                try (Statement s = sleeper.createStatement()) {
                  s.execute("SELECT SLEEP(3)");
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      Optional<String> reason = Optional.empty();
      for (int i = 0; i < 100 && reason.isEmpty(); i++) {
        reason = busy.pauseReason();
        Thread.sleep(20);
      }
      assertTrue(reason.isPresent(), "a running SLEEP(3) plus this query exceed 1");
      assertTrue(reason.get().startsWith("Threads_running "), reason.get());
      assertTrue(busy.threadsRunning() >= 2);
      assertEquals(Optional.empty(), idle.pauseReason());
      sleeping.join();
    }
  }

  @Test
  void theCopyWaitsWhileTheThrottleSaysPauseWithoutSleepingForReal() throws Exception {
    AtomicInteger asked = new AtomicInteger();
    CopyThrottle twice =
        () -> asked.incrementAndGet() <= 2 ? Optional.of("test says pause") : Optional.empty();
    List<Duration> slept = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Copier copier =
        Copier.builder(CopySpecs.split(fx, "throttled", VSCHEMA, "t"))
            .config(CopierConfig.builder().throttleRecheck(Duration.ofSeconds(7)).build())
            .coverage(StreamCoverage.staticSource())
            .throttle(CopyThrottle.anyOf(CopyThrottle.none(), twice))
            .sleeper(slept::add)
            .meterRegistry(registry)
            .build();
    CopyProgress p = copier.run();
    assertTrue(p.done());
    Thread.sleep(300);
    assertEquals(
        p.rowsPerSecond(),
        copier.progress().rowsPerSecond(),
        "a finished copy's rate stays that of the copy");
    assertEquals(List.of(Duration.ofSeconds(7), Duration.ofSeconds(7)), slept);
    assertEquals(
        2.0, registry.find("reshard.copy.throttle.pauses").tags("table", "t").counter().count());
    assertTrue(registry.find("reshard.copy.rows").tags("table", "t").counter().count() >= 1000);
  }

  @Test
  void applierLagAboveTheLimitPauses() {
    assertTrue(
        new ApplierLagThrottle(() -> Duration.ofSeconds(5), Duration.ofSeconds(1))
            .pauseReason()
            .isPresent());
    assertEquals(
        Optional.empty(),
        new ApplierLagThrottle(() -> Duration.ZERO, Duration.ofSeconds(1)).pauseReason());
  }
}
