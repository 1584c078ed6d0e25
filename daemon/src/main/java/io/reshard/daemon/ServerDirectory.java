package io.reshard.daemon;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.switcher.ShardServer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The MariaDB/MySQL servers a daemon may put shards on, by the name the shard map uses for them
 * (its endpoint reference). For a local cluster: every server of {@code cluster.json} by its name
 * ({@code db1}, ...), connected as its user, with capture's server id {@link
 * DaemonConfig#CLUSTER_SERVER_ID_BASE} + its own; the spares are the default targets, in order. For
 * a configuration file: every {@code shards[]} entry, named {@code host:port}; a workflow's target
 * shards must be listed there too (keyspace and shard), which names their servers. Immutable and
 * thread-safe.
 */
public final class ServerDirectory {
  private final Map<String, Entry> servers;
  private final List<String> spares;
  private final Map<String, String> configured;

  private record Entry(
      String host,
      int port,
      String user,
      String password,
      long serverId,
      GtidPosition.Flavor flavor) {}

  private ServerDirectory(
      Map<String, Entry> servers, List<String> spares, Map<String, String> configured) {
    this.servers = Map.copyOf(servers);
    this.spares = List.copyOf(spares);
    this.configured = Map.copyOf(configured);
  }

  /** The servers of a local cluster. */
  public static ServerDirectory forCluster(ClusterDescriptor cluster) {
    Map<String, Entry> m = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.mariadb()) {
      m.put(
          s.name(),
          new Entry(
              s.host(),
              s.port(),
              s.user(),
              "",
              DaemonConfig.CLUSTER_SERVER_ID_BASE + s.serverId(),
              ServerPositions.parseFlavor(s.flavorOrDefault().id())));
    }
    return new ServerDirectory(
        m, cluster.spares().stream().map(ClusterDescriptor.Server::name).toList(), Map.of());
  }

  /** The servers of a configuration's {@code shards[]}, each named {@code host:port}. */
  public static ServerDirectory forConfig(DaemonConfig config) {
    Map<String, Entry> m = new LinkedHashMap<>();
    Map<String, String> byShard = new LinkedHashMap<>();
    for (SourceShard s : config.shards()) {
      String name = s.host() + ":" + s.port();
      m.putIfAbsent(
          name,
          new Entry(
              s.host(),
              s.port(),
              s.user(),
              s.password().reveal(),
              s.serverId(),
              ServerPositions.parseFlavor(s.flavor())));
      byShard.put(s.id(), name);
    }
    return new ServerDirectory(m, List.of(), byShard);
  }

  /**
   * Shard {@code shard} on the server named {@code name}.
   *
   * @throws IllegalArgumentException naming the known servers if there is none of that name
   */
  public ShardServer server(String name, String shard) {
    Entry e = servers.get(name);
    if (e == null) {
      throw new IllegalArgumentException(
          "no server named "
              + name
              + "; the servers are "
              + servers.keySet().stream().sorted().toList());
    }
    return new ShardServer(
        shard, name, e.host(), e.port(), e.user(), e.password(), e.serverId(), e.flavor());
  }

  /** True if a server of that name is known. */
  public boolean knows(String name) {
    return servers.containsKey(name);
  }

  /**
   * The servers for a new workflow's {@code targets}: the configured server of each target shard,
   * or else the spares in order that {@code inUse} does not hold.
   *
   * @throws IllegalArgumentException if there are not enough
   */
  public List<String> defaultTargets(String keyspace, List<String> targets, Set<String> inUse) {
    List<String> chosen = new ArrayList<>();
    List<String> free = new ArrayList<>(spares.stream().filter(s -> !inUse.contains(s)).toList());
    for (String t : targets) {
      Optional<String> c = Optional.ofNullable(configured.get(keyspace + "/" + t));
      if (c.isPresent()) {
        chosen.add(c.get());
      } else if (!free.isEmpty()) {
        chosen.add(free.remove(0));
      } else {
        throw new IllegalArgumentException(
            "no server for target "
                + t
                + ": "
                + (spares.isEmpty()
                    ? "list it under shards (keyspace " + keyspace + ", shard " + t + ")"
                    : "every spare server " + spares + " is in use")
                + ", or name one with --target-servers");
      }
    }
    return chosen;
  }
}
