package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The meters read the engine's counters and lag as they change. */
class ApplyMetricsTest {

  /** A source whose values the test sets. */
  static final class FakeSource implements ApplyMetrics.Source {
    long lag;
    long rows;
    long records;
    long commits;

    @Override
    public long lagMillis() {
      return lag;
    }

    @Override
    public long rowsCommitted() {
      return rows;
    }

    @Override
    public long recordsCommitted() {
      return records;
    }

    @Override
    public long commits() {
      return commits;
    }
  }

  @Test
  void metersFollowTheSource() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FakeSource source = new FakeSource();
    ApplyMetrics.bind(registry, source, "w1", "80-");
    var lag = registry.get("reshard.apply.lag").tag("workflow", "w1").tag("target", "80-");
    var rows = registry.get("reshard.apply.rows").tag("target", "80-");
    assertEquals(0, lag.timeGauge().value(TimeUnit.MILLISECONDS));
    assertEquals(0, rows.functionCounter().count());

    source.lag = 1500;
    source.rows = 2000;
    source.records = 2600;
    source.commits = 1;
    assertEquals(1.5, lag.timeGauge().value(TimeUnit.SECONDS));
    assertEquals(2000, rows.functionCounter().count());
    assertEquals(2600, registry.get("reshard.apply.records").functionCounter().count());
    assertEquals(1, registry.get("reshard.apply.commits").functionCounter().count());

    source.lag = 0;
    assertEquals(0, lag.timeGauge().value(TimeUnit.MILLISECONDS));
  }

  @Test
  void aReplacedApplierOfTheSameStreamGetsTheMeters() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    FakeSource dead = new FakeSource();
    dead.lag = 9000;
    dead.rows = 500;
    ApplyMetrics.bind(registry, dead, "w1", "80-");
    FakeSource other = new FakeSource();
    other.rows = 7;
    ApplyMetrics.bind(registry, other, "w1", "-80"); // another target keeps its own meters
    FakeSource replacement = new FakeSource();
    replacement.lag = 20;
    replacement.rows = 3;
    ApplyMetrics.bind(registry, replacement, "w1", "80-");

    var lag = registry.get("reshard.apply.lag").tag("workflow", "w1").tag("target", "80-");
    assertEquals(20, lag.timeGauge().value(TimeUnit.MILLISECONDS));
    assertEquals(
        3, registry.get("reshard.apply.rows").tag("target", "80-").functionCounter().count());
    assertEquals(
        7, registry.get("reshard.apply.rows").tag("target", "-80").functionCounter().count());
    assertEquals(1, registry.find("reshard.apply.lag").tag("target", "80-").meters().size());
  }
}
