package io.reshard.daemon;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureConfigException;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.config.ConfigDef;
import io.reshard.core.config.ConfigKey;
import io.reshard.core.config.ConfigValues;
import io.reshard.router.KeyRange;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Collects a {@link DaemonConfig}'s values (later sources override earlier ones, key by key) and
 * {@linkplain #validate() validates} them all at once. Not thread-safe; the configuration it builds
 * is.
 */
public final class DaemonConfigBuilder {
  private static final Pattern SHARD_KEY = Pattern.compile("shards\\.(\\d{1,4})\\.(.+)");

  /** Capture keys the daemon sets per shard; a {@code capture.*} key may not override them. */
  private static final Set<String> CAPTURE_MANAGED =
      Set.of(
          "source.host",
          "source.port",
          "source.user",
          "source.password",
          "source.server.id",
          "keyspace",
          "shard",
          "kafka.bootstrap.servers",
          "topic.prefix",
          "start.position");

  private final ConfigDef.SecretResolver secrets;
  private final Map<String, String> top = new LinkedHashMap<>();
  private final TreeMap<Integer, Map<String, String>> shards = new TreeMap<>();
  private final List<String> problems = new ArrayList<>();

  /**
   * @param env the environment that {@code ${env:NAME}} references read
   */
  DaemonConfigBuilder(Function<String, String> env) {
    this.secrets = (key, text, problems) -> ConfigSources.resolveSecret(key, text, env, problems);
  }

  /** Reads a YAML file; its problems are reported by {@link #validate()} with all the others. */
  public DaemonConfigBuilder yaml(Path file) {
    ConfigSources.readYaml(file, this::set, problems::add);
    return this;
  }

  /** Sets {@code key} (a daemon key, {@code capture.<key>} or {@code shards.N.<key>}). */
  public DaemonConfigBuilder set(String key, String value) {
    Matcher m = SHARD_KEY.matcher(key);
    if (m.matches()) {
      shards
          .computeIfAbsent(Integer.parseInt(m.group(1)), i -> new LinkedHashMap<>())
          .put(m.group(2), value);
    } else {
      top.put(key, value);
    }
    return this;
  }

  /** Sets {@code key=value}; text without {@code =} is a problem. */
  public DaemonConfigBuilder set(String assignment) {
    String[] kv = ConfigSources.splitAssignment(assignment);
    if (kv == null) {
      // shown only if it looks like a key: the text might be a mistyped secret
      String shown = assignment.matches("[A-Za-z0-9._-]{1,100}") ? assignment : "(not shown)";
      problems.add("--set " + shown + ": expected key=value");
    } else {
      set(kv[0], kv[1]);
    }
    return this;
  }

  /** Applies {@code key=value} assignments in order. */
  public DaemonConfigBuilder setAll(List<String> assignments) {
    if (assignments != null) {
      assignments.forEach(this::set);
    }
    return this;
  }

  /**
   * Sets the broker, an any-free admin port, and one source shard per shard server of {@code
   * cluster} (see {@link DaemonConfig#forCluster}).
   *
   * @param shardNames the shard names in server order; null or empty means the even split of the
   *     keyspace into as many shards as the cluster has shard servers (a power of two)
   */
  public DaemonConfigBuilder cluster(
      ClusterDescriptor cluster, String keyspace, List<String> shardNames) {
    set("kafka.bootstrap.servers", cluster.kafka().bootstrap());
    set("admin.port", "0");
    if (keyspace == null) {
      return this; // no shard captured from the start: the workflows start the captures they need
    }
    List<ClusterDescriptor.Server> servers = cluster.shards();
    List<String> names = shardNames == null ? List.of() : shardNames;
    if (names.isEmpty()) {
      try {
        names = KeyRange.evenShards(servers.size()).stream().map(KeyRange::name).toList();
      } catch (IllegalArgumentException e) {
        problems.add("shard names: give them, the cluster's shard count is not a power of two");
        return this;
      }
    }
    if (names.size() != servers.size()) {
      problems.add(
          "the cluster has "
              + servers.size()
              + " shard servers ("
              + servers.stream()
                  .map(ClusterDescriptor.Server::name)
                  .collect(Collectors.joining(", "))
              + ") but "
              + names.size()
              + " shard names were given ("
              + String.join(", ", names)
              + "): give one name per server, in order");
      return this;
    }
    for (int i = 0; i < servers.size(); i++) {
      ClusterDescriptor.Server s = servers.get(i);
      String p = DaemonConfig.SHARDS + "." + i + ".";
      set(p + "keyspace", keyspace);
      set(p + "shard", names.get(i));
      set(p + "host", s.host());
      set(p + "port", Integer.toString(s.port()));
      set(p + "user", s.user());
      set(p + "server.id", Long.toString(DaemonConfig.CLUSTER_SERVER_ID_BASE + s.serverId()));
      set(p + "flavor", s.flavorOrDefault().id());
    }
    return this;
  }

  /**
   * Checks every value and builds the frozen configuration.
   *
   * @throws DaemonConfigException listing every problem: unreadable sources, unknown and missing
   *     keys, bad values, capture settings capture itself refuses, duplicate shards or server ids
   */
  public DaemonConfig validate() {
    List<String> found = new ArrayList<>(problems);
    ConfigValues daemon = DaemonConfig.DEF.parse(top, "", secrets, found);
    Map<String, String> values = new LinkedHashMap<>();
    Secret token = Secret.empty();
    for (ConfigKey k : DaemonConfig.KEYS) {
      if (!daemon.has(k.name())) {
        continue;
      }
      if (k.secret()) {
        token = Secret.of(daemon.password(k.name()));
      } else {
        values.put(k.name(), daemon.get(k.name()));
      }
    }
    List<ConfigValues> stages = new ArrayList<>();
    for (ConfigDef d : DaemonConfig.STAGE_DEFS) {
      stages.add(d.parse(top, "", secrets, found));
    }
    Map<String, String> capture = captureSettings(found);
    List<SourceShard> sources = sourceShards(values, capture, found);
    crossCheck(values, sources, found);
    if (!found.isEmpty()) {
      throw new DaemonConfigException(found);
    }
    return new DaemonConfig(values, token, sources, capture, stages);
  }

  private Map<String, String> captureSettings(List<String> found) {
    Map<String, String> capture = new TreeMap<>();
    for (Map.Entry<String, String> e : top.entrySet()) {
      String key = e.getKey();
      if (DaemonConfig.DEF.contains(key)
          || DaemonConfig.STAGE_DEFS.stream().anyMatch(d -> d.contains(key))) {
        continue;
      }
      if (!key.startsWith(DaemonConfig.CAPTURE_PREFIX)) {
        found.add(key + ": unknown key" + hint(key));
        continue;
      }
      String ck = key.substring(DaemonConfig.CAPTURE_PREFIX.length());
      if (CAPTURE_MANAGED.contains(ck)) {
        found.add(key + ": set per shard (shards.N.*) or as a daemon key, not as a capture key");
      } else if (!CaptureConfig.DEF.contains(ck) && !ck.startsWith(CaptureConfig.PRODUCER_PREFIX)) {
        found.add(key + ": unknown capture key");
      } else {
        capture.put(ck, e.getValue().strip());
      }
    }
    // Checked once against capture's own declarations, with a stand-in shard, so a bad capture
    // setting is reported once rather than once per shard.
    SourceShard standIn =
        new SourceShard("k", "-", "localhost", 3306, "u", Secret.empty(), 1, "current");
    try {
      CaptureConfig.from(DaemonConfig.captureMap(standIn, "localhost:9092", "p", capture));
    } catch (CaptureConfigException e) {
      e.problems().forEach(p -> found.add(DaemonConfig.CAPTURE_PREFIX + p));
      return Map.of();
    }
    return capture;
  }

  private List<SourceShard> sourceShards(
      Map<String, String> values, Map<String, String> capture, List<String> found) {
    List<SourceShard> result = new ArrayList<>();
    int expected = 0;
    for (Map.Entry<Integer, Map<String, String>> e : shards.entrySet()) {
      String prefix = DaemonConfig.SHARDS + "." + e.getKey() + ".";
      if (e.getKey() != expected++) {
        found.add(
            prefix.substring(0, prefix.length() - 1)
                + ": shards are numbered from 0 without"
                + " gaps ("
                + shards.keySet()
                + ")");
      }
      int before = found.size();
      ConfigValues v = DaemonConfig.SHARD_DEF.parse(e.getValue(), prefix, secrets, found);
      for (String key : DaemonConfig.SHARD_DEF.unknownKeys(e.getValue())) {
        found.add(prefix + key + ": unknown shard key");
      }
      if (found.size() > before) {
        continue;
      }
      SourceShard s =
          new SourceShard(
              v.get("keyspace"),
              KeyRange.parse(v.get("shard")).name(),
              v.get("host"),
              v.getInt("port"),
              v.get("user"),
              Secret.of(v.password("password")),
              v.getLong("server.id"),
              v.get("start.position"),
              v.get("flavor"));
      if (values.containsKey("kafka.bootstrap.servers") && values.containsKey("topic.prefix")) {
        try {
          CaptureConfig.from(
              DaemonConfig.captureMap(
                  s, values.get("kafka.bootstrap.servers"), values.get("topic.prefix"), capture));
        } catch (CaptureConfigException x) {
          x.problems().forEach(p -> found.add(prefix + "capture: " + p));
          continue;
        }
      }
      result.add(s);
    }
    return result;
  }

  private static void crossCheck(
      Map<String, String> values, List<SourceShard> sources, List<String> found) {
    Map<String, Long> ids =
        sources.stream().collect(Collectors.groupingBy(SourceShard::id, Collectors.counting()));
    ids.forEach(
        (id, n) -> {
          if (n > 1) {
            found.add("shards: " + id + " is listed " + n + " times; capture it once");
          }
        });
    Map<Long, List<String>> byServerId = new TreeMap<>();
    sources.forEach(
        s -> byServerId.computeIfAbsent(s.serverId(), x -> new ArrayList<>()).add(s.id()));
    byServerId.forEach(
        (id, list) -> {
          if (list.size() > 1) {
            found.add(
                "shards: server.id "
                    + id
                    + " is used by "
                    + list
                    + "; a server id must be"
                    + " unique per binlog client");
          }
        });
    if (values.containsKey("restart.backoff.initial.ms")
        && values.containsKey("restart.backoff.max.ms")
        && Long.parseLong(values.get("restart.backoff.initial.ms"))
            > Long.parseLong(values.get("restart.backoff.max.ms"))) {
      found.add("restart.backoff.initial.ms must not exceed restart.backoff.max.ms");
    }
  }

  private static String hint(String key) {
    String lower = key.toLowerCase(Locale.ROOT);
    if (DaemonConfig.SHARD_KEYS.stream().anyMatch(k -> k.name().equals(lower))) {
      return " (a shard's key: write shards.N." + lower + ")";
    }
    if (lower.equals(DaemonConfig.SHARDS)) {
      return " (set a shard's keys as shards.N.<key>)";
    }
    return "";
  }
}
