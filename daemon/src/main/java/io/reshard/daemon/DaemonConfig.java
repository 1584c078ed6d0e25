package io.reshard.daemon;

import static io.reshard.core.config.ConfigKey.Type.BOOLEAN;
import static io.reshard.core.config.ConfigKey.Type.INT;
import static io.reshard.core.config.ConfigKey.Type.LONG;
import static io.reshard.core.config.ConfigKey.Type.PASSWORD;
import static io.reshard.core.config.ConfigKey.Type.STRING;
import static io.reshard.core.config.Validators.HOST;
import static io.reshard.core.config.Validators.NAME;
import static io.reshard.core.config.Validators.TOPIC;
import static io.reshard.core.config.Validators.any;
import static io.reshard.core.config.Validators.bool;
import static io.reshard.core.config.Validators.emptyOrAtLeast;
import static io.reshard.core.config.Validators.emptyOrMatches;
import static io.reshard.core.config.Validators.intRange;
import static io.reshard.core.config.Validators.longRange;
import static io.reshard.core.config.Validators.matches;
import static io.reshard.core.config.Validators.nonBlank;
import static io.reshard.core.config.Validators.oneOf;
import static io.reshard.core.config.Validators.shardName;

import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.core.config.ConfigDef;
import io.reshard.core.config.ConfigKey;
import io.reshard.core.config.ConfigValues;
import io.reshard.differ.DifferConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The daemon's configuration: every key is declared once ({@link #KEYS} for the daemon, {@link
 * #SHARD_KEYS} for each source shard under {@code shards}, {@link #STAGE_DEFS} for the copy, diff
 * and apply stages of its workflows) with its type, default, validator and documentation ({@link
 * ConfigKey}). A {@link DaemonConfigBuilder} collects values from a YAML file, from {@code --set
 * key=value} overrides of the same keys, or from a local cluster ({@link #forCluster}), and {@link
 * DaemonConfigBuilder#validate()} checks them all and reports every problem at once. The result is
 * frozen: immutable and thread-safe.
 *
 * <p>Secrets ({@code admin.token}, each shard's {@code password}) are held as {@link Secret}s: they
 * print as {@code [hidden]} in {@link #toString()}, {@link #describe()} and problem messages.
 *
 * <pre>{@code
 * kafka.bootstrap.servers: 127.0.0.1:9092
 * admin:
 *   port: 15000
 *   token: ${env:RESHARD_ADMIN_TOKEN}
 * capture.heartbeat.interval.ms: 1000     # any capture key, for every shard
 * copy.chunk.rows: 5000                   # the copy, diff and apply keys, for every workflow
 * shards:
 *   - {keyspace: commerce, shard: '-80', host: db1, port: 3306, user: reshard,
 *      password: ${file:/etc/reshard/db1.password}, server.id: 7001}
 * }</pre>
 */
public final class DaemonConfig {

  /** The key under which the source shards are listed. */
  public static final String SHARDS = "shards";

  /**
   * Prefix of keys passed to every shard's {@link CaptureConfig} without the prefix, e.g. {@code
   * capture.heartbeat.interval.ms}; checked against capture's own declarations.
   */
  public static final String CAPTURE_PREFIX = "capture.";

  /** The daemon's keys, in documentation order. */
  public static final List<ConfigKey> KEYS =
      List.of(
          new ConfigKey(
              "kafka.bootstrap.servers", STRING, null, nonBlank(), "Kafka bootstrap servers."),
          new ConfigKey(
              "topic.prefix",
              STRING,
              "reshard",
              matches(TOPIC, "a topic name"),
              "Prefix of the change topics PREFIX.KEYSPACE.SHARD that capture writes."),
          new ConfigKey(
              "workflows.topic",
              STRING,
              "reshard.workflows",
              matches(TOPIC, "a topic name"),
              "The compacted topic of workflow records (key = workflow name)."),
          new ConfigKey(
              "shardmaps.topic",
              STRING,
              "reshard.shardmaps",
              matches(TOPIC, "a topic name"),
              "The shard map topic the switcher publishes to and routers read."),
          new ConfigKey(
              "admin.bind",
              STRING,
              "127.0.0.1",
              matches(HOST, "a host name or address"),
              "Address the admin HTTP endpoint listens on; loopback only unless changed."),
          new ConfigKey(
              "admin.port",
              INT,
              "15000",
              intRange(0, 65535),
              "TCP port of the admin HTTP endpoint; 0 picks a free one (printed at start)."),
          new ConfigKey(
              "admin.token",
              PASSWORD,
              "",
              emptyOrAtLeast(16),
              "Bearer token that mutating admin calls (POST) must present; empty turns them"
                  + " off. Never logged or shown."),
          new ConfigKey(
              "restart.backoff.initial.ms",
              LONG,
              "1000",
              longRange(1, 600_000),
              "First pause before a failed service is started again (ms); doubles per failure."),
          new ConfigKey(
              "restart.backoff.max.ms",
              LONG,
              "60000",
              longRange(1, 3_600_000),
              "Longest pause between restarts of a failing service (ms)."),
          new ConfigKey(
              "shutdown.timeout.ms",
              LONG,
              "30000",
              longRange(0, 600_000),
              "How long stopping waits for each service to end (ms)."),
          new ConfigKey(
              "workflow.max.lag.ms",
              LONG,
              "5000",
              longRange(0, 3_600_000),
              "A write switch is refused while a forward stream lags more than this (ms)."),
          new ConfigKey(
              "workflow.fence.lock.wait.ms",
              LONG,
              "2000",
              longRange(1000, 60_000),
              "How long fencing a shard waits for router transactions in flight before the switch"
                  + " is abandoned (ms; whole seconds)."),
          new ConfigKey(
              "workflow.catch.up.timeout.ms",
              LONG,
              "30000",
              longRange(1, 3_600_000),
              "How long a write switch waits for the targets to apply the source's position G"
                  + " before it un-fences the source and rolls back (ms)."),
          new ConfigKey(
              "keyspace.stream.enabled",
              BOOLEAN,
              "true",
              bool(),
              "Run the keyspace change stream PREFIX.KEYSPACE of every keyspace whose shards are"
                  + " listed or that has a workflow: one topic consumers follow across every"
                  + " reshard."),
          new ConfigKey(
              "keyspace.stream.topic.prefix",
              STRING,
              "",
              emptyOrMatches(TOPIC, "a topic name"),
              "Prefix of the keyspace topics PREFIX.KEYSPACE; empty means topic.prefix."),
          new ConfigKey(
              "keyspace.stream.partitions",
              INT,
              "16",
              intRange(1, 4096),
              "Partitions of a keyspace topic when the stream creates it; fixed from then on (a"
                  + " row's partition, a function of its keyspace id, never changes)."),
          new ConfigKey(
              "keyspace.stream.format",
              STRING,
              "envelope",
              oneOf("envelope", "connect-json"),
              "Form of the keyspace topics' records: envelope (as the shard topics) or"
                  + " connect-json (Kafka Connect's JsonConverter with schemas.enable=true, for"
                  + " stock sinks such as Debezium's JDBC sink)."));

  /** The keys of each source shard ({@code shards.N.<key>}), in documentation order. */
  public static final List<ConfigKey> SHARD_KEYS =
      List.of(
          new ConfigKey(
              "keyspace", STRING, null, matches(NAME, "a keyspace name"), "The keyspace."),
          new ConfigKey(
              "shard", STRING, null, shardName(), "The shard's name: -80, 40-80, c0-, - (quoted)."),
          new ConfigKey("host", STRING, null, matches(HOST, "a host name"), "The server's host."),
          new ConfigKey("port", INT, "3306", intRange(1, 65535), "The server's TCP port."),
          new ConfigKey("user", STRING, null, nonBlank(), "User with REPLICATION SLAVE, SELECT."),
          new ConfigKey("password", PASSWORD, "", any(), "That user's password. Never logged."),
          new ConfigKey(
              "server.id",
              LONG,
              null,
              longRange(1, 4294967295L),
              "Server id capture presents to the source: unique among its replicas and binlog"
                  + " clients."),
          new ConfigKey(
              "start.position",
              STRING,
              CaptureConfig.START_CURRENT,
              nonBlank(),
              "Where capture starts when no position is stored: current, earliest or a GTID"
                  + " position."),
          new ConfigKey(
              "flavor",
              STRING,
              "mariadb",
              oneOf("mariadb", "mysql"),
              "The server's flavor, which picks the JDBC driver and how positions are read:"
                  + " mariadb or mysql."));

  /** The daemon's keys as one definition. */
  public static final ConfigDef DEF = new ConfigDef(KEYS);

  /** A source shard's keys as one definition. */
  public static final ConfigDef SHARD_DEF = new ConfigDef(SHARD_KEYS);

  /**
   * The keys of the stages the daemon's workflows run, set at the top level like the daemon's own
   * and the same for every workflow: the copy ({@code copy.*}), the diff ({@code diff.*}) and the
   * appliers ({@code apply.*}).
   */
  public static final List<ConfigDef> STAGE_DEFS =
      List.of(CopierConfig.DEF, DifferConfig.DEF, ApplyConfig.DEF);

  private final Map<String, String> values;
  private final Secret adminToken;
  private final List<SourceShard> shards;
  private final Map<String, String> captureSettings;
  private final List<ConfigValues> stageValues;
  private final CopierConfig copierConfig;
  private final DifferConfig differConfig;
  private final ApplyConfig.Settings applySettings;

  /**
   * @param stageValues the values of {@link #STAGE_DEFS}, in that order
   */
  DaemonConfig(
      Map<String, String> values,
      Secret adminToken,
      List<SourceShard> shards,
      Map<String, String> captureSettings,
      List<ConfigValues> stageValues) {
    this.values = Map.copyOf(values);
    this.adminToken = adminToken;
    this.shards = List.copyOf(shards);
    this.captureSettings = Map.copyOf(captureSettings);
    this.stageValues = List.copyOf(stageValues);
    this.copierConfig = CopierConfig.from(stageValues.get(0));
    this.differConfig = DifferConfig.from(stageValues.get(1));
    this.applySettings = ApplyConfig.Settings.from(stageValues.get(2));
  }

  /** A builder with nothing set: every key at its default until given. */
  public static DaemonConfigBuilder builder() {
    return new DaemonConfigBuilder(System::getenv);
  }

  /**
   * Reads a YAML file, applies {@code overrides} ({@code key=value}, later ones win) and validates.
   *
   * @throws DaemonConfigException listing every problem of the file and the overrides
   */
  public static DaemonConfig load(Path yaml, List<String> overrides) {
    return builder().yaml(yaml).setAll(overrides).validate();
  }

  /**
   * The configuration of a daemon for the local cluster described by {@code cluster}: its broker,
   * and every server with the role shard, in order, as a source shard of {@code keyspace} named
   * {@code shardNames} (same count). Capture connects as the server's user (root, no password, a
   * local development default) with server id {@link #CLUSTER_SERVER_ID_BASE} + the server's own
   * id. The admin endpoint takes any free port ({@code admin.port = 0}; the daemon records the one
   * it got in {@code cluster.json}). {@code overrides} ({@code key=value}) apply last.
   *
   * @throws DaemonConfigException listing every problem, a count mismatch included
   */
  public static DaemonConfig forCluster(
      ClusterDescriptor cluster, String keyspace, List<String> shardNames, List<String> overrides) {
    return builder().cluster(cluster, keyspace, shardNames).setAll(overrides).validate();
  }

  /**
   * Added to a local cluster server's {@code server_id} to give capture's server id: far above the
   * cluster's own ids (1..N) and apart from the ids tests pick for their own capture engines.
   */
  public static final long CLUSTER_SERVER_ID_BASE = 4_200_000L;

  /**
   * The value of a declared non-secret key (the daemon's or a stage's), as text (its default if not
   * given).
   */
  public String get(String key) {
    String v = values.get(key);
    for (ConfigValues stage : stageValues) {
      if (v == null && stage.has(key)) {
        v = stage.get(key);
      }
    }
    if (v == null) {
      throw new IllegalArgumentException(
          key.equals("admin.token")
              ? "admin.token is a secret: use adminToken()"
              : "no key " + key);
    }
    return v;
  }

  /** Kafka bootstrap servers. */
  public String bootstrapServers() {
    return get("kafka.bootstrap.servers");
  }

  /** The change topic prefix. */
  public String topicPrefix() {
    return get("topic.prefix");
  }

  /** The workflows topic. */
  public String workflowsTopic() {
    return get("workflows.topic");
  }

  /** The shard map topic. */
  public String shardmapsTopic() {
    return get("shardmaps.topic");
  }

  /** The admin endpoint's bind address. */
  public String adminBind() {
    return get("admin.bind");
  }

  /** The admin endpoint's port; 0 means any free port. */
  public int adminPort() {
    return Integer.parseInt(get("admin.port"));
  }

  /** The admin token; empty means mutating calls are refused. */
  public Secret adminToken() {
    return adminToken;
  }

  /** The first pause before a failed service restarts. */
  public Duration restartBackoffInitial() {
    return Duration.ofMillis(Long.parseLong(get("restart.backoff.initial.ms")));
  }

  /** The longest pause between restarts. */
  public Duration restartBackoffMax() {
    return Duration.ofMillis(Long.parseLong(get("restart.backoff.max.ms")));
  }

  /** How long stopping waits for each service. */
  public Duration shutdownTimeout() {
    return Duration.ofMillis(Long.parseLong(get("shutdown.timeout.ms")));
  }

  /** The largest forward-stream lag at which writes may switch. */
  public Duration workflowMaxLag() {
    return Duration.ofMillis(Long.parseLong(get("workflow.max.lag.ms")));
  }

  /** How long fencing waits for router transactions in flight. */
  public Duration workflowFenceLockWait() {
    return Duration.ofMillis(Long.parseLong(get("workflow.fence.lock.wait.ms")));
  }

  /** How long a write switch waits for the targets to apply G. */
  public Duration workflowCatchUpTimeout() {
    return Duration.ofMillis(Long.parseLong(get("workflow.catch.up.timeout.ms")));
  }

  /** Whether the daemon runs the keyspace change streams. */
  public boolean keyspaceStreamEnabled() {
    return Boolean.parseBoolean(get("keyspace.stream.enabled"));
  }

  /** The keyspace change stream of {@code keyspace}, as configured. */
  public KeyspaceStreamConfig keyspaceStream(String keyspace) {
    String prefix = get("keyspace.stream.topic.prefix");
    KeyspaceStreamConfig d = KeyspaceStreamConfig.of(bootstrapServers(), topicPrefix(), keyspace);
    return new KeyspaceStreamConfig(
        d.bootstrap(),
        d.topicPrefix(),
        keyspace,
        KeyspaceStreamConfig.defaultTopic(prefix.isEmpty() ? topicPrefix() : prefix, keyspace),
        Integer.parseInt(get("keyspace.stream.partitions")),
        d.replicationFactor(),
        d.pollTimeout(),
        KeyspaceStreamConfig.Format.parse(get("keyspace.stream.format")));
  }

  /** The source shards to capture, in configuration order. */
  public List<SourceShard> shards() {
    return shards;
  }

  /** How the workflows' copies run: the {@code copy.*} keys. */
  public CopierConfig copierConfig() {
    return copierConfig;
  }

  /** How the workflows' diffs run: the {@code diff.*} keys. */
  public DifferConfig differConfig() {
    return differConfig;
  }

  /** How the workflows' appliers commit and poll: the {@code apply.*} keys. */
  public ApplyConfig.Settings applySettings() {
    return applySettings;
  }

  /** The {@code capture.*} settings, without the prefix. */
  public Map<String, String> captureSettings() {
    return captureSettings;
  }

  /** The capture configuration of {@code shard}: its source, this daemon's Kafka and topics. */
  public CaptureConfig captureConfig(SourceShard shard) {
    return CaptureConfig.from(
        captureMap(shard, bootstrapServers(), topicPrefix(), captureSettings));
  }

  static Map<String, String> captureMap(
      SourceShard s, String bootstrap, String prefix, Map<String, String> captureSettings) {
    Map<String, String> m = new LinkedHashMap<>(captureSettings);
    m.put("source.host", s.host());
    m.put("source.port", Integer.toString(s.port()));
    m.put("source.user", s.user());
    m.put("source.password", s.password().reveal());
    m.put("source.server.id", Long.toString(s.serverId()));
    m.put("keyspace", s.keyspace());
    m.put("shard", s.shard());
    m.put("kafka.bootstrap.servers", bootstrap);
    m.put("topic.prefix", prefix);
    m.put("start.position", s.startPosition());
    m.put("source.flavor", s.flavor() == null ? "mariadb" : s.flavor());
    return m;
  }

  /**
   * One line per key, {@code key = value}, secrets as {@code [hidden]} or {@code [not set]}; for
   * {@code reshard daemon --check} and the start-up log.
   */
  public List<String> describe() {
    List<String> lines = new java.util.ArrayList<>();
    for (ConfigKey k : KEYS) {
      lines.add(k.name() + " = " + (k.secret() ? adminToken : values.get(k.name())));
    }
    for (int i = 0; i < STAGE_DEFS.size(); i++) {
      for (ConfigKey k : STAGE_DEFS.get(i).keys()) {
        lines.add(k.name() + " = " + stageValues.get(i).get(k.name()));
      }
    }
    new java.util.TreeMap<>(captureSettings)
        .forEach((k, v) -> lines.add(CAPTURE_PREFIX + k + " = " + v));
    for (int i = 0; i < shards.size(); i++) {
      lines.add(SHARDS + "." + i + " = " + shards.get(i));
    }
    return lines;
  }

  /**
   * The reference table of the daemon's and the source shards' keys, as Markdown (the first table
   * in {@code docs/daemon.md}).
   */
  public static String documentation() {
    return ConfigDef.tableHeader() + DEF.tableRows("") + SHARD_DEF.tableRows(SHARDS + "[].");
  }

  /**
   * The reference table of the stage keys ({@link #STAGE_DEFS}), as Markdown (the second table in
   * {@code docs/daemon.md}).
   */
  public static String stageDocumentation() {
    StringBuilder b = new StringBuilder(ConfigDef.tableHeader());
    STAGE_DEFS.forEach(d -> b.append(d.tableRows("")));
    return b.toString();
  }

  /** Every key with its value, secrets hidden. */
  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "DaemonConfig{", "}");
    describe().forEach(j::add);
    return j.toString();
  }
}
