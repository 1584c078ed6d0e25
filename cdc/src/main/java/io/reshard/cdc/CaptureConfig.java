package io.reshard.cdc;

import static io.reshard.core.config.ConfigKey.Type.BOOLEAN;
import static io.reshard.core.config.ConfigKey.Type.INT;
import static io.reshard.core.config.ConfigKey.Type.LONG;
import static io.reshard.core.config.ConfigKey.Type.PASSWORD;
import static io.reshard.core.config.ConfigKey.Type.STRING;
import static io.reshard.core.config.Validators.NAME;
import static io.reshard.core.config.Validators.TOPIC;
import static io.reshard.core.config.Validators.any;
import static io.reshard.core.config.Validators.bool;
import static io.reshard.core.config.Validators.emptyOrMatches;
import static io.reshard.core.config.Validators.intRange;
import static io.reshard.core.config.Validators.longRange;
import static io.reshard.core.config.Validators.matches;
import static io.reshard.core.config.Validators.nonBlank;
import static io.reshard.core.config.Validators.oneOf;

import io.reshard.core.config.ConfigDef;
import io.reshard.core.config.ConfigKey;
import io.reshard.core.config.ConfigValues;
import io.reshard.core.position.GtidPosition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The configuration of capture for one source shard: every key is declared once in {@link #KEYS}
 * ({@link ConfigKey}s) with its type, default, check and documentation; {@link #from} parses and
 * checks a map of strings and reports every problem at once. The result is immutable and
 * thread-safe.
 *
 * <p>Keys starting with {@code kafka.producer.} are passed to the Kafka producer without the prefix
 * (for example {@code kafka.producer.max.request.size}); capture's own producer settings ({@code
 * transactional.id}, idempotence, serializers, {@code acks}) cannot be overridden.
 */
public final class CaptureConfig {

  /** Prefix of keys passed to the Kafka producer unchanged. */
  public static final String PRODUCER_PREFIX = "kafka.producer.";

  /** The value of {@code start.position} that means the source's current GTID position. */
  public static final String START_CURRENT = "current";

  /** The value of {@code start.position} that means the oldest binlog the source has. */
  public static final String START_EARLIEST = "earliest";

  private static final Pattern SHARD = Pattern.compile("(?i)[0-9a-f]*-[0-9a-f]*");

  /** Every key, in documentation order. */
  public static final List<ConfigKey> KEYS =
      List.of(
          new ConfigKey(
              "source.host", STRING, null, nonBlank(), "Host name or address of the source shard."),
          new ConfigKey(
              "source.port", INT, "3306", intRange(1, 65535), "TCP port of the source shard."),
          new ConfigKey(
              "source.flavor",
              STRING,
              "mariadb",
              oneOf("mariadb", "mysql"),
              "The source's server flavor, which picks the JDBC driver: mariadb (MariaDB"
                  + " Connector/J) or mysql (MySQL Connector/J)."),
          new ConfigKey(
              "source.user", STRING, null, nonBlank(), "User with REPLICATION SLAVE and SELECT."),
          new ConfigKey("source.password", PASSWORD, "", any(), "That user's password."),
          new ConfigKey(
              "source.server.id",
              LONG,
              null,
              longRange(1, 4294967295L),
              "The server id capture presents to the source; must differ from the source's own"
                  + " server_id and from every replica and other binlog client of it."),
          new ConfigKey(
              "keyspace", STRING, null, matches(NAME), "The keyspace this shard belongs to."),
          new ConfigKey(
              "database",
              STRING,
              "",
              emptyOrMatches(NAME, "a database name"),
              "The database captured; empty means the keyspace's name."),
          new ConfigKey(
              "shard", STRING, null, matches(SHARD), "The shard's name, e.g. -80, 40-80, c0-, -."),
          new ConfigKey(
              "kafka.bootstrap.servers", STRING, null, nonBlank(), "Kafka bootstrap servers."),
          new ConfigKey(
              "topic.prefix",
              STRING,
              null,
              matches(TOPIC),
              "Prefix of the change topic <prefix>.<keyspace>.<shard>."),
          new ConfigKey(
              "offsets.topic",
              STRING,
              "",
              emptyOrMatches(TOPIC, "a topic name"),
              "Compacted topic holding capture positions; empty means"
                  + " <prefix>.reshard-capture-offsets."),
          new ConfigKey(
              "transactional.id",
              STRING,
              "",
              any(),
              "Kafka transactional.id, fixed per shard so a second process fences the first;"
                  + " empty means reshard-capture.<prefix>.<keyspace>.<shard>."),
          new ConfigKey(
              "topic.replication.factor",
              INT,
              "-1",
              intRange(-1, 32767),
              "Replication factor of topics capture creates; -1 means the broker default."),
          new ConfigKey(
              "topic.max.message.bytes",
              INT,
              "0",
              CaptureConfig::checkRecordBytes,
              "The largest record capture is sized for (bytes): the max.message.bytes of a"
                  + " change topic it creates (an existing topic keeps its own), and its"
                  + " producer's max.request.size and buffer.memory unless kafka.producer.* sets"
                  + " them. 0 means 3 x the source's max_allowed_packet + 1 MiB, enough for an"
                  + " update of a row with one value as large as a client may write."),
          new ConfigKey(
              "start.position",
              STRING,
              START_CURRENT,
              CaptureConfig::checkStart,
              "Where to start when no position is stored: current (the source's GTID position"
                  + " now), earliest (the oldest binlog), or a GTID position."),
          new ConfigKey(
              "batch.max.rows",
              INT,
              "5000",
              intRange(1, 1_000_000),
              "Most row changes in one Kafka transaction; a larger source transaction is"
                  + " published in several."),
          new ConfigKey(
              "batch.max.bytes",
              INT,
              "8388608",
              intRange(1024, Integer.MAX_VALUE),
              "Most encoded bytes in one Kafka transaction (soft: a batch ends after the record"
                  + " that crosses it)."),
          new ConfigKey(
              "batch.max.wait.ms",
              LONG,
              "200",
              longRange(0, 60_000),
              "Longest a completed source transaction waits for more to join its Kafka"
                  + " transaction (ms)."),
          new ConfigKey(
              "heartbeat.interval.ms",
              LONG,
              "5000",
              longRange(100, 3_600_000),
              "Interval of binlog heartbeats and of heartbeat records on an idle source (ms)."),
          new ConfigKey(
              "connect.timeout.ms",
              LONG,
              "10000",
              longRange(100, 600_000),
              "Timeout to connect to the source's binlog (ms)."),
          new ConfigKey(
              "retry.timeout.ms",
              LONG,
              "300000",
              longRange(0, 86_400_000),
              "How long transient failures are retried without progress before capture fails"
                  + " (ms)."),
          new ConfigKey(
              "queue.capacity",
              INT,
              "1000",
              intRange(1, 1_000_000),
              "Binlog events buffered between the binlog reader and the publisher."),
          new ConfigKey(
              "include.reshard.schema",
              BOOLEAN,
              "true",
              bool(),
              "Also capture the _reshard database (fence and stream rows); appliers filter"
                  + " them."));

