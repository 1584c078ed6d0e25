package io.reshard.core.schema;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.reshard.core.rows.Row;
import io.reshard.core.rows.RowKey;
import java.util.List;
import java.util.Objects;

/**
 * A table's columns in order and its primary key: the one model of a table, as of one binlog event
 * (capture) or one read of {@code information_schema} ({@link TableSchemaReader}, for copy, diff
 * and schema-change records). Serialized as compact JSON in each data record's {@code
 * reshard.schema} header, so records describe themselves.
 *
 * <p>The copier and the differ work on the {@linkplain #copyColumns() copy columns} (every column
 * but generated ones, which are never written or compared) and address a {@link Row}'s values by
 * their index there.
 *
 * <p>Immutable and thread-safe.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonIgnoreProperties(ignoreUnknown = true)
public final class TableSchema {
  private final String database;
  private final String table;
  private final List<ColumnDef> columns;
  private final List<String> primaryKey;
  private final List<ColumnDef> copyColumns;
  private final List<ColumnDef> keyColumns;
  private final int[] keyIndexes;
  private final int hash;

  /**
   * @param database the database (keyspace) name
   * @param table the table name
   * @param columns every column, in table order, generated ones included
   * @param primaryKey the primary key's column names in key order; empty if the table has none
   * @throws IllegalArgumentException if a key column is not one of the columns
   */
  @JsonCreator
  public TableSchema(
      @JsonProperty("db") String database,
      @JsonProperty("table") String table,
      @JsonProperty("columns") List<ColumnDef> columns,
      @JsonProperty("pk") List<String> primaryKey) {
    this.database = Objects.requireNonNull(database, "database");
    this.table = Objects.requireNonNull(table, "table");
    this.columns = List.copyOf(columns);
    this.primaryKey = primaryKey == null ? List.of() : List.copyOf(primaryKey);
    this.copyColumns = this.columns.stream().filter(c -> !c.generated()).toList();
    this.keyColumns = this.primaryKey.stream().map(this::column).toList();
    this.keyIndexes = new int[keyColumns.size()];
    for (int i = 0; i < keyIndexes.length; i++) {
      keyIndexes[i] = copyColumns.indexOf(keyColumns.get(i)); // -1: generated, see keyIndex
    }
    // computed once: appliers look their prepared statements up by schema on every record
    this.hash = Objects.hash(database, table, this.columns, this.primaryKey);
  }

  /** The database (the keyspace's name on every shard). */
  @JsonProperty("db")
  public String database() {
    return database;
  }

  /** The table name. */
  @JsonProperty("table")
  public String table() {
    return table;
  }

  /** Every column, in table order, generated ones included. */
  @JsonProperty("columns")
  public List<ColumnDef> columns() {
    return columns;
  }

  /** The primary key's column names in key order; empty if the table has none. */
  @JsonProperty("pk")
  public List<String> primaryKey() {
    return primaryKey;
  }

  /** {@code database.table}, the Debezium data collection name. */
  @JsonIgnore
  public String qualifiedName() {
    return database + "." + table;
  }

  /** {@code `database`.`table`}, quoted for SQL. */
  @JsonIgnore
  public String quotedName() {
    return ColumnDef.quote(database) + "." + ColumnDef.quote(table);
  }

  /**
   * The column named {@code name}.
   *
   * @throws IllegalArgumentException if there is none
   */
  public ColumnDef column(String name) {
    for (ColumnDef c : columns) {
      if (c.name().equals(name)) {
        return c;
      }
    }
    throw new IllegalArgumentException(qualifiedName() + " has no column " + name);
  }

  /** The index of column {@code name} in {@link #columns()}, or -1. */
  public int indexOf(String name) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(name)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The columns the copier and the differ read, write and compare: every non-generated one, in
   * table order.
   */
  @JsonIgnore
  public List<ColumnDef> copyColumns() {
    return copyColumns;
  }

  /** The primary-key columns in key order. */
  @JsonIgnore
  public List<ColumnDef> keyColumns() {
    return keyColumns;
  }

  /**
   * The position of key column {@code i} among {@link #copyColumns()}; -1 if it is generated (such
   * a table is refused for a move by {@link TableSchemaReader#readMoved}, so the copier and the
   * differ never meet it).
   */
  public int keyIndex(int i) {
    return keyIndexes[i];
  }

  /**
   * The position of the named column among {@link #copyColumns()}, or -1; names compare
   * case-insensitively, as the server's do.
   */
  public int copyIndexOf(String column) {
    for (int i = 0; i < copyColumns.size(); i++) {
      if (copyColumns.get(i).name().equalsIgnoreCase(column)) {
        return i;
      }
    }
    return -1;
  }

  /** The key of a row of this table (values in {@link #copyColumns()} order): its key values. */
  public RowKey keyOf(Row row) {
    byte[][] k = new byte[keyIndexes.length][];
    for (int i = 0; i < k.length; i++) {
      k[i] = row.value(keyIndexes[i]);
    }
    return new RowKey(k);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableSchema t
        && hash == t.hash
        && database.equals(t.database)
        && table.equals(t.table)
        && columns.equals(t.columns)
        && primaryKey.equals(t.primaryKey);
  }

  @Override
  public int hashCode() {
    return hash;
  }

  @Override
  public String toString() {
    return database + "." + table + primaryKey;
  }
}
