package io.reshard.router;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where a router gets its shard map: a static file, or the shard map topic in Kafka. Keeps the
 * newest version it has seen; older versions are ignored.
 *
 * <p>Implementations are thread-safe.
 */
public interface ShardMapSource extends AutoCloseable {

  /**
   * The newest shard map seen so far.
   *
   * @throws ReshardException if no map has been seen yet
   */
  ShardMap current();

  /**
   * Waits until a map of version {@code version} or newer has been seen.
   *
   * @param version the version to wait for
   * @param timeout how long to wait at most
   * @return that map, or empty on timeout
   * @throws ReshardException if interrupted
   */
  Optional<ShardMap> awaitVersion(long version, Duration timeout);

  /**
   * Calls {@code listener} with every newer version from now on, on the thread that received it. A
   * listener must be quick and must not throw.
   */
  void addListener(Consumer<ShardMap> listener);

  /** Stops receiving new versions. */
  @Override
  void close();
}
