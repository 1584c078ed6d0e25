package io.reshard.differ.compare;

import io.reshard.copier.rows.ColumnDef;
import io.reshard.copier.rows.ColumnKind;
import io.reshard.copier.rows.KeysetSql;
import io.reshard.copier.rows.Row;
import io.reshard.copier.rows.RowKey;
import io.reshard.copier.rows.TableSchema;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads one side's rows of a key range of a table, in the server's key order, each with its
 * collation equality key ({@link KeyedRow}).
 *
 * <p>The statement is {@code SELECT <exact values>[, <sort keys>] FROM t [WHERE key > ?] [AND key
 * <= ?] ORDER BY key LIMIT n}. Only character key columns need a second expression ({@code
 * WEIGHT_STRING}): for every other key kind the equality key is the value's exact bytes, which are
 * already in the row, so nothing is read twice.
 *
 * <p>Immutable and thread-safe; each call uses only the connection it is given.
 */
final class SideReader {
  private final TableSchema table;
  private final int columns;
  private final int limit;

  /** Per key column: its index in the row, or -1 - (its index among the extra sort keys). */
  private final int[] keySource;

  private final String[] sql = new String[4];

  SideReader(TableSchema table, int limit) {
    this.table = table;
    this.columns = table.copyColumns().size();
    this.limit = limit;
    List<ColumnDef> keys = table.keyColumns();
    keySource = new int[keys.size()];
    List<String> extra = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (keys.get(i).kind() == ColumnKind.CHARACTER) {
        keySource[i] = -1 - extra.size();
        extra.add(keys.get(i).equalityKeyExpression());
      } else {
        keySource[i] = table.keyIndex(i);
      }
    }
    String select =
        "SELECT "
            + KeysetSql.selectList(table.copyColumns())
            + extra.stream().map(e -> ", " + e).collect(Collectors.joining())
            + " FROM "
            + table.qualifiedName();
    for (int v = 0; v < 4; v++) {
      List<String> where = new ArrayList<>();
      if ((v & 1) != 0) {
        where.add(KeysetSql.after(keys).sql());
      }
      if ((v & 2) != 0) {
        where.add(KeysetSql.atMost(keys).sql());
      }
      sql[v] =
          select
              + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
              + KeysetSql.orderBy(keys)
              + " LIMIT "
              + limit;
    }
  }

  /** The chunk size: a read returns at most this many rows. */
  int limit() {
    return limit;
  }

  /**
   * Rows with keys in {@code (after, upTo]}, in key order, at most {@link #limit()}.
   *
   * @param after the exclusive lower bound, or null for the first key
   * @param upTo the inclusive upper bound, or null for the last key
   */
  List<KeyedRow> read(Connection c, RowKey after, RowKey upTo) throws SQLException {
    int variant = (after != null ? 1 : 0) | (upTo != null ? 2 : 0);
    List<KeyedRow> out = new ArrayList<>(Math.min(limit, 65_536));
    try (PreparedStatement ps = c.prepareStatement(sql[variant])) {
      int p = 1;
      if (after != null) {
        p = KeysetSql.after(table.keyColumns()).bind(ps, p, after);
      }
      if (upTo != null) {
        KeysetSql.atMost(table.keyColumns()).bind(ps, p, upTo);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Row row = Row.read(rs, columns);
          out.add(new KeyedRow(row, equalityKey(rs, row)));
        }
      }
    }
    return out;
  }

  /**
   * The equality key: one key column's bytes as they are, several each prefixed by its length, held
   * one char per byte.
   */
  private String equalityKey(ResultSet rs, Row row) throws SQLException {
    if (keySource.length == 1) {
      return latin1(part(rs, row, 0));
    }
    StringBuilder key = new StringBuilder();
    for (int i = 0; i < keySource.length; i++) {
      byte[] b = part(rs, row, i);
      key.append((char) (b.length >>> 16)).append((char) (b.length & 0xffff));
      key.append(latin1(b));
    }
    return key.toString();
  }

  private byte[] part(ResultSet rs, Row row, int keyColumn) throws SQLException {
    int s = keySource[keyColumn];
    return s >= 0 ? row.value(s) : rs.getBytes(columns + 1 + (-1 - s));
  }

  private static String latin1(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }
}
