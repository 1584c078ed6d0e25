package io.reshard.copier;

import static io.reshard.core.config.ConfigKey.Type.INT;
import static io.reshard.core.config.ConfigKey.Type.LONG;
import static io.reshard.core.config.Validators.intRange;
import static io.reshard.core.config.Validators.longRange;

import io.reshard.core.config.ConfigDef;
import io.reshard.core.config.ConfigKey;
import io.reshard.core.config.ConfigValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How a {@link Copier} paces and batches its work. Immutable; built with {@link #builder()}, which
 * validates every value and reports all problems at once, or from the {@code copy.*} keys of {@link
 * #DEF} ({@link #from(Map)}).
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

  /**
   * The copier's keys ({@code copy.*}), one per component; the defaults are the builder's. Cross
   * checks: {@code copy.chunk.rows.min <= copy.chunk.rows <= copy.chunk.rows.max}.
   */
  public static final ConfigDef DEF =
      new ConfigDef(
          List.of(
              new ConfigKey(
                  "copy.chunk.target.ms",
                  LONG,
                  "500",
                  longRange(1, 600_000),
                  "The time one chunk should take, read to last target commit; the chunk size"
                      + " adapts toward it. A chunk holds share locks on its source rows that long"
                      + " (ms)."),
              new ConfigKey(
                  "copy.chunk.rows",
                  INT,
                  "1000",
                  intRange(1, 10_000_000),
                  "Rows in the first chunk of a table; later chunks adapt within"
                      + " copy.chunk.rows.min..copy.chunk.rows.max (rows)."),
              new ConfigKey(
                  "copy.chunk.rows.min",
                  INT,
                  "100",
                  intRange(1, 10_000_000),
                  "The smallest chunk; below it per-chunk cost dominates (rows)."),
              new ConfigKey(
                  "copy.chunk.rows.max",
                  INT,
                  "20000",
                  intRange(1, 10_000_000),
                  "The largest chunk; one chunk is held in memory (rows)."),
              new ConfigKey(
                  "copy.table.parallelism", INT, "2", intRange(1, 256), "Tables copied at once."),
              new ConfigKey(
                  "copy.statement.max.rows",
                  INT,
                  "1000",
                  intRange(1, 1_000_000),
                  "Rows per multi-row insert into a target (rows)."),
              new ConfigKey(
                  "copy.statement.max.bytes",
                  LONG,
                  Long.toString(4L << 20),
                  longRange(1024, 1L << 30),
                  "Bytes of values per multi-row insert; keep it well below the targets'"
                      + " max_allowed_packet (bytes)."),
              new ConfigKey(
                  "copy.coverage.timeout.ms",
                  LONG,
                  "600000",
                  longRange(1, 86_400_000),
                  "How long the copy waits for the change stream to cover P0 before it fails"
                      + " (ms)."),
              new ConfigKey(
                  "copy.throttle.recheck.ms",
                  LONG,
                  "1000",
                  longRange(1, 3_600_000),
                  "How long the copy pauses before it asks the throttle again (ms)."),
              new ConfigKey(
                  "copy.max.chunk.attempts",
                  INT,
                  "5",
                  intRange(1, 1000),
                  "Attempts per chunk when the source reports a lock wait timeout or a deadlock"
                      + " (errors 1205, 1213)."),
              new ConfigKey(
                  "copy.lock.wait.timeout.ms",
                  LONG,
                  "10000",
                  longRange(1000, 86_400_000),
                  "innodb_lock_wait_timeout of the source session reading chunks: how long a"
                      + " chunk waits for an application transaction holding one of its rows"
                      + " before it retries (ms; whole seconds).")),
          CopierConfig::crossCheck);

  /** The defaults. */
  public static CopierConfig defaults() {
    return builder().build();
  }

  /**
   * Parses {@code copy.*} keys; a key not given takes its default.
   *
   * @throws io.reshard.core.config.ConfigException listing every problem, unknown keys included
   */
  public static CopierConfig from(Map<String, String> raw) {
    return from(DEF.parse(raw));
  }

  /** The configuration of values checked by {@link #DEF}. */
  public static CopierConfig from(ConfigValues v) {
    return builder()
        .chunkTargetDuration(v.getMillis("copy.chunk.target.ms"))
        .initialChunkRows(v.getInt("copy.chunk.rows"))
        .minChunkRows(v.getInt("copy.chunk.rows.min"))
        .maxChunkRows(v.getInt("copy.chunk.rows.max"))
        .tableParallelism(v.getInt("copy.table.parallelism"))
        .maxRowsPerStatement(v.getInt("copy.statement.max.rows"))
        .maxBytesPerStatement(v.getLong("copy.statement.max.bytes"))
        .coverageTimeout(v.getMillis("copy.coverage.timeout.ms"))
        .throttleRecheck(v.getMillis("copy.throttle.recheck.ms"))
        .maxChunkAttempts(v.getInt("copy.max.chunk.attempts"))
        .lockWaitTimeout(v.getMillis("copy.lock.wait.timeout.ms"))
        .build();
  }

  private static List<String> crossCheck(ConfigValues v) {
    if (!v.has("copy.chunk.rows.min")
        || !v.has("copy.chunk.rows.max")
        || !v.has("copy.chunk.rows")) {
      return List.of(); // a bound that is itself wrong is reported already
    }
    int min = v.getInt("copy.chunk.rows.min");
    int max = v.getInt("copy.chunk.rows.max");
    int initial = v.getInt("copy.chunk.rows");
    List<String> problems = new ArrayList<>();
    if (max < min) {
      problems.add(
          "copy.chunk.rows.max (" + max + ") must be at least copy.chunk.rows.min (" + min + ")");
    } else if (initial < min || initial > max) {
      problems.add(
          "copy.chunk.rows ("
              + initial
              + ") must lie within [copy.chunk.rows.min, copy.chunk.rows.max] = ["
              + min
              + ", "
              + max
              + "]");
    }
    return problems;
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
