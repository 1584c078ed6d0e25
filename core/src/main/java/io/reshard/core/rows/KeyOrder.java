package io.reshard.core.rows;

import io.reshard.core.schema.TableSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

/**
 * Orders primary-key values the way a server orders them, by asking it: no client-side comparator
 * has to reproduce a collation. Used where keys from different places meet, e.g. to find the
 * smallest resume key among the targets.
 *
 * <p>Stateless and thread-safe; each call runs one query on the given connection.
 */
public final class KeyOrder {
  private KeyOrder() {}

  /**
   * Compares two keys of {@code table} on the server behind {@code c}.
   *
   * @return negative, zero or positive as {@code a} sorts before, equal to or after {@code b} in
   *     {@code ORDER BY} of the primary key
   */
  public static int compare(Connection c, TableSchema table, RowKey a, RowKey b)
      throws SQLException {
    KeysetSql.Predicate before = KeysetSql.firstBeforeSecond(table.keyColumns());
    try (PreparedStatement ps =
        c.prepareStatement("SELECT " + before.sql() + ", " + before.sql())) {
      int next = before.bind(ps, 1, a, b);
      before.bind(ps, next, b, a);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        if (rs.getInt(1) == 1) {
          return -1;
        }
        return rs.getInt(2) == 1 ? 1 : 0;
      }
    }
  }

  /**
   * The smallest of {@code keys} in the table's key order; null if a key is null (meaning "from the
   * start") or the list is empty.
   */
  public static RowKey min(Connection c, TableSchema table, List<RowKey> keys) throws SQLException {
    if (keys.isEmpty()) {
      return null;
    }
    RowKey min = keys.get(0);
    for (RowKey k : keys) {
      if (k == null) {
        return null;
      }
      if (min != k && compare(c, table, k, min) < 0) {
        min = k;
      }
    }
    return min;
  }
}