  /** The keys as one definition: parses, checks and documents them. */
  public static final ConfigDef DEF = new ConfigDef(KEYS);

  private final ConfigValues values;
  private final Properties producerOverrides;

  private CaptureConfig(ConfigValues values, Properties producerOverrides) {
    this.values = values;
    this.producerOverrides = producerOverrides;
  }

  /**
   * The keys that capture of one shard server needs, as a mutable map to which callers may add
   * others (heartbeat interval, batch limits) before {@link #from}.
   *
   * @param serverId the server id capture presents; distinct from every server's and client's
   */
  public static Map<String, String> forServer(
      String host,
      int port,
      String user,
      String password,
      long serverId,
      String keyspace,
      String shard,
      String bootstrap,
      String topicPrefix) {
    Map<String, String> m = new java.util.HashMap<>();
    m.put("source.host", host);
    m.put("source.port", Integer.toString(port));
    m.put("source.user", user);
    m.put("source.password", password);
    m.put("source.server.id", Long.toString(serverId));
    m.put("keyspace", keyspace);
    m.put("shard", shard);
    m.put("kafka.bootstrap.servers", bootstrap);
    m.put("topic.prefix", topicPrefix);
    return m;
  }

  /**
   * Parses and checks a configuration.
   *
   * @param raw key to value; unknown keys other than {@code kafka.producer.*} are problems
   * @throws CaptureConfigException listing every problem
   */
  public static CaptureConfig from(Map<String, String> raw) {
    List<String> problems = new ArrayList<>();
    Properties producer = new Properties();
    for (Map.Entry<String, String> e : new TreeMap<>(raw).entrySet()) {
      if (e.getKey().startsWith(PRODUCER_PREFIX)) {
        producer.put(e.getKey().substring(PRODUCER_PREFIX.length()), e.getValue());
      } else if (!DEF.contains(e.getKey())) {
        problems.add(e.getKey() + ": unknown key");
      }
    }
    ConfigValues values = DEF.parse(raw, "", ConfigDef.SecretResolver.AS_GIVEN, problems);
    if (!problems.isEmpty()) {
      throw new CaptureConfigException(problems);
    }
    return new CaptureConfig(values, producer);
  }

  /**
   * The value of a declared non-secret key as text (its default if not given).
   *
   * @throws IllegalArgumentException for an undeclared key or {@code source.password}
   */
  public String get(String key) {
    return values.get(key);
  }

  /** The source's server flavor ({@code source.flavor}). */
  public io.reshard.core.position.GtidPosition.Flavor sourceFlavor() {
    return io.reshard.core.position.ServerPositions.parseFlavor(get("source.flavor"));
  }

