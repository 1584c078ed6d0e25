package io.reshard.switcher;

import io.reshard.core.schema.TableSchemaReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The rule for a workflow of several sources (a merge, a re-partition): every moved table has one
 * definition on all of them. The targets' tables are created from one source's definition, and
 * every source's rows and changes are written into them, so a column, type, key or charset that
 * differs between sources would change or refuse another source's rows. The table's next
 * AUTO_INCREMENT value is not part of the comparison. Stateless.
 */
final class SourceTables {
  private static final Pattern NEXT_AUTO_INCREMENT = Pattern.compile(" AUTO_INCREMENT=\\d+");

  private SourceTables() {}

  /**
   * One reason per moved table whose definition is not the same on every source, naming the first
   * source and each one that differs; empty if they agree (a table missing on a source is the
   * vschema check's reason, not this one's).
   */
  static List<String> differences(WorkflowSpec spec) throws SQLException {
    Map<String, Map<String, String>> byTable = new LinkedHashMap<>();
    for (ShardServer s : spec.sources()) {
      try (Connection c = ServerFence.connect(s)) {
        for (String table : spec.tables()) {
          if (TableSchemaReader.exists(c, spec.keyspace(), table)) {
            byTable
                .computeIfAbsent(table, t -> new LinkedHashMap<>())
                .put(s.shard(), definition(c, spec.keyspace(), table));
          }
        }
      }
    }
    List<String> reasons = new ArrayList<>();
    byTable.forEach(
        (table, defs) -> {
          List<String> shards = new ArrayList<>(defs.keySet());
          String first = shards.get(0);
          List<String> differ =
              shards.stream().filter(s -> !defs.get(s).equals(defs.get(first))).toList();
          if (!differ.isEmpty()) {
            String other = differ.get(0);
            reasons.add(
                "table "
                    + table
                    + " is not defined the same way on source "
                    + first
                    + " and on "
                    + String.join(", ", differ)
                    + " (SHOW CREATE TABLE differs: "
                    + firstDifference(defs.get(first), defs.get(other), first, other)
                    + "); the targets get one definition for the rows of every source: make the"
                    + " definitions equal (ALTER TABLE) first");
          }
        });
    return reasons;
  }

  /** The table's {@code SHOW CREATE TABLE}, without its next AUTO_INCREMENT value. */
  static String definition(Connection c, String keyspace, String table) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW CREATE TABLE `" + keyspace + "`.`" + table + "`")) {
      rs.next();
      return normalized(rs.getString(2));
    }
  }

  /**
   * The first line in which two definitions differ, as {@code on A `x` int, on B `x` bigint}
   * (stripped; {@code (none)} where one has fewer lines).
   */
  static String firstDifference(String a, String b, String nameA, String nameB) {
    String[] la = a.split("\n");
    String[] lb = b.split("\n");
    for (int i = 0; i < Math.max(la.length, lb.length); i++) {
      String x = i < la.length ? la[i].strip() : "(none)";
      String y = i < lb.length ? lb[i].strip() : "(none)";
      if (!x.equals(y)) {
        return "on " + nameA + " " + x + ", on " + nameB + " " + y;
      }
    }
    return "they differ in white space only";
  }

  /** A definition without the table option that only says where its ids go on. */
  static String normalized(String createTable) {
    return NEXT_AUTO_INCREMENT.matcher(createTable).replaceAll("");
  }
}
