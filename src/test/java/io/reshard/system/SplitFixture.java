package io.reshard.system;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.ShardAssignment;
import io.reshard.router.VSchema;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The split the switcher's refusal tests run on the shared cluster: range {@code c0-} (the fourth
 * shard server) into {@code c0-e0} and {@code e0-} (the two spares), table {@code messages} placed
 * by {@code channel_id} ({@link SplitLifecycleIT#VSCHEMA}).
 */
final class SplitFixture {
  private SplitFixture() {}

  /**
   * Creates {@code messages} on every server, fence rows (epoch 1, writable) on the four shard
   * servers, and leaves the spares without the table (the workflow creates it).
   *
   * @return the first map's assignments: the four shards, each serving reads and writes
   */
  static List<ShardAssignment> prepare(TestCluster cluster, String ks) throws Exception {
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(
          s,
          "CREATE TABLE IF NOT EXISTS messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB");
    }
    List<ShardAssignment> v1 = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ClusterDescriptor.Server s = cluster.shards().get(i);
      try (Connection c = cluster.connect(s)) {
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, ks, SplitLifecycleIT.SHARDS.get(i), 1, true);
      }
      v1.add(
          new ShardAssignment(
              KeyRange.parse(SplitLifecycleIT.SHARDS.get(i)), s.name(), true, true));
    }
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP TABLE messages");
    }
    return v1;
  }

  /** The first channel id whose keyspace id lies in {@code range}. */
  static long channelIn(String range) {
    KeyRange r = KeyRange.parse(range);
    long ch = 1;
    while (!r.contains(SplitLifecycleIT.HASH.keyspaceId(ch))) {
      ch++;
    }
    return ch;
  }

  /**
   * The split's workflow spec.
   *
   * @param serverId the binlog server id of the source's capture; the targets' take the next two
   */
  static WorkflowSpec spec(
      TestCluster cluster,
      String name,
      long serverId,
      Duration maxLag,
      Duration fenceLockWait,
      Duration catchUpTimeout) {
    return new WorkflowSpec(
        name,
        cluster.database(),
        VSchema.parse(SplitLifecycleIT.VSCHEMA),
        List.of(SplitLifecycleIT.server("c0-", cluster.shards().get(3), serverId)),
        List.of(
            SplitLifecycleIT.server("c0-e0", cluster.spares().get(0), serverId + 1),
            SplitLifecycleIT.server("e0-", cluster.spares().get(1), serverId + 2)),
        cluster.bootstrap(),
        cluster.topicPrefix(),
        SplitLifecycleIT.shardMapTopic(cluster).topic(),
        maxLag,
        fenceLockWait,
        catchUpTimeout);
  }

  /** The {@code writable} column of the source's fence row ({@code c0-}). */
  static int sourceFenceWritable(TestCluster cluster, String ks) throws Exception {
    try (Connection c = cluster.connect(cluster.shards().get(3));
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT writable FROM _reshard.fence WHERE keyspace = ? AND shard = 'c0-'")) {
      ps.setString(1, ks);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new AssertionError("no fence row for c0- of " + ks);
        }
        return rs.getInt(1);
      }
    }
  }
}
