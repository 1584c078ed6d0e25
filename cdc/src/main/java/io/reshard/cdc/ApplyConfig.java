package io.reshard.cdc;

import static io.reshard.core.config.ConfigKey.Type.INT;
import static io.reshard.core.config.ConfigKey.Type.LONG;
import static io.reshard.core.config.Validators.intRange;
import static io.reshard.core.config.Validators.longRange;

import io.reshard.core.config.ConfigDef;
import io.reshard.core.config.ConfigKey;
import io.reshard.core.config.ConfigValues;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The configuration of one applier: one workflow's stream(s) into one target shard. Immutable;
 * {@link #validate} reports every problem at once.
 *
 * @param workflow the workflow's name (part of the stored stream key)
 * @param target the target shard's name, e.g. {@code c0-e0}; rows outside its range are skipped
 * @param targetJdbcUrl JDBC URL of the target's keyspace database, e.g. {@code
 *     jdbc:mariadb://127.0.0.1:13310/chat}
 * @param targetUser the target user
 * @param targetPassword its password (never logged)
 * @param keyspace the keyspace (the source database whose records are applied)
 * @param vschema the keyspace's vschema: its sharded tables are the moved tables
 * @param bootstrap Kafka bootstrap servers
 * @param sources per source change topic, the source position P0 from which it applies: records of
 *     transactions inside P0 are skipped (the copy reads them from the source's rows)
 * @param maxRowsPerCommit a target transaction commits once it holds this many row changes: at the
 *     next source transaction end, or in the middle of a larger source transaction (key {@code
 *     apply.max.rows.per.commit})
 * @param pollTimeout the consumer's poll timeout (key {@code apply.poll.timeout.ms})
 */
public record ApplyConfig(
    String workflow,
    String target,
    String targetJdbcUrl,
    String targetUser,
    String targetPassword,
    String keyspace,
    VSchema vschema,
    String bootstrap,
    Map<String, GtidPosition> sources,
    int maxRowsPerCommit,
    Duration pollTimeout) {

  /**
   * Default rows per target commit: large enough to amortise the commit, small enough to bound a
   * retry.
   */
  public static final int DEFAULT_MAX_ROWS_PER_COMMIT = 2000;

  /** Default poll timeout of the applier's consumer: short, so a pause or stop is seen soon. */
  public static final Duration DEFAULT_POLL_TIMEOUT = Duration.ofMillis(20);

  /**
   * The applier's keys ({@code apply.*}): the settings an operator may tune, the same for every
   * applier of a process; the other fields name one stream and are set by whoever starts it.
   */
  public static final ConfigDef DEF =
      new ConfigDef(
          List.of(
              new ConfigKey(
                  "apply.max.rows.per.commit",
                  INT,
                  Integer.toString(DEFAULT_MAX_ROWS_PER_COMMIT),
                  intRange(1, 1_000_000),
                  "A target transaction commits once it holds this many row changes: at the next"
                      + " source transaction end, or in the middle of a larger source"
                      + " transaction (rows)."),
              new ConfigKey(
                  "apply.poll.timeout.ms",
                  LONG,
                  Long.toString(DEFAULT_POLL_TIMEOUT.toMillis()),
                  longRange(1, 60_000),
                  "Poll timeout of an applier's Kafka consumer; also how soon it notices a pause"
                      + " or stop (ms).")));

  /**
   * The tunable part of an applier's configuration ({@link #DEF}).
   *
   * @param maxRowsPerCommit see {@link ApplyConfig#maxRowsPerCommit()}
   * @param pollTimeout see {@link ApplyConfig#pollTimeout()}
   */
  public record Settings(int maxRowsPerCommit, Duration pollTimeout) {
    /** The defaults. */
    public static Settings defaults() {
      return new Settings(DEFAULT_MAX_ROWS_PER_COMMIT, DEFAULT_POLL_TIMEOUT);
    }

    /**
     * Parses {@code apply.*} keys.
     *
     * @throws io.reshard.core.config.ConfigException listing every problem, unknown keys included
     */
    public static Settings from(Map<String, String> raw) {
      return from(DEF.parse(raw));
    }

    /** The settings of values checked by {@link #DEF}. */
    public static Settings from(ConfigValues v) {
      return new Settings(
          v.getInt("apply.max.rows.per.commit"), v.getMillis("apply.poll.timeout.ms"));
    }
  }

  /** Checks every field and reports all problems together. */
  public ApplyConfig {
    List<String> problems = new ArrayList<>();
    if (workflow == null || workflow.isBlank()) {
      problems.add("workflow is required");
    }
    if (target == null) {
      problems.add("target is required");
    } else {
      try {
        KeyRange.parse(target);
      } catch (IllegalArgumentException e) {
        problems.add("target: " + e.getMessage());
      }
    }
    if (targetJdbcUrl == null || !targetJdbcUrl.startsWith("jdbc:")) {
      problems.add("targetJdbcUrl must be a JDBC URL, got " + targetJdbcUrl);
    }
    if (targetUser == null) {
      problems.add("targetUser is required");
    }
    if (keyspace == null || keyspace.isBlank()) {
      problems.add("keyspace is required");
    }
    if (vschema == null) {
      problems.add("vschema is required");
    }
    if (bootstrap == null || bootstrap.isBlank()) {
      problems.add("bootstrap is required");
    }
    if (sources == null || sources.isEmpty()) {
      problems.add("at least one source topic is required");
    }
    if (maxRowsPerCommit < 1) {
      problems.add("maxRowsPerCommit must be at least 1, got " + maxRowsPerCommit);
    }
    if (pollTimeout == null || pollTimeout.isNegative() || pollTimeout.isZero()) {
      problems.add("pollTimeout must be positive, got " + pollTimeout);
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("invalid apply config: " + String.join("; ", problems));
    }
    targetPassword = targetPassword == null ? "" : targetPassword;
    sources = Map.copyOf(sources);
  }

  /** The target's key range. */
  public KeyRange range() {
    return KeyRange.parse(target);
  }

  @Override
  public String toString() {
    return "ApplyConfig[workflow="
        + workflow
        + ", target="
        + target
        + ", url="
        + targetJdbcUrl
        + ", user="
        + targetUser
        + ", password=***, sources="
        + sources.keySet()
        + "]";
  }
}
