package io.reshard.router;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A chat keyspace laid out on a test cluster: tables {@code messages} (primary vindex hash on
 * channel_id, lookup vindex on id), {@code message_lookup} (hash on id) and {@code accounts} (hash
 * on id) on every server, the keyspace's fence rows at epoch 1 on the 4 shards {@code -40}, {@code
 * 40-80}, {@code 80-c0}, {@code c0-} (servers db1..db4), and shard map version 1.
 */
final class ChatKeyspace {
  static final String VSCHEMA =
      """
      {"sharded": true,
       "vindexes": {
         "hash": {"type": "hash"},
         "message_lookup": {"type": "consistent_lookup_unique",
                            "params": {"table": "message_lookup", "from": "id", "to": "channel_id"},
                            "owner": "messages"}},
       "tables": {
         "messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"},
                                          {"column": "id", "name": "message_lookup"}]},
         "message_lookup": {"column_vindexes": [{"column": "id", "name": "hash"}]},
         "accounts": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}
      """;

  static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");

  final TestCluster cluster;
  final String keyspace;
  final VSchema vschema;
  final ShardMap v1;
  final StaticShardMapSource maps;

  ChatKeyspace(TestCluster cluster) throws SQLException {
    this(cluster, VSCHEMA);
  }

  /** The same tables and shards, with another vschema (say, one with auto_increment). */
  ChatKeyspace(TestCluster cluster, String vschemaJson) throws SQLException {
    this.cluster = cluster;
    this.keyspace = cluster.database();
    this.vschema = VSchema.parse(vschemaJson);
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(
          s,
          "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " user_id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL, body VARCHAR(200),"
              + " KEY by_channel (channel_id, created_at), KEY by_user (user_id, created_at))"
              + " ENGINE=InnoDB",
          "CREATE TABLE message_lookup (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL) ENGINE=InnoDB",
          "CREATE TABLE accounts (id BIGINT PRIMARY KEY, credits BIGINT NOT NULL) ENGINE=InnoDB");
      try (Connection c = cluster.connect(s)) {
        ReshardSchema.create(c);
      }
    }
    List<ShardAssignment> assignments = new ArrayList<>();
    for (int i = 0; i < SHARDS.size(); i++) {
      assignments.add(
          new ShardAssignment(KeyRange.parse(SHARDS.get(i)), "db" + (i + 1), true, true));
      setFence("db" + (i + 1), SHARDS.get(i), 1, true);
    }
    v1 = ShardMap.first(keyspace, vschema, assignments);
    maps = StaticShardMapSource.of(v1);
  }

  /** Resolves {@code dbN} to the test cluster's server N, as root. */
  EndpointResolver endpoints() {
    Map<String, JdbcEndpoint> m = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      m.put(
          s.name(),
          new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), ""));
    }
    return EndpointResolver.of(m);
  }

  Router router(RouterConfig config) {
    return Router.create(maps, endpoints(), config);
  }

  ClusterDescriptor.Server server(String name) {
    return cluster.descriptor().mariadb().stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  void setFence(String server, String shard, long epoch, boolean writable) throws SQLException {
    try (Connection c = cluster.connect(server(server))) {
      ReshardSchema.setFence(c, keyspace, shard, epoch, writable);
    }
  }

  /** A value of {@code id} (searching up from {@code from}) whose hash falls in {@code shard}. */
  static long keyIn(String shard, long from) {
    KeyRange range = KeyRange.parse(shard);
    Vindex hash = Vindex.of(VindexType.fromVitessName("hash"));
    for (long k = from; ; k++) {
      if (range.contains(hash.keyspaceId(k))) {
        return k;
      }
    }
  }

  /** Number of rows of {@code sql} (a COUNT) on one server. */
  long count(String server, String sql) throws SQLException {
    try (Connection c = cluster.connect(server(server));
        var st = c.createStatement();
        var rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
