package io.reshard.switcher;

import io.reshard.router.AutoIncrement;
import io.reshard.router.Sequence;
import io.reshard.router.VSchemaTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a workflow does about ids (DESIGN 4.11). At create: a moved table with an AUTO_INCREMENT
 * column is refused unless its vschema entry names a sequence ({@code "auto_increment"}) or the
 * operator chose {@link AutoIncrementMode#LEAVE}, since after a split every target would go on from
 * the same AUTO_INCREMENT value; and a named sequence must be usable (its keyspace's server known,
 * its table there with the row {@code id = 0}). At a write switch, before the new owners are
 * opened: each sequence's {@code next_id} is raised above the largest id the new owners hold (what
 * the copy and the streams wrote), so no id router-lib hands out later is one a server chose
 * before. Stateless.
 */
final class SequenceStep {
  private SequenceStep() {}

  /**
   * Adds create's reasons about AUTO_INCREMENT columns, from one source's tables.
   *
   * @param source a connection to the source's server
   * @param where how the reasons name the source, e.g. {@code "source c0-"}
   */
  static void createReasons(
      Connection source, WorkflowSpec spec, String where, RefusalReasons reasons)
      throws SQLException {
    for (String table : spec.tables()) {
      Optional<AutoIncrement> ai = spec.vschema().table(table).flatMap(VSchemaTable::autoIncrement);
      Optional<String> column = autoIncrementColumn(source, spec.keyspace(), table);
      if (ai.isEmpty()
          && column.isPresent()
          && spec.autoIncrement() == AutoIncrementMode.SEQUENCE) {
        reasons.add(
            "table "
                + table
                + " has the AUTO_INCREMENT column "
                + column.get()
                + ": after the split every target would go on from the same AUTO_INCREMENT value"
                + " and give the same ids on two shards; name a sequence in the vschema"
                + " (\"auto_increment\": {\"column\": \""
                + column.get()
                + "\", \"sequence\": \"KEYSPACE."
                + table
                + "_seq\"}, docs/router.md \"Sequences\") and insert through router-lib,"
                + " or create the workflow with --auto-increment=leave if the application assigns"
                + " the ids",
            where);
      }
    }
  }

  /** Adds create's reasons about the sequences the moved tables name (once per workflow). */
  static void sequenceReasons(WorkflowSpec spec, RefusalReasons reasons) throws SQLException {
    for (AutoIncrement ai : sequences(spec).values()) {
      sequenceReason(spec, ai).ifPresent(reasons::add);
    }
  }

  /** Why the sequence cannot be used, if it cannot. */
  private static Optional<String> sequenceReason(WorkflowSpec spec, AutoIncrement ai)
      throws SQLException {
    ShardServer server = spec.sequenceServers().get(ai.sequenceKeyspace());
    String subject = "sequence " + ai.sequence() + ": ";
    if (server == null) {
      return Optional.of(
          subject
              + "keyspace "
              + ai.sequenceKeyspace()
              + " has no shard map with a server this daemon knows; give it a map with one shard"
              + " (-) on a configured server, its vschema declaring \""
              + ai.sequenceTable()
              + "\": {\"type\": \"sequence\"} (docs/router.md \"Sequences\")");
    }
    try (Connection c = ServerFence.connect(server);
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT COUNT(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?"
                    + " AND TABLE_NAME = ? AND COLUMN_NAME IN ('id', 'next_id', 'cache')")) {
      ps.setString(1, ai.sequenceKeyspace());
      ps.setString(2, ai.sequenceTable());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) != 3) {
          return Optional.of(
              subject
                  + "table "
                  + ai.sequenceTable()
                  + " with columns id, next_id and cache does not exist in database "
                  + ai.sequenceKeyspace()
                  + " on "
                  + server.endpointRef()
                  + "; create it as docs/router.md \"Sequences\" shows");
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Raises every sequence of the moved tables above the largest id {@code owners} hold.
   *
   * @param owners the shards that take writes next, with a connection to each
   * @return per sequence the {@code next_id} it holds afterwards
   */
  static Map<String, Long> raiseAbove(WorkflowSpec spec, Map<ShardServer, Connection> owners)
      throws SQLException {
    Map<String, Long> raised = new LinkedHashMap<>();
    for (Map.Entry<String, AutoIncrement> e : sequences(spec).entrySet()) {
      AutoIncrement ai = e.getValue();
      long max = 0;
      for (Connection c : owners.values()) {
        max = Math.max(max, maxId(c, spec.keyspace(), e.getKey(), ai.column()));
      }
      ShardServer server = spec.sequenceServers().get(ai.sequenceKeyspace());
      if (server == null) {
        throw new IllegalStateException(
            "sequence "
                + ai.sequence()
                + ": no server known for keyspace "
                + ai.sequenceKeyspace());
      }
      try (Connection c = ServerFence.connect(server)) {
        raised.put(
            ai.sequence(),
            Sequence.raiseNextId(
                c, ai.sequenceKeyspace(), ai.sequenceTable(), Math.addExact(max, 1)));
      }
    }
    return raised;
  }

  /** The moved tables that name a sequence, with their auto_increment. */
  private static Map<String, AutoIncrement> sequences(WorkflowSpec spec) {
    Map<String, AutoIncrement> m = new LinkedHashMap<>();
    for (String table : spec.tables()) {
      spec.vschema()
          .table(table)
          .flatMap(VSchemaTable::autoIncrement)
          .ifPresent(ai -> m.put(table, ai));
    }
    return m;
  }

  private static long maxId(Connection c, String keyspace, String table, String column)
      throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT MAX(`"
                    + column.replace("`", "``")
                    + "`) FROM `"
                    + keyspace
                    + "`.`"
                    + table.replace("`", "``")
                    + "`")) {
      rs.next();
      return rs.getLong(1); // 0 for an empty table
    }
  }

  /** The table's AUTO_INCREMENT column, if it has one. */
  static Optional<String> autoIncrementColumn(Connection c, String keyspace, String table)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ?"
                + " AND TABLE_NAME = ? AND EXTRA LIKE '%auto_increment%'")) {
      ps.setString(1, keyspace);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** The shards with a connection each, for {@link #raiseAbove}. */
  static Map<ShardServer, Connection> connections(
      List<ShardServer> owners, ServerFence.Connections conns) {
    Map<ShardServer, Connection> m = new LinkedHashMap<>();
    owners.forEach(o -> m.put(o, conns.of(o)));
    return m;
  }
}
