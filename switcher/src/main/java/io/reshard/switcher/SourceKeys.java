package io.reshard.switcher;

import io.reshard.core.rows.KeysetSql;
import io.reshard.core.rows.RowKey;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.ColumnVindex;
import io.reshard.router.VSchemaTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Finds primary keys that two sources of one workflow both hold, where a target receives rows of
 * both (DESIGN 4.9, 6): the target holds each key once, so the copy would keep only one of the two
 * rows. Checked at create, before anything is written; the diff still stops on a collision that
 * writes make later.
 *
 * <p>A table whose primary key holds every column of its primary vindex needs no check: equal keys
 * mean equal sharding values, so one keyspace id, and create has checked that every row lies in its
 * own shard's range. For the others, each pair of sources with a common target is checked by
 * reading the first source's keys in key order, a chunk at a time, and asking the second server
 * which of them it holds, by equality in the key columns' own collations and types (as the target's
 * primary key counts them). Memory stays one chunk whatever the table's size; the time is one read
 * of the first source's keys and one index lookup per key on the second. Stateless.
 */
final class SourceKeys {
  /** Keys read from the first source per round trip, and asked of the second in one query. */
  static final int CHUNK = 500;

  private SourceKeys() {}

  /**
   * Adds a reason per table and pair of sources that hold a key twice.
   *
   * @throws SQLException if a source cannot be read
   */
  static void reasons(WorkflowSpec spec, RefusalReasons reasons) throws SQLException {
    List<ShardServer> sources = spec.sources();
    for (int i = 0; i < sources.size(); i++) {
      for (int j = i + 1; j < sources.size(); j++) {
        ShardServer a = sources.get(i);
        ShardServer b = sources.get(j);
        List<ShardServer> common = commonTargets(spec, a, b);
        if (common.isEmpty()) {
          continue;
        }
        try (Connection ca = VSchemaCheck.connect(a);
            Connection cb = VSchemaCheck.connect(b)) {
          for (String table : spec.tables()) {
            Optional<TableSchema> schema = TableSchemaReader.read(ca, spec.keyspace(), table);
            if (schema.isPresent() && checkable(spec, schema.get(), cb)) {
              Found f = both(ca, cb, schema.get());
              if (f.count > 0) {
                reasons.add(reason(table, a, b, common, f));
              }
            }
          }
        }
      }
    }
  }

  /** The targets that receive rows of both {@code a} and {@code b}. */
  private static List<ShardServer> commonTargets(WorkflowSpec spec, ShardServer a, ShardServer b) {
    List<ShardServer> of = spec.targetsOverlapping(b);
    return spec.targetsOverlapping(a).stream().filter(of::contains).toList();
  }

  /**
   * True if the table's keys must be compared: it is on the second server too, it has a primary key
   * the keyset statements can bind (other keys are refused by their own reasons) and that key does
   * not hold the primary vindex's columns.
   */
  private static boolean checkable(WorkflowSpec spec, TableSchema table, Connection other)
      throws SQLException {
    if (table.keyColumns().isEmpty()
        || !TableSchemaReader.exists(other, spec.keyspace(), table.table())
        || keyHoldsTheVindex(spec, table)) {
      return false;
    }
    try {
      KeysetSql.equalTo(table.keyColumns());
      KeysetSql.after(table.keyColumns());
      return true;
    } catch (IllegalStateException refusedKey) {
      return false;
    }
  }

  /** True if every column of the table's primary vindex is a primary-key column. */
  static boolean keyHoldsTheVindex(WorkflowSpec spec, TableSchema table) {
    Optional<ColumnVindex> vindex =
        spec.vschema().table(table.table()).flatMap(VSchemaTable::primaryVindex);
    if (vindex.isEmpty()) {
      return false;
    }
    Set<String> key =
        table.keyColumns().stream()
            .map(c -> c.name().toLowerCase(Locale.ROOT))
            .collect(Collectors.toSet());
    return vindex.get().columns().stream().allMatch(c -> key.contains(c.toLowerCase(Locale.ROOT)));
  }

  /** The keys of {@code table} that both servers hold: counted, the first few kept. */
  static Found both(Connection a, Connection b, TableSchema table) throws SQLException {
    List<ColumnDef> key = table.keyColumns();
    String select = "SELECT " + KeysetSql.selectList(key) + " FROM " + table.quotedName();
    KeysetSql.Predicate after = KeysetSql.after(key);
    KeysetSql.Predicate equal = KeysetSql.equalTo(key);
    Found found = new Found(key);
    RowKey last = null;
    while (true) {
      List<RowKey> chunk = new ArrayList<>();
      try (PreparedStatement ps =
          a.prepareStatement(
              select
                  + (last == null ? "" : " WHERE " + after.sql())
                  + KeysetSql.orderBy(key)
                  + " LIMIT "
                  + CHUNK)) {
        if (last != null) {
          after.bind(ps, 1, last);
        }
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            chunk.add(read(rs, key.size()));
          }
        }
      }
      if (chunk.isEmpty()) {
        return found;
      }
      alsoOn(b, select, equal, chunk).forEach(found::add);
      if (chunk.size() < CHUNK) {
        return found;
      }
      last = chunk.get(chunk.size() - 1);
    }
  }

  /** The keys of {@code chunk} that the server behind {@code c} holds. */
  private static List<RowKey> alsoOn(
      Connection c, String select, KeysetSql.Predicate equal, List<RowKey> chunk)
      throws SQLException {
    String where =
        chunk.stream().map(k -> equal.sql()).collect(Collectors.joining(" OR ", " WHERE ", ""));
    List<RowKey> out = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(select + where)) {
      int next = 1;
      for (RowKey k : chunk) {
        next = equal.bind(ps, next, k);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(read(rs, chunk.get(0).size()));
        }
      }
    }
    return out;
  }

  private static RowKey read(ResultSet rs, int columns) throws SQLException {
    byte[][] v = new byte[columns][];
    for (int i = 0; i < columns; i++) {
      v[i] = rs.getBytes(i + 1);
    }
    return new RowKey(v);
  }

  private static String reason(
      String table, ShardServer a, ShardServer b, List<ShardServer> common, Found f) {
    return "table "
        + table
        + ": "
        + (f.count == 1 ? "1 primary key is" : f.count + " primary keys are")
        + " on both sources "
        + a.shard()
        + " and "
        + b.shard()
        + ", whose rows meet in target "
        + common.stream().map(ShardServer::shard).collect(Collectors.joining(", "))
        + " (as "
        + b.shard()
        + " holds them: "
        + f.keys()
        + "): a target holds each key once, so the copy would keep one row of each pair; give"
        + " those rows keys of their own first (e.g. ids from a sequence, docs/router.md"
        + " \"Sequences\"), or make the sharding column part of the primary key";
  }

  /** The keys found: their count and the first few, as reasons show them. */
  static final class Found {
    private final List<ColumnDef> key;
    long count;
    final List<String> shown = new ArrayList<>();

    Found(List<ColumnDef> key) {
      this.key = key;
    }

    void add(RowKey k) {
      count++;
      if (shown.size() < ShardingKeyScan.SHOWN_KEYS) {
        shown.add(ShardingKeyScan.keyText(key, k));
      }
    }

    String keys() {
      return String.join(", ", shown)
          + (count > shown.size() ? " and " + (count - shown.size()) + " more" : "");
    }
  }
}
