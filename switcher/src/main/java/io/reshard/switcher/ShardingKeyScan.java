package io.reshard.switcher;

import io.reshard.core.placement.ShardingKey;
import io.reshard.core.rows.Row;
import io.reshard.core.rows.RowKey;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.UnmappableValueException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Finds a table's existing rows that cannot be placed (DESIGN 6): a NULL sharding key, one its
 * primary vindex cannot map, or (given the shard's range) one whose keyspace id lies outside the
 * shard that holds it: routers never read such a row there, and a reshard of the shard copies only
 * the rows of its range, so it would stay behind on the retired server. Each row's key is read as
 * the copier reads it (the column's exact text, {@link ValueCodec#exactSelectExpression}, on a
 * session with the pipeline's settings) and placed by the same {@link ShardingKey}, so a row passes
 * here exactly when the copy could place it. The rows found are counted and a few of their primary
 * keys shown.
 *
 * <p>One pass over the table's primary key and sharding column, streamed (memory stays bounded
 * whatever the table's size); on a large table it takes as long as reading those columns does.
 * Stateless.
 */
final class ShardingKeyScan {
  /** How many primary keys a reason shows, so one message stays readable. */
  static final int SHOWN_KEYS = 5;

  /** Rows fetched per round trip while streaming. */
  private static final int FETCH_ROWS = 1000;

  private ShardingKeyScan() {}

  /**
   * The reasons the table's rows give: one for NULL keys, one for keys the vindex cannot map.
   *
   * @param c a connection with the pipeline's session settings to the server holding the table
   * @param key the table's placement (its primary vindex fits its column: {@link VindexFit})
   * @return empty if every row can be placed
   * @throws SQLException if the table cannot be read
   */
  static List<String> problems(Connection c, TableSchema table, ShardingKey key)
      throws SQLException {
    return problems(c, table, key, null);
  }

  /**
   * As {@link #problems(Connection, TableSchema, ShardingKey)}, and one reason for rows whose
   * keyspace id is outside {@code range} (null: not checked), the shard the server holds.
   */
  static List<String> problems(Connection c, TableSchema table, ShardingKey key, KeyRange range)
      throws SQLException {
    Found nulls = new Found();
    Found unmappable = new Found();
    Found outside = new Found();
    List<ColumnDef> pk = table.keyColumns();
    int keyIndex = table.copyIndexOf(key.column());
    ColumnDef keyColumn = table.copyColumns().get(keyIndex);
    try (Statement st =
        c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      st.setFetchSize(FETCH_ROWS);
      try (ResultSet rs = st.executeQuery(select(table, pk, keyColumn))) {
        byte[][] values = new byte[table.copyColumns().size()][];
        while (rs.next()) {
          values[keyIndex] = rs.getBytes(pk.size() + 1);
          try {
            KeyspaceId ksid = key.keyspaceId(new Row(values));
            if (range != null && !range.contains(ksid)) {
              outside.add(primaryKey(rs, pk) + " (keyspace id " + ksid + ")", null);
            }
          } catch (UnmappableValueException e) {
            (values[keyIndex] == null ? nulls : unmappable).add(primaryKey(rs, pk), e);
          }
        }
      }
    }
    List<String> problems = new ArrayList<>();
    String where = "table " + table.table() + ": ";
    if (nulls.count > 0) {
      problems.add(
          where
              + nulls.rows()
              + " a NULL sharding key "
              + key.column()
              + nulls.keys()
              + ": a NULL has no keyspace id, so the copy cannot place them; give each a value"
              + " (or delete it) first, and make the column NOT NULL");
    }
    if (unmappable.count > 0) {
      problems.add(
          where
              + unmappable.rows()
              + " a sharding key "
              + key.column()
              + " that its vindex cannot map"
              + unmappable.keys()
              + ", e.g. "
              + unmappable.first.getMessage()
              + "; change those values, or the vindex, first");
    }
    if (outside.count > 0) {
      problems.add(
          where
              + outside.rows()
              + " a keyspace id outside this shard's range "
              + range.name()
              + outside.keys()
              + ": routers read and write them elsewhere, and a reshard of this shard would leave"
              + " them behind; move each to the shard that owns it (`reshard keyspace-id --vindex"
              + " TYPE --shards=... VALUE` names it), or delete it, first");
    }
    return problems;
  }

  private static String select(TableSchema table, List<ColumnDef> pk, ColumnDef keyColumn) {
    StringBuilder sql = new StringBuilder("SELECT ");
    for (ColumnDef k : pk) {
      sql.append(ValueCodec.exactSelectExpression(k)).append(", ");
    }
    return sql.append(ValueCodec.exactSelectExpression(keyColumn))
        .append(" FROM ")
        .append(table.quotedName())
        .toString();
  }

  /** The primary key of the current row as {@code id=5} or {@code (a=1, b=x)}. */
  private static String primaryKey(ResultSet rs, List<ColumnDef> pk) throws SQLException {
    byte[][] values = new byte[pk.size()][];
    for (int i = 0; i < pk.size(); i++) {
      values[i] = rs.getBytes(i + 1);
    }
    return keyText(pk, new RowKey(values));
  }

  /** A primary key as reasons show it: {@code id=5} or {@code (a=1, b=x)}. */
  static String keyText(List<ColumnDef> pk, RowKey key) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < pk.size(); i++) {
      parts.add(pk.get(i).name() + "=" + text(pk.get(i), key.value(i)));
    }
    return parts.size() == 1 ? parts.get(0) : "(" + String.join(", ", parts) + ")";
  }

  private static String text(ColumnDef column, byte[] value) {
    if (value == null) {
      return "NULL";
    }
    return column.kind() == ColumnKind.BYTES || column.kind() == ColumnKind.BIT
        ? "0x" + HexFormat.of().formatHex(value)
        : new String(value, StandardCharsets.UTF_8);
  }

  /** The rows of one kind found: their count, the first few keys and the first error. */
  private static final class Found {
    long count;
    final List<String> keys = new ArrayList<>();
    UnmappableValueException first;

    void add(String primaryKey, UnmappableValueException e) {
      count++;
      if (keys.size() < SHOWN_KEYS) {
        keys.add(primaryKey);
      }
      if (first == null) {
        first = e;
      }
    }

    String rows() {
      return count == 1 ? "1 row has" : count + " rows have";
    }

    String keys() {
      String shown = String.join(", ", keys);
      return keys.isEmpty()
          ? ""
          : " (primary key "
              + shown
              + (count > keys.size() ? " and " + (count - keys.size()) + " more" : "")
              + ")";
    }
  }
}
