package io.reshard.differ.compare;

import io.reshard.core.rows.KeysetSql;
import io.reshard.core.rows.Row;
import io.reshard.core.rows.RowKey;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Reads one side's rows of a key range of a table, in the server's key order, each with its
 * collation equality key ({@link KeyedRow}).
 *
 * <p>The statement is {@code SELECT <exact values>[, <sort keys>] FROM t [WHERE key > ?] [AND key
 * <= ?] ORDER BY key LIMIT n}, on a connection set up by {@link #prepare}; the exact values are
 * those of {@link #valueExpression}, byte for byte the copier's. Only character key columns need a
 * second expression ({@code WEIGHT_STRING}): for every other key kind the equality key is the
 * value's exact bytes, which are already in the row, so nothing is read twice.
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

  /**
   * Rows the driver takes from the socket at a time while a chunk is read: the rows are decoded
   * while the server is still sending the rest of the chunk, instead of after the whole chunk has
   * arrived (the default, which left the server idle while the client decoded). The chunk is still
   * read to its end before the next statement on the connection, and held whole.
   */
  static final int FETCH_ROWS = 1000;

  SideReader(TableSchema table, int limit) {
    this.table = table;
    this.columns = table.copyColumns().size();
    this.limit = limit;
    List<ColumnDef> keys = table.keyColumns();
    keySource = new int[keys.size()];
    List<String> extra = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (keys.get(i).isCharacter()) {
        keySource[i] = -1 - extra.size();
        extra.add(ValueCodec.equalityKeyExpression(keys.get(i)));
      } else {
        keySource[i] = table.keyIndex(i);
      }
    }
    String select =
        "SELECT "
            + table.copyColumns().stream()
                .map(SideReader::valueExpression)
                .collect(Collectors.joining(", "))
            + extra.stream().map(e -> ", " + e).collect(Collectors.joining())
            + " FROM "
            + table.quotedName();
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

  /**
   * Sets what {@link #read} needs on a connection: {@code character_set_results = NULL}, so that
   * the server sends a character column's stored bytes without converting them (as {@code CAST(..
   * AS BINARY)} would give them). Once per connection, before its first read.
   */
  static void prepare(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("SET SESSION character_set_results = NULL");
    }
  }

  /**
   * The select-list expression of a column's exact value: the column itself for a character or
   * binary string (its stored bytes: the session sends results unconverted, see {@link #prepare}),
   * which costs the server less than a {@code CAST}; the copier's {@link
   * ValueCodec#exactSelectExpression} for every other kind (the driver hands over raw bytes only
   * for string and binary types). Either way the bytes are the copier's: {@code SideReaderTypesIT}
   * checks it for every column type.
   */
  static String valueExpression(ColumnDef c) {
    return c.isCharacter() || c.isBinaryString() ? c.quoted() : ValueCodec.exactSelectExpression(c);
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
      ps.setFetchSize(FETCH_ROWS);
      int p = 1;
      if (after != null) {
        p = KeysetSql.after(table.keyColumns()).bind(ps, p, after);
      }
      if (upTo != null) {
        KeysetSql.atMost(table.keyColumns()).bind(ps, p, upTo);
      }
      try (ResultSet rs = ps.executeQuery()) {
        readRows(rs, out);
      }
    }
    return out;
  }

  /**
   * The row loop, apart from the statement's set-up: the loop is what the JIT compiles while a
   * chunk is read, and with no branch on the chunk's bounds in it, a compiled loop stays valid for
   * every kind of chunk instead of being compiled again when a chunk with other bounds comes.
   */
  private void readRows(ResultSet rs, List<KeyedRow> out) throws SQLException {
    while (rs.next()) {
      Row row = Row.read(rs, columns);
      out.add(new KeyedRow(row, equalityKey(rs, row)));
    }
  }

  /**
   * The equality key: one key column's bytes as they are (a non-character column's value is the
   * row's own array), several each prefixed by its length in 4 bytes.
   */
  private byte[] equalityKey(ResultSet rs, Row row) throws SQLException {
    if (keySource.length == 1) {
      return part(rs, row, 0);
    }
    byte[][] parts = new byte[keySource.length][];
    int n = 0;
    for (int i = 0; i < parts.length; i++) {
      parts[i] = part(rs, row, i);
      n += 4 + parts[i].length;
    }
    ByteBuffer key = ByteBuffer.allocate(n);
    for (byte[] b : parts) {
      key.putInt(b.length).put(b);
    }
    return key.array();
  }

  private byte[] part(ResultSet rs, Row row, int keyColumn) throws SQLException {
    int s = keySource[keyColumn];
    return s >= 0 ? row.value(s) : rs.getBytes(columns + 1 + (-1 - s));
  }
}
