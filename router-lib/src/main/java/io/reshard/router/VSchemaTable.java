package io.reshard.router;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a vschema's {@code "tables"}: its Vitess table type, its column vindexes and its
 * {@code auto_increment}. The first column vindex is the table's primary vindex: it places the rows
 * (Vitess's rule).
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the key under {@code "tables"}
 * @param type Vitess's table {@code "type"}: empty for an ordinary table, {@code reference} or
 *     {@code sequence} otherwise
 * @param columnVindexes the column vindexes in file order; empty for reference and sequence tables
 *     and in an unsharded keyspace
 * @param autoIncrement the column router-lib fills from a sequence on insert, if any
 */
public record VSchemaTable(
    String name,
    String type,
    List<ColumnVindex> columnVindexes,
    Optional<AutoIncrement> autoIncrement) {

  /** Vitess's table type of a sequence table. */
  public static final String SEQUENCE = "sequence";

  /** Copies the column vindexes. */
  public VSchemaTable {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(autoIncrement, "autoIncrement");
    columnVindexes = List.copyOf(columnVindexes);
  }

  /** A table without {@code auto_increment}. */
  public VSchemaTable(String name, String type, List<ColumnVindex> columnVindexes) {
    this(name, type, columnVindexes, Optional.empty());
  }

  /** True for a table of type {@code sequence} (Vitess's {@code vitess_sequence} layout). */
  public boolean isSequence() {
    return SEQUENCE.equals(type);
  }

  /** Returns the primary column vindex (the first), or empty if the table has none. */
  public Optional<ColumnVindex> primaryVindex() {
    return columnVindexes.isEmpty() ? Optional.empty() : Optional.of(columnVindexes.get(0));
  }
}
