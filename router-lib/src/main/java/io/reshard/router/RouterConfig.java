package io.reshard.router;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link Router} behaves. Immutable; built with {@link #builder()}, which validates every
 * value and reports all problems at once.
 *
 * @param mode single-shard or multi-shard transactions; default {@link TransactionMode#SINGLE}
 * @param bufferWindow how long a write to a range being switched waits for the new shard map before
 *     failing; default 10 s (DESIGN 4.8)
 * @param maxBufferedWrites how many writes may wait at once; default 1,000. Past that, a write to a
 *     switching range fails at once rather than pile up threads
 * @param maxAttempts attempts per write transaction (first try included) on a retriable refusal;
 *     default 6
 * @param initialBackoff the first pause between attempts, doubled each time up to {@code
 *     maxBackoff}; default 5 ms, so a write waiting on a cutover resumes within milliseconds
 * @param maxBackoff the longest pause between attempts; default 200 ms
 * @param poolSizePerShard connections per shard server; default 8
 * @param connectionTimeout how long to wait for a pooled connection; default 5 s
 * @param scatterThreads threads that run scatter queries in parallel; default 16
 */
public record RouterConfig(
    TransactionMode mode,
    Duration bufferWindow,
    int maxBufferedWrites,
    int maxAttempts,
    Duration initialBackoff,
    Duration maxBackoff,
    int poolSizePerShard,
    Duration connectionTimeout,
    int scatterThreads) {

  /** The defaults. */
  public static RouterConfig defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link RouterConfig}; not thread-safe. */
  public static final class Builder {
    private TransactionMode mode = TransactionMode.SINGLE;
    private Duration bufferWindow = Duration.ofSeconds(10);
    private int maxBufferedWrites = 1000;
    private int maxAttempts = 6;
    private Duration initialBackoff = Duration.ofMillis(5);
    private Duration maxBackoff = Duration.ofMillis(200);
    private int poolSizePerShard = 8;
    private Duration connectionTimeout = Duration.ofSeconds(5);
    private int scatterThreads = 16;

    public Builder mode(TransactionMode v) {
      mode = v;
      return this;
    }

    public Builder bufferWindow(Duration v) {
      bufferWindow = v;
      return this;
    }

    public Builder maxBufferedWrites(int v) {
      maxBufferedWrites = v;
      return this;
    }

    public Builder maxAttempts(int v) {
      maxAttempts = v;
      return this;
    }

    public Builder initialBackoff(Duration v) {
      initialBackoff = v;
      return this;
    }

    public Builder maxBackoff(Duration v) {
      maxBackoff = v;
      return this;
    }

    public Builder poolSizePerShard(int v) {
      poolSizePerShard = v;
      return this;
    }

    public Builder connectionTimeout(Duration v) {
      connectionTimeout = v;
      return this;
    }

    public Builder scatterThreads(int v) {
      scatterThreads = v;
      return this;
    }

    /**
     * @throws IllegalArgumentException listing every invalid value
     */
    public RouterConfig build() {
      List<String> problems = new ArrayList<>();
      if (mode == null) {
        problems.add("mode must be set");
      }
      requirePositive(problems, "bufferWindow", bufferWindow);
      requirePositive(problems, "initialBackoff", initialBackoff);
      requirePositive(problems, "maxBackoff", maxBackoff);
      requirePositive(problems, "connectionTimeout", connectionTimeout);
      if (maxBufferedWrites < 0) {
        problems.add("maxBufferedWrites must be 0 or more, got " + maxBufferedWrites);
      }
      if (maxAttempts < 1) {
        problems.add("maxAttempts must be at least 1, got " + maxAttempts);
      }
      if (poolSizePerShard < 1) {
        problems.add("poolSizePerShard must be at least 1, got " + poolSizePerShard);
      }
      if (scatterThreads < 1) {
        problems.add("scatterThreads must be at least 1, got " + scatterThreads);
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException("invalid router config: " + String.join("; ", problems));
      }
      return new RouterConfig(
          mode,
          bufferWindow,
          maxBufferedWrites,
          maxAttempts,
          initialBackoff,
          maxBackoff,
          poolSizePerShard,
          connectionTimeout,
          scatterThreads);
    }

    private static void requirePositive(List<String> problems, String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        problems.add(name + " must be a positive duration, got " + d);
      }
    }
  }
}
