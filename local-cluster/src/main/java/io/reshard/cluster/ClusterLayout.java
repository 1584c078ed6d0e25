package io.reshard.cluster;

import java.util.ArrayList;
import java.util.List;

/** Turns a {@link ClusterSpec} into the descriptor of a cluster that has not been started. */
final class ClusterLayout {

  /** The address every process binds: loopback only. */
  static final String HOST = "127.0.0.1";

  /** The user that connects without a password: a local development default. */
  static final String ROOT_USER = "root";

  private ClusterLayout() {}

  /**
   * Names the servers {@code db1..dbN}, shards first, with consecutive ports, {@code server_id = i}
   * (and on MariaDB {@code gtid_domain_id = i}), the spec's flavor, and every pid 0.
   */
  static ClusterDescriptor describe(ClusterSpec spec) {
    List<ClusterDescriptor.Server> servers = new ArrayList<>();
    for (int i = 1; i <= spec.servers(); i++) {
      String name = "db" + i;
      boolean mysql = spec.flavor() == Flavor.MYSQL;
      servers.add(
          new ClusterDescriptor.Server(
              name,
              i <= spec.shards() ? "shard" : "spare",
              HOST,
              spec.mariadbBasePort() + i - 1,
              mysql
                  ? MySqlServer.socketPath(spec.dir(), name)
                  : MariaDbServer.socketPath(spec.dir(), name),
              ROOT_USER,
              i,
              0,
              DatabaseServer.homeOf(spec.dir(), spec.flavor(), name).resolve("data").toString(),
              spec.flavor().id()));
    }
    ClusterDescriptor.Broker broker =
        new ClusterDescriptor.Broker(
            HOST + ":" + spec.kafkaPort(), spec.kafkaPort(), spec.kafkaPort() + 1, 0);
    return new ClusterDescriptor(List.copyOf(servers), broker);
  }
}
