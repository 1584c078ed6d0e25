package io.reshard.router;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The newest-version-wins part of every {@link ShardMapSource}: {@link #offer} keeps a map only if
 * it is newer than the one held, for the same keyspace, then wakes waiters and notifies listeners.
 * Thread-safe.
 */
class ShardMapHolder implements ShardMapSource {
  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(ShardMapHolder.class);

  private final String keyspace;
  private final List<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
  private ShardMap current;

  ShardMapHolder(String keyspace) {
    this.keyspace = keyspace;
  }

  /**
   * Keeps {@code map} if it is for this keyspace and newer than the held one.
   *
   * @return true if it was kept
   */
  boolean offer(ShardMap map) {
    if (!map.keyspace().equals(keyspace)) {
      return false;
    }
    synchronized (this) {
      if (current != null && map.version() <= current.version()) {
        return false;
      }
      current = map;
      notifyAll();
    }
    for (Consumer<ShardMap> l : listeners) {
      try {
        l.accept(map);
      } catch (RuntimeException e) {
        // one failing listener must not keep the others from hearing of the new version
        LOG.warn("a shard map listener failed on {} version {}", keyspace, map.version(), e);
      }
    }
    return true;
  }

  String keyspace() {
    return keyspace;
  }

  @Override
  public synchronized ShardMap current() {
    if (current == null) {
      throw new ReshardException("no shard map for keyspace " + keyspace + " has been seen yet");
    }
    return current;
  }

  /** The held map, or empty before the first. */
  synchronized Optional<ShardMap> peek() {
    return Optional.ofNullable(current);
  }

  @Override
  public synchronized Optional<ShardMap> awaitVersion(long version, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (current == null || current.version() < version) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return Optional.empty();
      }
      try {
        wait(Math.max(1, left / 1_000_000));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ReshardException("interrupted while waiting for shard map version " + version, e);
      }
    }
    return Optional.of(current);
  }

  @Override
  public void addListener(Consumer<ShardMap> listener) {
    listeners.add(listener);
  }

  @Override
  public void close() {}
}
