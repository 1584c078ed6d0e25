package io.reshard.router;

import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Semaphore;

/**
 * Runs a write transaction with the router's retry and buffering rules (DESIGN 4.3, 4.8).
 *
 * <p>An attempt that a shard's fence refuses ({@link StaleShardMapException}) is rolled back; the
 * next attempt first waits for a shard map newer than the one refused — this is the buffering:
 * while a range is being switched, writes to it wait here, up to the buffer window from the first
 * refusal and up to {@code maxBufferedWrites} at once, and then run on the new owner. Deadlocks
 * (1213) and lock wait timeouts (1205) are retried too. Attempts are bounded and spaced by
 * resilience4j's exponential backoff. Thread-safe.
 */
final class WriteRetry {
  /** MariaDB/MySQL error codes after which the whole transaction may simply run again. */
  private static final int ER_LOCK_DEADLOCK = 1213;

  private static final int ER_LOCK_WAIT_TIMEOUT = 1205;

  private final Router router;
  private final Retry retry;
  private final Semaphore buffer;
  private final Duration window;

  WriteRetry(Router router, RouterConfig config) {
    this.router = router;
    this.window = config.bufferWindow();
    this.buffer = new Semaphore(config.maxBufferedWrites());
    this.retry =
        Retry.of(
            "router-" + router.keyspace(),
            RetryConfig.custom()
                .maxAttempts(config.maxAttempts())
                .intervalFunction(
                    IntervalFunction.ofExponentialBackoff(
                        config.initialBackoff(), 2.0, config.maxBackoff()))
                .retryOnException(WriteRetry::isRetriable)
                .build());
  }

  static boolean isRetriable(Throwable e) {
    if (e instanceof StaleShardMapException) {
      return true;
    }
    return e instanceof ShardQueryException q
        && (q.errorCode() == ER_LOCK_DEADLOCK || q.errorCode() == ER_LOCK_WAIT_TIMEOUT);
  }

  <T> T run(TransactionWork<T> work) {
    Call call = new Call();
    return Retry.decorateSupplier(retry, () -> attempt(work, call)).get();
  }

  private <T> T attempt(TransactionWork<T> work, Call call) {
    if (call.refused != null) {
      awaitNewerMap(call);
    }
    ShardMap map = router.shardMap();
    try (RouterTransaction tx = new RouterTransaction(router, map)) {
      T result = work.run(tx);
      tx.commit();
      return result;
    } catch (StaleShardMapException e) {
      call.refused = e;
      if (call.deadlineNanos == 0) {
        call.deadlineNanos = System.nanoTime() + window.toNanos();
      }
      throw e;
    }
  }

  private void awaitNewerMap(Call call) {
    StaleShardMapException refused = call.refused;
    if (!buffer.tryAcquire()) {
      throw new ShardSwitchingException(
          "write to shard "
              + router.keyspace()
              + "/"
              + refused.shard()
              + " not buffered: the buffer of writes waiting for a cutover is full; retry later",
          refused);
    }
    try {
      router.metrics().writeBuffered();
      long left = call.deadlineNanos - System.nanoTime();
      Optional<ShardMap> newer =
          left <= 0
              ? Optional.empty()
              : router.shardMaps().awaitVersion(refused.mapVersion() + 1, Duration.ofNanos(left));
      if (newer.isEmpty()) {
        throw new ShardSwitchingException(
            "write to shard "
                + router.keyspace()
                + "/"
                + refused.shard()
                + " failed: "
                + (refused.isSwitching() ? "the shard was switching" : "its shard map was stale")
                + " and no shard map newer than version "
                + refused.mapVersion()
                + " arrived within the buffer window of "
                + window.toMillis()
                + " ms;"
                + " nothing was written. Retry later, and check the workflow's state",
            refused);
      }
    } finally {
      buffer.release();
    }
  }

  /** The state of one {@link #run} call across its attempts. */
  private static final class Call {
    StaleShardMapException refused;
    long deadlineNanos;
  }
}
