package io.reshard.bench.chaos;

import io.reshard.router.ShardMapSource;
import io.reshard.router.StaticShardMapSource;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A shard map source that follows another one {@code lag} behind: each new version reaches it that
 * much later, as it would reach an application whose map subscription is slow. The router built on
 * it goes on writing to an old owner for a while after each switch; the fence must refuse those
 * writes (the router then waits for the newer map and writes to the new owner), and the stale-owner
 * check would catch one that was accepted. Thread-safe.
 */
final class LaggingMaps implements AutoCloseable {
  private final StaticShardMapSource lagging;
  private final ScheduledExecutorService delays =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "chaos-lagging-maps");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param live the source to follow; it must hold a map already
   * @param lag how long each new version is held back
   */
  LaggingMaps(ShardMapSource live, Duration lag) {
    this.lagging = StaticShardMapSource.of(live.current());
    live.addListener(
        m -> delays.schedule(() -> lagging.publish(m), lag.toMillis(), TimeUnit.MILLISECONDS));
  }

  /** The lagging source, for a router. */
  ShardMapSource source() {
    return lagging;
  }

  @Override
  public void close() {
    delays.shutdownNow();
    lagging.close();
  }
}
