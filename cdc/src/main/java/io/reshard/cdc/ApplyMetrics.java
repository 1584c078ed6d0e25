package io.reshard.cdc;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

/**
 * Binds one applier's progress to meters (tags {@code workflow}, {@code target}); in the Prometheus
 * text format they read:
 *
 * <ul>
 *   <li>{@code reshard_apply_lag_seconds}: 0 when the applier has applied the newest record capture
 *       published, else the age of the oldest unapplied change ({@link ApplyEngine#lagMillis})
 *   <li>{@code reshard_apply_rows_total}: row changes committed to the target (its key range only)
 *   <li>{@code reshard_apply_records_total}: change-topic records processed and committed, applied
 *       or passed over (other ranges, unmoved tables, transaction markers, heartbeats)
 *   <li>{@code reshard_apply_commits_total}: target transactions committed
 * </ul>
 *
 * <p>Throughput is the rate of the counters ({@code rate(reshard_apply_rows_total[1m])}). The
 * meters read the engine's own counters when scraped, so binding them costs the apply loop nothing.
 * Thread-safe.
 */
public final class ApplyMetrics {

  /** What the meters read; {@link ApplyEngine} provides it. */
  public interface Source {
    /** See {@link ApplyEngine#lagMillis}. */
    long lagMillis();

    /** Row changes committed to the target so far. */
    long rowsCommitted();

    /** Change-topic records whose processing is committed so far. */
    long recordsCommitted();

    /** Target transactions committed so far. */
    long commits();
  }

  private static final String PREFIX = "reshard.apply.";

  private ApplyMetrics() {}

  /**
   * Registers the meters of one applier in {@code registry}; they hold {@code source} weakly, like
   * every Micrometer function meter, so keep the engine referenced while it runs. Meters an earlier
   * applier of the same stream left (one the daemon replaced after it died) are removed first:
   * Micrometer would otherwise hand back the old meters, still reading the dead engine. The
   * counters of the new applier start again from 0, as after a process restart.
   */
  public static void bind(MeterRegistry registry, Source source, String workflow, String target) {
    Tags tags = Tags.of("workflow", workflow, "target", target);
    unbind(registry, workflow, target);
    TimeGauge.builder("reshard.apply.lag", source, TimeUnit.MILLISECONDS, Source::lagMillis)
        .description(
            "0 when caught up with the newest published change, else the age of the"
                + " oldest unapplied one")
        .tags(tags)
        .register(registry);
    counter(
        registry,
        tags,
        source,
        "reshard.apply.rows",
        "Row changes committed to the target",
        Source::rowsCommitted);
    counter(
        registry,
        tags,
        source,
        "reshard.apply.records",
        "Change-topic records processed and committed: applied, filtered out or markers",
        Source::recordsCommitted);
    counter(
        registry,
        tags,
        source,
        "reshard.apply.commits",
        "Target transactions committed",
        Source::commits);
  }

  /**
   * Removes the meters of one applier (its engine closed: a stream frozen by a switch, a workflow
   * completed or cancelled), so that a stream that no longer runs shows no lag at all rather than
   * one that grows for ever.
   */
  public static void unbind(MeterRegistry registry, String workflow, String target) {
    for (Meter m : List.copyOf(registry.getMeters())) {
      if (m.getId().getName().startsWith(PREFIX)
          && workflow.equals(m.getId().getTag("workflow"))
          && target.equals(m.getId().getTag("target"))) {
        registry.remove(m);
      }
    }
  }

  private static void counter(
      MeterRegistry registry,
      Tags tags,
      Source source,
      String name,
      String description,
      ToDoubleFunction<Source> f) {
    FunctionCounter.builder(name, source, f).description(description).tags(tags).register(registry);
  }
}