  /** Host name or address of the source shard. */
  public String sourceHost() {
    return get("source.host");
  }

  /** Source port. */
  public int sourcePort() {
    return Integer.parseInt(get("source.port"));
  }

  /** Source user. */
  public String sourceUser() {
    return get("source.user");
  }

  /** Source password. */
  public String sourcePassword() {
    // stripped, as every capture value was before the key became a password
    return values.password("source.password").strip();
  }

  /** The server id presented to the source. */
  public long serverId() {
    return Long.parseLong(get("source.server.id"));
  }

  /** The keyspace. */
  public String keyspace() {
    return get("keyspace");
  }

  /** The database captured (the keyspace's name unless set). */
  public String database() {
    String db = get("database");
    return db.isEmpty() ? keyspace() : db;
  }

  /** The shard name, lower case. */
  public String shard() {
    return get("shard").toLowerCase(java.util.Locale.ROOT);
  }

  /** Kafka bootstrap servers. */
  public String bootstrapServers() {
    return get("kafka.bootstrap.servers");
  }

  /** The topic prefix. */
  public String topicPrefix() {
    return get("topic.prefix");
  }

  /** The change topic {@code <prefix>.<keyspace>.<shard>}. */
  public String changeTopic() {
    return ChangeRecords.changeTopic(topicPrefix(), keyspace(), shard());
  }

  /** The offsets topic. */
  public String offsetsTopic() {
    String t = get("offsets.topic");
    return t.isEmpty() ? topicPrefix() + ".reshard-capture-offsets" : t;
  }

  /** The Kafka transactional id, fixed per shard. */
  public String transactionalId() {
    String t = get("transactional.id");
    return t.isEmpty() ? "reshard-capture." + changeTopic() : t;
  }

  /** Replication factor for created topics; -1 for the broker default. */
  public short replicationFactor() {
    return Short.parseShort(get("topic.replication.factor"));
  }

  /**
   * The largest record capture is sized for, {@code topic.max.message.bytes}; 0 means sized from
   * the source's {@code max_allowed_packet} when capture starts.
   */
  public int topicMaxMessageBytes() {
    return Integer.parseInt(get("topic.max.message.bytes"));
  }

  /** {@code current}, {@code earliest}, or a GTID position text. */
  public String startPosition() {
    return get("start.position");
  }

  /** Most row changes per Kafka transaction. */
  public int batchMaxRows() {
    return Integer.parseInt(get("batch.max.rows"));
  }

  /** Most encoded bytes per Kafka transaction (soft). */
  public int batchMaxBytes() {
    return Integer.parseInt(get("batch.max.bytes"));
  }

  /** Longest wait for more source transactions to join a Kafka transaction. */
  public Duration batchMaxWait() {
    return Duration.ofMillis(Long.parseLong(get("batch.max.wait.ms")));
  }

  /** Heartbeat interval. */
  public Duration heartbeatInterval() {
    return Duration.ofMillis(Long.parseLong(get("heartbeat.interval.ms")));
  }

  /** Binlog connect timeout. */
  public Duration connectTimeout() {
    return Duration.ofMillis(Long.parseLong(get("connect.timeout.ms")));
  }

  /** How long transient failures are retried without progress. */
  public Duration retryTimeout() {
    return Duration.ofMillis(Long.parseLong(get("retry.timeout.ms")));
  }

  /** Events buffered between reader and publisher. */
  public int queueCapacity() {
    return Integer.parseInt(get("queue.capacity"));
  }

  /** The databases captured: the keyspace's, plus {@code _reshard} unless turned off. */
  public java.util.Set<String> capturedDatabases() {
    return Boolean.parseBoolean(get("include.reshard.schema"))
        ? java.util.Set.of(database(), "_reshard")
        : java.util.Set.of(database());
  }

  /** Producer settings given with the {@code kafka.producer.} prefix (a copy). */
  public Properties producerOverrides() {
    Properties p = new Properties();
    p.putAll(producerOverrides);
    return p;
  }

  /** {@code keyspace/shard@host:port}, for messages. */
  public String describe() {
    return keyspace() + "/" + shard() + "@" + sourceHost() + ":" + sourcePort();
  }

  private static String checkRecordBytes(String v) {
    String range = intRange(0, Integer.MAX_VALUE).apply(v);
    if (range != null) {
      return range;
    }
    int n = Integer.parseInt(v);
    return n == 0 || n >= 1024
        ? null
        : "must be 0 (sized from the source's max_allowed_packet) or at least 1024";
  }

  private static String checkStart(String v) {
    if (v.equals(START_CURRENT) || v.equals(START_EARLIEST)) {
      return null;
    }
    try {
      GtidPosition.parse(v);
      return null;
    } catch (IllegalArgumentException e) {
      return "is not current, earliest or a GTID position: " + e.getMessage();
    }
  }
}
