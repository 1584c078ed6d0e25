package io.reshard.cdc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Reads a table's {@link TableSchema} from {@code information_schema}, the JDBC-side counterpart of
 * the binlog's TABLE_MAP metadata: the copier and the differ use it to read rows in the value
 * representation capture publishes ({@link ValueCodec}), and capture uses it to mark generated
 * columns, which TABLE_MAP events do not flag.
 *
 * <p>Stateless; thread-safe as long as each thread uses its own connection.
 */
public final class TableSchemas {

  private TableSchemas() {}

  /**
   * The table's current definition.
   *
   * @return empty if the table does not exist (or the user cannot see it)
   * @throws SQLException from the driver
   * @throws IllegalArgumentException if a column has a type this module does not know
   */
  public static Optional<TableSchema> read(Connection c, String database, String table)
      throws SQLException {
    List<ColumnDef> columns = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME,"
                + " CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE,"
                + " DATETIME_PRECISION, IS_NULLABLE, IS_GENERATED"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " ORDER BY ORDINAL_POSITION")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(column(rs));
        }
      }
    }
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new TableSchema(database, table, columns, primaryKey(c, database, table)));
  }

  private static List<String> primaryKey(Connection c, String database, String table)
      throws SQLException {
    List<String> pk = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ?"
                + " AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY' ORDER BY SEQ_IN_INDEX")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pk.add(rs.getString(1));
        }
      }
    }
    return pk;
  }

  private static ColumnDef column(ResultSet rs) throws SQLException {
    String name = rs.getString("COLUMN_NAME");
    String dataType = rs.getString("DATA_TYPE").toLowerCase(Locale.ROOT);
    String columnType = rs.getString("COLUMN_TYPE");
    String charset = rs.getString("CHARACTER_SET_NAME");
    long octets = rs.getLong("CHARACTER_OCTET_LENGTH");
    int precision = rs.getInt("NUMERIC_PRECISION");
    int scale = rs.getInt("NUMERIC_SCALE");
    int fraction = rs.getInt("DATETIME_PRECISION");
    boolean nullable = "YES".equals(rs.getString("IS_NULLABLE"));
    boolean generated = "ALWAYS".equals(rs.getString("IS_GENERATED"));
    boolean unsigned = columnType.toLowerCase(Locale.ROOT).contains("unsigned");
    ColumnKind kind = kindOf(dataType, name);
    long length = 0;
    boolean fixed = false;
    List<String> labels = List.of();
    switch (kind) {
      case TEXT, BYTES -> {
        length = octets;
        fixed = dataType.equals("char") || dataType.equals("binary");
        charset = kind == ColumnKind.BYTES ? MariaDbCharsets.BINARY : charset;
      }
      case BIT -> length = precision;
      case DATETIME, TIMESTAMP, TIME -> scale = fraction;
      case ENUM, SET -> labels = labels(columnType);
      default -> {
        // numbers and dates need nothing more
      }
    }
    if (kind != ColumnKind.DECIMAL
        && kind != ColumnKind.DATETIME
        && kind != ColumnKind.TIMESTAMP
        && kind != ColumnKind.TIME) {
      scale = 0;
    }
    if (kind != ColumnKind.DECIMAL) {
      precision = 0;
    }
    if (kind != ColumnKind.INTEGER
        && kind != ColumnKind.DECIMAL
        && kind != ColumnKind.FLOAT
        && kind != ColumnKind.DOUBLE) {
      unsigned = false;
    }
    return new ColumnDef(
        name, kind, dataType, unsigned, length, fixed, precision, scale, charset, labels, nullable,
        generated);
  }

  /** The kind of an {@code information_schema} DATA_TYPE. */
  static ColumnKind kindOf(String dataType, String column) {
    return switch (dataType) {
      case "tinyint", "smallint", "mediumint", "int", "bigint" -> ColumnKind.INTEGER;
      case "decimal" -> ColumnKind.DECIMAL;
      case "float" -> ColumnKind.FLOAT;
      case "double" -> ColumnKind.DOUBLE;
      case "bit" -> ColumnKind.BIT;
      case "date" -> ColumnKind.DATE;
      case "datetime" -> ColumnKind.DATETIME;
      case "timestamp" -> ColumnKind.TIMESTAMP;
      case "time" -> ColumnKind.TIME;
      case "year" -> ColumnKind.YEAR;
      case "char", "varchar", "tinytext", "text", "mediumtext", "longtext" -> ColumnKind.TEXT;
      case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" -> ColumnKind.BYTES;
      case "geometry",
          "point",
          "linestring",
          "polygon",
          "multipoint",
          "multilinestring",
          "multipolygon",
          "geometrycollection" ->
          ColumnKind.BYTES;
      case "enum" -> ColumnKind.ENUM;
      case "set" -> ColumnKind.SET;
      case "json" -> ColumnKind.JSON;
      default ->
          throw new IllegalArgumentException(
              "column " + column + " has type " + dataType + ", which cdc cannot represent");
    };
  }

  /** The labels of {@code enum('a','b''c')} or {@code set(...)}, unescaped, in order. */
  static List<String> labels(String columnType) {
    List<String> out = new ArrayList<>();
    int i = columnType.indexOf('(') + 1;
    while (i > 0 && i < columnType.length()) {
      if (columnType.charAt(i) != '\'') {
        i++;
        continue;
      }
      StringBuilder label = new StringBuilder();
      i++;
      while (i < columnType.length()) {
        char ch = columnType.charAt(i);
        if (ch == '\'' && i + 1 < columnType.length() && columnType.charAt(i + 1) == '\'') {
          label.append('\'');
          i += 2;
        } else if (ch == '\'') {
          i++;
          break;
        } else if (ch == '\\' && i + 1 < columnType.length()) {
          label.append(columnType.charAt(i + 1));
          i += 2;
        } else {
          label.append(ch);
          i++;
        }
      }
      out.add(label.toString());
    }
    return out;
  }
}
