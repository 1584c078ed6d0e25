package io.reshard.cdc;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * A table's columns in order and its primary key, as of one binlog event (capture) or one read of
 * {@code information_schema} (copy). Serialized as compact JSON in each data record's {@code
 * reshard.schema} header, so records describe themselves.
 *
 * <p>Immutable and thread-safe.
 *
 * @param database the database (keyspace) name
 * @param table the table name
 * @param columns every column, in table order, generated ones included
 * @param primaryKey the primary key's column names in key order; empty if the table has none
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
@JsonIgnoreProperties(ignoreUnknown = true)
public record TableSchema(
    @JsonProperty("db") String database,
    @JsonProperty("table") String table,
    @JsonProperty("columns") List<ColumnDef> columns,
    @JsonProperty("pk") List<String> primaryKey) {

  /** Validates and copies the lists. */
  public TableSchema {
    Objects.requireNonNull(database, "database");
    Objects.requireNonNull(table, "table");
    columns = List.copyOf(columns);
    primaryKey = primaryKey == null ? List.of() : List.copyOf(primaryKey);
  }

  /** {@code database.table}, the Debezium data collection name. */
  @JsonIgnore
  public String qualifiedName() {
    return database + "." + table;
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
}
