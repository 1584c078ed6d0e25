package io.reshard.router;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs a statement with positional parameters and turns its rows into ordered maps. */
final class Rows {
  private Rows() {}

  /** Rows of {@code sql}, each a map from column label to {@code getObject} value, in order. */
  static List<Map<String, Object>> query(Connection c, String sql, Object... params)
      throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params);
        ResultSet rs = ps.executeQuery()) {
      ResultSetMetaData md = rs.getMetaData();
      int n = md.getColumnCount();
      List<Map<String, Object>> rows = new ArrayList<>();
      while (rs.next()) {
        Map<String, Object> row = new LinkedHashMap<>(n * 2);
        for (int i = 1; i <= n; i++) {
          row.put(md.getColumnLabel(i), rs.getObject(i));
        }
        rows.add(row);
      }
      return rows;
    }
  }

  /** Runs an insert, update or delete; returns the affected row count. */
  static int update(Connection c, String sql, Object... params) throws SQLException {
    try (PreparedStatement ps = prepare(c, sql, params)) {
      return ps.executeUpdate();
    }
  }

  private static PreparedStatement prepare(Connection c, String sql, Object... params)
      throws SQLException {
    PreparedStatement ps = c.prepareStatement(sql);
    for (int i = 0; i < params.length; i++) {
      ps.setObject(i + 1, params[i]);
    }
    return ps;
  }
}
