package io.reshard.copier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a copy counts, bound to a Micrometer registry, every meter tagged with {@code workflow} and
 * {@code table}: rows copied ({@code reshard.copy.rows}), chunk durations ({@code
 * reshard.copy.chunk.duration}), the current chunk size ({@code reshard.copy.chunk.rows}, a gauge),
 * throttle pauses ({@code reshard.copy.throttle.pauses}), chunk retries after a lock wait timeout
 * or deadlock ({@code reshard.copy.chunk.retries}), and source rows skipped because their keyspace
 * id is outside the source range ({@code reshard.copy.rows.outside}).
 *
 * <p>Thread-safe.
 */
public final class CopyMetrics {
  private final MeterRegistry registry;
  private final String workflow;
  private final ConcurrentHashMap<String, AtomicInteger> chunkRows = new ConcurrentHashMap<>();

  /**
   * @param registry where meters are registered
   * @param workflow the workflow, as a tag
   */
  public CopyMetrics(MeterRegistry registry, String workflow) {
    this.registry = registry;
    this.workflow = workflow;
  }

  /** Records a committed chunk. */
  public void chunk(String table, int rows, Duration elapsed) {
    counter("reshard.copy.rows", table).increment(rows);
    Timer.builder("reshard.copy.chunk.duration")
        .tag("workflow", workflow)
        .tag("table", table)
        .register(registry)
        .record(elapsed);
  }

  /** Records the chunk size chosen for the next chunk. */
  public void chunkRows(String table, int rows) {
    chunkRows
        .computeIfAbsent(
            table,
            t -> {
              AtomicInteger v = new AtomicInteger();
              registry.gauge(
                  "reshard.copy.chunk.rows",
                  io.micrometer.core.instrument.Tags.of("workflow", workflow, "table", t),
                  v);
              return v;
            })
        .set(rows);
  }

  /** Records a pause asked by the throttle. */
  public void throttled(String table) {
    counter("reshard.copy.throttle.pauses", table).increment();
  }

  /** Records a chunk retried after a lock wait timeout or deadlock. */
  public void retried(String table) {
    counter("reshard.copy.chunk.retries", table).increment();
  }

  /** Records source rows skipped because their keyspace id is outside the source range. */
  public void outside(String table, int rows) {
    counter("reshard.copy.rows.outside", table).increment(rows);
  }

  /** Rows copied so far for a table in this process, as the registry holds them. */
  public double rows(String table) {
    Counter c =
        registry.find("reshard.copy.rows").tags("workflow", workflow, "table", table).counter();
    return c == null ? 0 : c.count();
  }

  private Counter counter(String name, String table) {
    return Counter.builder(name).tag("workflow", workflow).tag("table", table).register(registry);
  }
}
