package io.reshard.switcher;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * What the refusal tests look at on the real servers and broker to show that a refused step wrote
 * nothing: databases, fence rows and topics.
 */
final class WrittenNothing {
  private WrittenNothing() {}

  /** The shard servers of the test cluster as the shards {@code -40 40-80 80-c0 c0-}. */
  static List<ShardServer> shards(TestCluster cluster) {
    List<String> names = List.of("-40", "40-80", "80-c0", "c0-");
    return java.util.stream.IntStream.range(0, names.size())
        .mapToObj(i -> server(names.get(i), cluster.shards().get(i)))
        .toList();
  }

  /** Shard {@code shard} on {@code s}; capture would present server id 9000 + the server's id. */
  /** The test class's own shard map topic (and transactional ids). */
  static io.reshard.router.ShardMapTopicConfig shardMapTopic(TestCluster cluster) {
    return io.reshard.router.ShardMapTopicConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .topic(cluster.topicPrefix() + ".shardmaps")
        .transactionalIdPrefix(cluster.topicPrefix() + "-shardmap-")
        .build();
  }

  /** The test class's own workflow store. */
  static KafkaWorkflowStore store(TestCluster cluster) {
    return KafkaWorkflowStore.open(cluster.bootstrap(), cluster.topicPrefix() + ".workflows");
  }

  static ShardServer server(String shard, ClusterDescriptor.Server s) {
    return new ShardServer(shard, s.name(), s.host(), s.port(), s.user(), "", 9000 + s.serverId());
  }

  /** True if {@code database} exists on the server. */
  static boolean databaseExists(ClusterDescriptor.Server s, String database) throws SQLException {
    return count(
            s, "SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", database)
        > 0;
  }

  /** The fence rows of {@code keyspace} on the server (0 if it has no fence table). */
  static long fenceRows(ClusterDescriptor.Server s, String keyspace) throws SQLException {
    if (count(
            s,
            "SELECT COUNT(*) FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = '_reshard' AND TABLE_NAME = ?",
            "fence")
        == 0) {
      return 0;
    }
    return count(s, "SELECT COUNT(*) FROM _reshard.fence WHERE keyspace = ?", keyspace);
  }

  /** The fence rows of {@code keyspace} on every server of the cluster. */
  static long fenceRowsAnywhere(TestCluster cluster, String keyspace) throws SQLException {
    long n = 0;
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      n += fenceRows(s, keyspace);
    }
    return n;
  }

  /** The broker's topic names. */
  static Set<String> topics(TestCluster cluster) throws Exception {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap()))) {
      return admin.listTopics().names().get(30, TimeUnit.SECONDS);
    }
  }

  private static long count(ClusterDescriptor.Server s, String sql, String arg)
      throws SQLException {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, arg);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
