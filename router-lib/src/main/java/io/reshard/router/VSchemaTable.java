package io.reshard.router;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a vschema's {@code "tables"}: its Vitess table type and its column vindexes. The
 * first column vindex is the table's primary vindex: it places the rows (Vitess's rule).
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the key under {@code "tables"}
 * @param type Vitess's table {@code "type"}: empty for an ordinary table, {@code reference} or
 *     {@code sequence} otherwise
 * @param columnVindexes the column vindexes in file order; empty for reference and sequence tables
 *     and in an unsharded keyspace
 */
public record VSchemaTable(String name, String type, List<ColumnVindex> columnVindexes) {

  /** Copies the column vindexes. */
  public VSchemaTable {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    columnVindexes = List.copyOf(columnVindexes);
  }

  /** Returns the primary column vindex (the first), or empty if the table has none. */
  public Optional<ColumnVindex> primaryVindex() {
    return columnVindexes.isEmpty() ? Optional.empty() : Optional.of(columnVindexes.get(0));
  }
}
