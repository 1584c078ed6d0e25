package io.reshard.switcher;

import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.ReshardSchema;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Keyspace init, the step before any workflow ({@code reshard keyspace init}): version 1 of a
 * keyspace's shard map for shards whose servers already hold the keyspace's database. Refuses, with
 * nothing written, if the keyspace has a shard map already or its database is missing on a shard's
 * server (every such server named at once); otherwise creates the {@code _reshard} tables and each
 * shard's fence row (epoch 1, writable) on its server, then publishes the map with every shard
 * serving reads and writes. Not thread-safe; run once.
 */
public final class KeyspaceInitPhase implements Phase {
  private final String keyspace;
  private final VSchema vschema;
  private final List<ShardServer> shards;
  private final ShardMapTopicConfig topic;

  /**
   * @param keyspace the keyspace (the database of that name on every shard's server)
   * @param vschema the keyspace's vschema
   * @param shards every shard with its server, their ranges covering the whole key range without
   *     overlap, in the order the map lists them
   * @param topic the shard map topic
   */
  public KeyspaceInitPhase(
      String keyspace, VSchema vschema, List<ShardServer> shards, ShardMapTopicConfig topic) {
    this.keyspace = keyspace;
    this.vschema = vschema;
    this.shards = List.copyOf(shards);
    this.topic = topic;
  }

  @Override
  public String name() {
    return "keyspace init";
  }

  /**
   * Runs the step.
   *
   * @return the published version 1
   * @throws SwitchRefusedException if the keyspace has a map already or its database is missing on
   *     a shard's server; nothing was written
   * @throws SQLException if a shard's server refuses a statement
   */
  public ShardMap run() throws SQLException {
    List<ShardMap> existing = ShardMapTopic.history(topic, keyspace);
    if (!existing.isEmpty()) {
      throw new SwitchRefusedException(
          "keyspace "
              + keyspace
              + " has a shard map already (version "
              + existing.get(existing.size() - 1).version()
              + "); see `reshard shardmap show --keyspace "
              + keyspace
              + "`");
    }
    List<String> missing = new ArrayList<>();
    for (ShardServer s : shards) {
      if (!databaseExists(s)) {
        missing.add(s.endpointRef() + " (shard " + s.shard() + ")");
      }
    }
    if (!missing.isEmpty()) {
      throw new SwitchRefusedException(
          "the keyspace database "
              + keyspace
              + " does not exist on "
              + String.join(", ", missing)
              + "; create it (with its data) first. Nothing was written");
    }
    List<ShardAssignment> assignments = new ArrayList<>();
    for (ShardServer s : shards) {
      try (Connection c = ServerFence.connect(s)) {
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, keyspace, s.shard(), 1, true);
      }
      assignments.add(new ShardAssignment(s.range(), s.endpointRef(), true, true));
    }
    ShardMap v1 = ShardMap.first(keyspace, vschema, assignments);
    try (ShardMapPublisher p = ShardMapPublisher.open(topic, keyspace)) {
      p.publish(v1);
    }
    return v1;
  }

  private boolean databaseExists(ShardServer s) throws SQLException {
    try (Connection c = ServerFence.connect(s)) {
      return TableSchemaReader.databaseExists(c, keyspace);
    }
  }
}
