package io.reshard.copier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How a {@link Copier} paces and batches its work. Immutable; built with {@link #builder()}, which
 * validates every value and reports all problems at once.
 *
 * @param chunkTargetDuration the time one chunk should take, read to last target commit; the chunk
 *     size adapts toward it. Default 500 ms: a chunk holds share locks on its source rows for that
 *     long, so an application write to one of them waits about that long at worst, while the fixed
 *     cost of a chunk (a round trip and a commit per target) stays a small fraction of it
 * @param initialChunkRows rows in the first chunk of a table; default 1,000
 * @param minChunkRows the smallest chunk; default 100 (below that, per-chunk cost dominates)
 * @param maxChunkRows the largest chunk; default 20,000 (bounds memory: one chunk is held in
 *     memory)
 * @param tableParallelism tables copied at once; default 2
 * @param maxRowsPerStatement rows per multi-row insert; default 1,000
 * @param maxBytesPerStatement bytes of values per multi-row insert; default 4 MiB, a quarter of
 *     MariaDB's default {@code max_allowed_packet} (16 MiB), leaving room for escaping
 * @param coverageTimeout how long to wait for the change stream to cover P0; default 10 min
 * @param throttleRecheck how long to pause before asking the throttle again; default 1 s
 * @param maxChunkAttempts attempts per chunk when the source reports a lock wait timeout or a
 *     deadlock (errors 1205, 1213); default 5
 * @param lockWaitTimeout the source session's {@code innodb_lock_wait_timeout} for chunk reads;
 *     default 10 s (whole seconds): a chunk waits that long at most for an application transaction
 *     holding one of its rows, then retries
 */
public record CopierConfig(
    Duration chunkTargetDuration,
    int initialChunkRows,
    int minChunkRows,
    int maxChunkRows,
    int tableParallelism,
    int maxRowsPerStatement,
    long maxBytesPerStatement,
    Duration coverageTimeout,
    Duration throttleRecheck,
    int maxChunkAttempts,
    Duration lockWaitTimeout) {

  /** The defaults. */
  public static CopierConfig defaults() {
    return builder().build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link CopierConfig}; not thread-safe. */
  public static final class Builder {
    private Duration chunkTargetDuration = Duration.ofMillis(500);
    private int initialChunkRows = 1000;
    private int minChunkRows = 100;
    private int maxChunkRows = 20_000;
    private int tableParallelism = 2;
    private int maxRowsPerStatement = 1000;
    private long maxBytesPerStatement = 4L << 20;
    private Duration coverageTimeout = Duration.ofMinutes(10);
    private Duration throttleRecheck = Duration.ofSeconds(1);
    private int maxChunkAttempts = 5;
    private Duration lockWaitTimeout = Duration.ofSeconds(10);

    /** See {@link CopierConfig#chunkTargetDuration()}. */
    public Builder chunkTargetDuration(Duration v) {
      chunkTargetDuration = v;
      return this;
    }

    /** See {@link CopierConfig#initialChunkRows()}. */
    public Builder initialChunkRows(int v) {
      initialChunkRows = v;
      return this;
    }

    /** See {@link CopierConfig#minChunkRows()}. */
    public Builder minChunkRows(int v) {
      minChunkRows = v;
      return this;
    }

    /** See {@link CopierConfig#maxChunkRows()}. */
    public Builder maxChunkRows(int v) {
      maxChunkRows = v;
      return this;
    }

    /** See {@link CopierConfig#tableParallelism()}. */
    public Builder tableParallelism(int v) {
      tableParallelism = v;
      return this;
    }

    /** See {@link CopierConfig#maxRowsPerStatement()}. */
    public Builder maxRowsPerStatement(int v) {
      maxRowsPerStatement = v;
      return this;
    }

    /** See {@link CopierConfig#maxBytesPerStatement()}. */
    public Builder maxBytesPerStatement(long v) {
      maxBytesPerStatement = v;
      return this;
    }

    /** See {@link CopierConfig#coverageTimeout()}. */
    public Builder coverageTimeout(Duration v) {
      coverageTimeout = v;
      return this;
    }

    /** See {@link CopierConfig#throttleRecheck()}. */
    public Builder throttleRecheck(Duration v) {
      throttleRecheck = v;
      return this;
    }

    /** See {@link CopierConfig#maxChunkAttempts()}. */
    public Builder maxChunkAttempts(int v) {
      maxChunkAttempts = v;
      return this;
    }

    /** See {@link CopierConfig#lockWaitTimeout()}. */
    public Builder lockWaitTimeout(Duration v) {
      lockWaitTimeout = v;
      return this;
    }

    /**
     * @throws IllegalArgumentException listing every invalid value
     */
    public CopierConfig build() {
      List<String> problems = new ArrayList<>();
      requirePositive(problems, "chunkTargetDuration", chunkTargetDuration);
      requirePositive(problems, "coverageTimeout", coverageTimeout);
      requirePositive(problems, "throttleRecheck", throttleRecheck);
      requirePositive(problems, "lockWaitTimeout", lockWaitTimeout);
      if (lockWaitTimeout != null && lockWaitTimeout.toSeconds() < 1) {
        problems.add("lockWaitTimeout must be at least 1 s, got " + lockWaitTimeout);
      }
      if (minChunkRows < 1) {
        problems.add("minChunkRows must be at least 1, got " + minChunkRows);
      }
      if (maxChunkRows < minChunkRows) {
        problems.add(
            "maxChunkRows ("
                + maxChunkRows
                + ") must be at least minChunkRows ("
                + minChunkRows
                + ")");
      }
      if (initialChunkRows < minChunkRows || initialChunkRows > maxChunkRows) {
        problems.add(
            "initialChunkRows ("
                + initialChunkRows
                + ") must lie within [minChunkRows, maxChunkRows] = ["
                + minChunkRows
                + ", "
                + maxChunkRows
                + "]");
      }
      if (tableParallelism < 1) {
        problems.add("tableParallelism must be at least 1, got " + tableParallelism);
      }
      if (maxRowsPerStatement < 1) {
        problems.add("maxRowsPerStatement must be at least 1, got " + maxRowsPerStatement);
      }
      if (maxBytesPerStatement < 1024) {
        problems.add("maxBytesPerStatement must be at least 1024, got " + maxBytesPerStatement);
      }
      if (maxChunkAttempts < 1) {
        problems.add("maxChunkAttempts must be at least 1, got " + maxChunkAttempts);
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException("invalid copier config: " + String.join("; ", problems));
      }
      return new CopierConfig(
          chunkTargetDuration,
          initialChunkRows,
          minChunkRows,
          maxChunkRows,
          tableParallelism,
          maxRowsPerStatement,
          maxBytesPerStatement,
          coverageTimeout,
          throttleRecheck,
          maxChunkAttempts,
          lockWaitTimeout);
    }

    private static void requirePositive(List<String> problems, String name, Duration d) {
      if (d == null || d.isNegative() || d.isZero()) {
        problems.add(name + " must be a positive duration, got " + d);
      }
    }
  }
}
