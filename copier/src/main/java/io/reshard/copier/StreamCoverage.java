package io.reshard.copier;

import io.reshard.core.position.GtidPosition;
import java.time.Duration;

/**
 * The change stream's side of the copy's first rule (DESIGN 4.6 point 1): before the first chunk,
 * the stream must already hold every source change after the start position P0, so that any change
 * a chunk misses reaches the targets through the stream.
 *
 * <p>The real implementation comes from {@code cdc}, which knows how far capture has published (the
 * switcher wires it in); the copier only declares what it needs.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface StreamCoverage {

  /**
   * Returns once the change stream of the source shard has published every transaction after {@code
   * sourceGtidPosition}, and every applier of the workflow starts from that point.
   *
   * @param sourceGtidPosition P0, a MariaDB GTID position such as {@code 4-4-1200} (or a MySQL GTID
   *     set)
   * @param timeout how long to wait at most
   * @throws StreamCoverageTimeoutException if the stream has not covered the position in time
   * @throws InterruptedException if the waiting thread is interrupted
   */
  void awaitCovered(GtidPosition sourceGtidPosition, Duration timeout) throws InterruptedException;

  /**
   * A coverage that returns at once. Correct only when nothing writes to the source during the copy
   * (tests on static data, benchmarks): it stands in for cdc's implementation.
   */
  static StreamCoverage staticSource() {
    return (position, timeout) -> {};
  }
}
