package io.reshard.daemon;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.reshard.cdc.CaptureListener;
import io.reshard.cdc.CdcException;
import io.reshard.core.position.CapturePosition;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Binds one source shard's capture to meters (tags {@code keyspace}, {@code shard}); in the
 * Prometheus text format they read:
 *
 * <ul>
 *   <li>{@code reshard_capture_rows_total}: row changes committed to the change topic
 *   <li>{@code reshard_capture_commits_total}: Kafka transactions committed
 *   <li>{@code reshard_capture_retries_total}: sessions that failed retriably inside the engine
 *   <li>{@code reshard_capture_restarts_total}: engines the daemon started again after a failure
 *   <li>{@code reshard_capture_last_commit_timestamp_seconds}: wall-clock time of the last commit
 *       (0 before the first)
 * </ul>
 *
 * <p>A listener adapter, so capture itself knows nothing of metrics. Thread-safe.
 */
public final class CaptureMetrics implements CaptureListener {
  private final Counter rows;
  private final Counter commits;
  private final Counter retries;
  private final Counter restarts;
  private final AtomicLong lastCommitMillis = new AtomicLong();
  private final Clock clock;

  /**
   * Registers the meters of {@code shard} in {@code registry}.
   *
   * @param clock gives the time of a commit
   */
  public CaptureMetrics(MeterRegistry registry, SourceShard shard, Clock clock) {
    this.clock = clock;
    Tags tags = Tags.of("keyspace", shard.keyspace(), "shard", shard.shard());
    rows =
        Counter.builder("reshard.capture.rows")
            .description("Row changes committed to the change topic")
            .tags(tags)
            .register(registry);
    commits =
        Counter.builder("reshard.capture.commits")
            .description("Kafka transactions committed by capture")
            .tags(tags)
            .register(registry);
    retries =
        Counter.builder("reshard.capture.retries")
            .description("Capture sessions that failed retriably and were retried by the engine")
            .tags(tags)
            .register(registry);
    restarts =
        Counter.builder("reshard.capture.restarts")
            .description("Capture engines the daemon started again after a failure")
            .tags(tags)
            .register(registry);
    Gauge.builder("reshard.capture.last.commit.timestamp", lastCommitMillis, v -> v.get() / 1000.0)
        .description("Wall-clock time of capture's last commit, in seconds since the epoch")
        .baseUnit("seconds")
        .tags(tags)
        .register(registry);
  }

  @Override
  public void afterCommit(CapturePosition position, int rowCount) {
    rows.increment(rowCount);
    commits.increment();
    lastCommitMillis.set(clock.millis());
  }

  @Override
  public void onRetry(CdcException error, Duration backoff) {
    retries.increment();
  }

  /** Counts a restart of the engine by the daemon. */
  void restarted() {
    restarts.increment();
  }

  /** Row changes committed so far (tests). */
  double rows() {
    return rows.count();
  }
}
