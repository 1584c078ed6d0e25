package io.reshard.copier.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.copier.CopyProgress;
import io.reshard.copier.CopyProgress.TableState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProgressCounterTest {
  /** A clock the test moves by hand. */
  static final class FakeClock extends Clock {
    Instant now = Instant.parse("2026-01-01T00:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  @Test
  void rateAndEtaFollowTheRowsOfThisRun() {
    FakeClock clock = new FakeClock();
    ProgressCounter c = new ProgressCounter("t", 10_000, clock);
    assertEquals(TableState.PENDING, c.snapshot().state());
    c.start(2_000, 1000);
    clock.now = clock.now.plusSeconds(2);
    c.add(4_000, 2000);
    CopyProgress.TableProgress p = c.snapshot();
    assertEquals(TableState.COPYING, p.state());
    assertEquals(6_000, p.rowsCopied());
    assertEquals(2_000.0, p.rowsPerSecond(), 1e-9);
    assertEquals(Optional.of(Duration.ofSeconds(2)), p.eta());
    assertEquals(2000, p.chunkRows());
  }

  @Test
  void anEstimateBelowTheRowsCopiedIsRaised() {
    FakeClock clock = new FakeClock();
    ProgressCounter c = new ProgressCounter("t", 10, clock);
    c.start(0, 100);
    clock.now = clock.now.plusSeconds(1);
    c.add(50, 100);
    assertEquals(50, c.snapshot().estimatedRows());
    c.done(0);
    assertEquals(Optional.of(Duration.ZERO), c.snapshot().eta());
  }

  @Test
  void theOverallSnapshotAddsTablesUp() {
    CopyProgress.TableProgress a =
        new CopyProgress.TableProgress(
            "a", TableState.DONE, 100, 100, 50, Optional.of(Duration.ZERO), 10);
    CopyProgress.TableProgress b =
        new CopyProgress.TableProgress("b", TableState.COPYING, 100, 300, 50, Optional.empty(), 10);
    CopyProgress p = CopyProgress.of("wf", List.of(a, b), 200, Duration.ofSeconds(2));
    assertEquals(200, p.rowsCopied());
    assertEquals(400, p.estimatedRows());
    assertEquals(100.0, p.rowsPerSecond(), 1e-9);
    assertEquals(Optional.of(Duration.ofSeconds(2)), p.eta());
    assertEquals(0.5, p.fraction(), 1e-9);
    assertTrue(
        p.toString().startsWith("copy wf: 200/400 rows (50.0%), 100 rows/s, eta 2 s"),
        p.toString());
  }
}
