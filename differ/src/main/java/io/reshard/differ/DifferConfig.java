package io.reshard.differ;

import static io.reshard.core.config.ConfigKey.Type.INT;
import static io.reshard.core.config.ConfigKey.Type.LONG;
import static io.reshard.core.config.ConfigKey.Type.STRING;
import static io.reshard.core.config.Validators.intRange;
import static io.reshard.core.config.Validators.longRange;
import static io.reshard.core.config.Validators.oneOf;

import io.reshard.core.config.ConfigDef;
import io.reshard.core.config.ConfigKey;
import io.reshard.core.config.ConfigValues;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * How a {@link Differ} reads and reports. Immutable; built with {@link #builder()}, which validates
 * every value and reports all problems at once, or from the {@code diff.*} keys of {@link #DEF}
 * ({@link #from(Map)}).
 *
 * @param chunkRows source rows read per chunk (and at most as many per target); default 20,000, the
 *     copier's largest chunk (in the benchmark, 5,000-row chunks diffed at 0.8 to 0.95 of the rate
 *     of 20,000-row ones, 1,000-row chunks at 0.6). Memory holds at most four source chunks (one
 *     being read, one handed over, the current one, the previous one being compared) and two
 *     chunks' rows of each target (the current and the previous one's)
 * @param sampleLimit differing keys kept per table for the report; default 10
 * @param resume continue from {@code _reshard.diff_state} rather than start over; default false
 * @param catchUpTimeout how long the applier may take to reach the snapshot's position; default 5
 *     min
 * @param flavor how the source opens its snapshot; default {@link ServerFlavor#MARIADB}
 */
public record DifferConfig(
    int chunkRows, int sampleLimit, boolean resume, Duration catchUpTimeout, ServerFlavor flavor) {

  /**
   * The differ's keys ({@code diff.*}); the defaults are the builder's. {@code resume} is not a
   * key: whoever starts a diff decides whether it continues an earlier one.
   */
  public static final ConfigDef DEF =
      new ConfigDef(
          List.of(
              new ConfigKey(
                  "diff.chunk.rows",
                  INT,
                  "20000",
                  intRange(1, 10_000_000),
                  "Source rows read per chunk, and at most as many per target; memory holds at most"
                      + " four source chunks and two chunks' rows of each target (rows)."),
              new ConfigKey(
                  "diff.sample.keys",
                  INT,
                  "10",
                  intRange(0, 100_000),
                  "Differing keys kept per table for the report."),
              new ConfigKey(
                  "diff.catch.up.timeout.ms",
                  LONG,
                  "300000",
                  longRange(1, 86_400_000),
                  "How long the appliers may take to reach the snapshot's position (ms)."),
              new ConfigKey(
                  "diff.server.flavor",
                  STRING,
                  "auto",
                  oneOf("auto", "mariadb", "mysql8"),
                  "How the source opens its consistent snapshot: auto (the server's own way),"
                      + " mariadb (Binlog_snapshot_*) or mysql8 (a brief FLUSH TABLES WITH READ"
                      + " LOCK; needs RELOAD).")));

  /** The defaults. */
  public static DifferConfig defaults() {
    return builder().build();
  }

  /**
   * Parses {@code diff.*} keys; a key not given takes its default.
   *
   * @throws io.reshard.core.config.ConfigException listing every problem, unknown keys included
   */
  public static DifferConfig from(Map<String, String> raw) {
    return from(DEF.parse(raw));
  }

  /** The configuration of values checked by {@link #DEF} (not resuming). */
  public static DifferConfig from(ConfigValues v) {
    return builder()
        .chunkRows(v.getInt("diff.chunk.rows"))
        .sampleLimit(v.getInt("diff.sample.keys"))
        .catchUpTimeout(v.getMillis("diff.catch.up.timeout.ms"))
        .flavor(ServerFlavor.valueOf(v.get("diff.server.flavor").toUpperCase(Locale.ROOT)))
        .build();
  }

  /** A builder starting from the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link DifferConfig}; not thread-safe. */
  public static final class Builder {
    private int chunkRows = 20_000;
    private int sampleLimit = 10;
    private boolean resume = false;
    private Duration catchUpTimeout = Duration.ofMinutes(5);
    private ServerFlavor flavor = ServerFlavor.AUTO;

    /** See {@link DifferConfig#chunkRows()}. */
    public Builder chunkRows(int v) {
      chunkRows = v;
      return this;
    }

    /** See {@link DifferConfig#sampleLimit()}. */
    public Builder sampleLimit(int v) {
      sampleLimit = v;
      return this;
    }

    /** See {@link DifferConfig#resume()}. */
    public Builder resume(boolean v) {
      resume = v;
      return this;
    }

    /** See {@link DifferConfig#catchUpTimeout()}. */
    public Builder catchUpTimeout(Duration v) {
      catchUpTimeout = v;
      return this;
    }

    /** See {@link DifferConfig#flavor()}. */
    public Builder flavor(ServerFlavor v) {
      flavor = v;
      return this;
    }

    /**
     * @throws IllegalArgumentException listing every invalid value
     */
    public DifferConfig build() {
      List<String> problems = new ArrayList<>();
      if (chunkRows < 1) {
        problems.add("chunkRows must be at least 1, got " + chunkRows);
      }
      if (sampleLimit < 0) {
        problems.add("sampleLimit must be 0 or more, got " + sampleLimit);
      }
      if (catchUpTimeout == null || catchUpTimeout.isNegative() || catchUpTimeout.isZero()) {
        problems.add("catchUpTimeout must be a positive duration, got " + catchUpTimeout);
      }
      if (flavor == null) {
        problems.add("flavor must be set");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException("invalid differ config: " + String.join("; ", problems));
      }
      return new DifferConfig(chunkRows, sampleLimit, resume, catchUpTimeout, flavor);
    }
  }
}
