package io.reshard.switcher;

import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.router.VSchemaTable;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Keyspace init, the step before any workflow ({@code reshard keyspace init}): version 1 of a
 * keyspace's shard map for shards whose servers already hold the keyspace's database.
 *
 * <p>Refuses, naming every reason at once and with nothing written anywhere: a keyspace name
 * outside {@link NameRules}; a keyspace that has a shard map already (its vschema is replaced with
 * {@link SetVSchemaPhase}); one server named for two shards; a shard's server without the
 * keyspace's database; and everything {@link VSchemaCheck} finds in the vschema and on every
 * shard's server, existing rows included. Otherwise creates the {@code _reshard} tables and each
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
   * @throws SwitchRefusedException naming every reason it is refused; nothing was written
   * @throws SQLException if a shard's server cannot be read or refuses a statement
   */
  public ShardMap run() throws SQLException {
    RefusalReasons reasons = new RefusalReasons();
    NameRules.keyspaceProblem(keyspace).ifPresent(reasons::add);
    List<ShardMap> existing =
        reasons.isEmpty() ? ShardMapTopic.history(topic, keyspace) : List.of();
    if (!existing.isEmpty()) {
      reasons.add(
          "keyspace "
              + keyspace
              + " has a shard map already (version "
              + existing.get(existing.size() - 1).version()
              + "; see `reshard shardmap show --keyspace "
              + keyspace
              + "`); to replace its vschema, run `reshard keyspace set-vschema`");
    }
    sharedServers().forEach(reasons::add);
    if (vschema.sharded()) {
      VSchemaCheck check = new VSchemaCheck(keyspace, vschema, reasons);
      check.document();
      check.shards(shards);
    } else {
      unshardedReasons(reasons);
    }
    reasons.throwIfAny("keyspace init of " + keyspace + " refused");
    List<ShardAssignment> assignments = new ArrayList<>();
    for (ShardServer s : shards) {
      if (vschema.sharded()) { // an unsharded keyspace is never resharded: no fence
        try (Connection c = ServerFence.connect(s)) {
          ReshardSchema.create(c);
          ReshardSchema.setFence(c, keyspace, s.shard(), 1, true);
        }
      }
      assignments.add(new ShardAssignment(s.range(), s.endpointRef(), true, true));
    }
    ShardMap v1 = ShardMap.first(keyspace, vschema, assignments);
    try (ShardMapPublisher p = ShardMapPublisher.open(topic, keyspace)) {
      p.publish(v1);
    }
    return v1;
  }

  /**
   * An unsharded keyspace (one that holds sequences, docs/router.md "Sequences") has the one shard
   * {@code -}, whose server holds every table the vschema declares; it is published so that routers
   * and workflows find its server, and is never resharded.
   */
  private void unshardedReasons(RefusalReasons reasons) throws SQLException {
    if (shards.size() != 1 || !shards.get(0).range().equals(KeyRange.FULL)) {
      reasons.add(
          "the vschema is not sharded, so keyspace "
              + keyspace
              + " has exactly one shard, -, on one server (got "
              + shards.stream().map(ShardServer::shard).toList()
              + "): give --shards=- and one server, or set \"sharded\": true");
      return;
    }
    ShardServer s = shards.get(0);
    try (Connection c = ServerFence.connect(s)) {
      if (!TableSchemaReader.databaseExists(c, keyspace)) {
        reasons.add(
            "server "
                + s.endpointRef()
                + " has no database "
                + keyspace
                + ": create it with the keyspace's tables first");
        return;
      }
      for (VSchemaTable table : vschema.tables().values()) {
        if (!TableSchemaReader.exists(c, keyspace, table.name())) {
          reasons.add(
              "table "
                  + table.name()
                  + ", which the vschema declares, is not in "
                  + keyspace
                  + " on "
                  + s.endpointRef()
                  + ": create it (a sequence as docs/router.md \"Sequences\" shows)");
        } else if (table.isSequence()) {
          sequenceLayoutProblem(c, table.name())
              .ifPresent(p -> reasons.add(p, "on " + s.endpointRef()));
        }
      }
    }
  }

  /** Why {@code table} cannot serve as a sequence, if it cannot: its columns or its row 0. */
  private Optional<String> sequenceLayoutProblem(Connection c, String table) {
    String fix =
        ": a sequence needs the columns id, next_id and cache and the row id = 0"
            + " (Sequence.createTable, docs/router.md \"Sequences\")";
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT next_id, cache FROM `" + keyspace + "`.`" + table + "` WHERE id = 0")) {
      return rs.next()
          ? Optional.empty()
          : Optional.of("sequence table " + table + " has no row id = 0" + fix);
    } catch (SQLException e) {
      return Optional.of(
          "sequence table " + table + " cannot be read as one (" + e.getMessage() + ")" + fix);
    }
  }

  /** One database per keyspace per server (DESIGN 2): each shard needs a server of its own. */
  private List<String> sharedServers() {
    Map<String, List<String>> byServer = new LinkedHashMap<>();
    for (ShardServer s : shards) {
      byServer.computeIfAbsent(s.endpointRef(), k -> new ArrayList<>()).add(s.shard());
    }
    List<String> problems = new ArrayList<>();
    byServer.forEach(
        (server, names) -> {
          if (names.size() > 1) {
            problems.add(
                "server "
                    + server
                    + " is named for shards "
                    + String.join(", ", names)
                    + ": each shard needs a server of its own (one database per keyspace per"
                    + " server)");
          }
        });
    return problems;
  }
}
