package io.reshard.copier.rows;

import io.reshard.copier.CopyRefusedException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A moved table as the source server defines it: its columns in order, the columns the pipeline
 * copies (all but generated ones), its primary key, and its estimated row count.
 *
 * <p>{@link #load} refuses (DESIGN 6) a table that does not exist, has no primary key, is not
 * InnoDB (the copy's row locks are what order it against later changes), has a cascading foreign
 * key (cascaded changes never reach the binlog), a key column of a kind that cannot be ordered in
 * SQL, or a prefix key part.
 *
 * <p>Immutable and thread-safe.
 */
public final class TableSchema {
  private final String database;
  private final String table;
  private final List<ColumnDef> copyColumns;
  private final List<ColumnDef> keyColumns;
  private final int[] keyIndexes;
  private final long estimatedRows;

  /**
   * @param database the database (the keyspace's name on every shard)
   * @param table the table
   * @param copyColumns the non-generated columns in table order
   * @param keyColumns the primary-key columns in key order; each one of {@code copyColumns}
   * @param estimatedRows {@code information_schema.TABLES.TABLE_ROWS}, an estimate
   */
  public TableSchema(
      String database,
      String table,
      List<ColumnDef> copyColumns,
      List<ColumnDef> keyColumns,
      long estimatedRows) {
    this.database = Objects.requireNonNull(database, "database");
    this.table = Objects.requireNonNull(table, "table");
    this.copyColumns = List.copyOf(copyColumns);
    this.keyColumns = List.copyOf(keyColumns);
    this.estimatedRows = estimatedRows;
    if (this.keyColumns.isEmpty()) {
      throw new IllegalArgumentException("table " + table + " has no key columns");
    }
    keyIndexes = new int[this.keyColumns.size()];
    for (int i = 0; i < keyIndexes.length; i++) {
      keyIndexes[i] = this.copyColumns.indexOf(this.keyColumns.get(i));
      if (keyIndexes[i] < 0) {
        throw new IllegalArgumentException(
            "key column " + this.keyColumns.get(i).name() + " is not a copied column of " + table);
      }
    }
  }

  /**
   * Reads a table's definition from {@code information_schema}.
   *
   * @param c a connection to the server holding the table (the source shard)
   * @throws CopyRefusedException naming the table and the reason, if it cannot be moved
   * @throws SQLException if the server cannot be read
   */
  public static TableSchema load(Connection c, String database, String table) throws SQLException {
    String name = database + "." + table;
    String engine = null;
    long rows = 0;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT ENGINE, TABLE_ROWS FROM information_schema.TABLES"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new CopyRefusedException("table " + name + " does not exist on the source");
        }
        engine = rs.getString(1);
        rows = rs.getLong(2);
      }
    }
    if (!"InnoDB".equalsIgnoreCase(engine)) {
      throw new CopyRefusedException(
          "table "
              + name
              + " uses engine "
              + engine
              + ": only InnoDB tables can be moved (the copy's row locks order it against later"
              + " changes); ALTER TABLE ... ENGINE=InnoDB first");
    }
    refuseCascadingForeignKeys(c, database, table);
    List<ColumnDef> all = columns(c, database, table);
    List<ColumnDef> copy = all.stream().filter(col -> !col.generated()).toList();
    List<ColumnDef> key = primaryKey(c, database, table, copy);
    return new TableSchema(database, table, copy, key, Math.max(0, rows));
  }

  /** The database. */
  public String database() {
    return database;
  }

  /** The table name. */
  public String table() {
    return table;
  }

  /** {@code `database`.`table`}, quoted. */
  public String qualifiedName() {
    return ColumnDef.quote(database) + "." + ColumnDef.quote(table);
  }

  /** The columns the pipeline reads, writes and compares: every non-generated one, in order. */
  public List<ColumnDef> copyColumns() {
    return copyColumns;
  }

  /** The primary-key columns in key order. */
  public List<ColumnDef> keyColumns() {
    return keyColumns;
  }

  /** The position of key column {@code i} among {@link #copyColumns()}. */
  public int keyIndex(int i) {
    return keyIndexes[i];
  }

  /** The position of the named column among {@link #copyColumns()}, or -1. */
  public int indexOf(String column) {
    for (int i = 0; i < copyColumns.size(); i++) {
      if (copyColumns.get(i).name().equalsIgnoreCase(column)) {
        return i;
      }
    }
    return -1;
  }

  /** The names of the key columns, in key order. */
  public List<String> keyNames() {
    return keyColumns.stream().map(ColumnDef::name).toList();
  }

  /** The estimated row count ({@code TABLE_ROWS}, approximate for InnoDB), at load time. */
  public long estimatedRows() {
    return estimatedRows;
  }

  /** The key of a row of this table: its key columns' values. */
  public RowKey keyOf(Row row) {
    byte[][] k = new byte[keyIndexes.length][];
    for (int i = 0; i < k.length; i++) {
      k[i] = row.value(keyIndexes[i]);
    }
    return new RowKey(k);
  }

  @Override
  public String toString() {
    return database + "." + table + keyNames();
  }

  private static void refuseCascadingForeignKeys(Connection c, String database, String table)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT CONSTRAINT_NAME, DELETE_RULE, UPDATE_RULE"
                + " FROM information_schema.REFERENTIAL_CONSTRAINTS"
                + " WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND (DELETE_RULE IN ('CASCADE', 'SET NULL')"
                + " OR UPDATE_RULE IN ('CASCADE', 'SET NULL'))")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          throw new CopyRefusedException(
              "table "
                  + database
                  + "."
                  + table
                  + " has foreign key "
                  + rs.getString(1)
                  + " with ON DELETE "
                  + rs.getString(2)
                  + " / ON UPDATE "
                  + rs.getString(3)
                  + ": cascaded changes never reach the binlog, so the targets would miss them;"
                  + " make the foreign key RESTRICT or NO ACTION first");
        }
      }
    }
  }

  private static List<ColumnDef> columns(Connection c, String database, String table)
      throws SQLException {
    List<ColumnDef> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME,"
                + " CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, NUMERIC_SCALE,"
                + " DATETIME_PRECISION, IS_GENERATED"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " ORDER BY ORDINAL_POSITION")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(
              new ColumnDef(
                  rs.getString(1),
                  ColumnKind.of(rs.getString(2), rs.getString(3)),
                  rs.getString(3),
                  rs.getString(4),
                  rs.getString(5),
                  rs.getLong(6),
                  rs.getInt(7),
                  rs.getInt(8),
                  rs.getInt(9),
                  !"NEVER".equalsIgnoreCase(rs.getString(10))));
        }
      }
    }
    return out;
  }

  private static List<ColumnDef> primaryKey(
      Connection c, String database, String table, List<ColumnDef> copy) throws SQLException {
    List<ColumnDef> key = new ArrayList<>();
    String name = database + "." + table;
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY'"
                + " ORDER BY SEQ_IN_INDEX")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String column = rs.getString(1);
          if (rs.getObject(2) != null) {
            throw new CopyRefusedException(
                "table " + name + " has a prefix primary-key part on " + column + ": unsupported");
          }
          ColumnDef def =
              copy.stream()
                  .filter(col -> col.name().equals(column))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          new CopyRefusedException(
                              "table "
                                  + name
                                  + " has generated column "
                                  + column
                                  + " in its primary key: unsupported (generated columns are"
                                  + " never written)"));
          if (!def.kind().canBeKey()) {
            throw new CopyRefusedException(
                "table "
                    + name
                    + " has primary-key column "
                    + column
                    + " of type "
                    + def.columnType()
                    + ", which cannot be ordered for a chunked copy; supported key types are"
                    + " integers, DECIMAL, CHAR/VARCHAR, BINARY/VARBINARY, DATE, DATETIME,"
                    + " TIMESTAMP, TIME and YEAR");
          }
          key.add(def);
        }
      }
    }
    if (key.isEmpty()) {
      throw new CopyRefusedException(
          "table " + name + " has no primary key: add one before moving it (DESIGN 6)");
    }
    return key;
  }
}
