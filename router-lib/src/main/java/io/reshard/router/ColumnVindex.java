package io.reshard.router;

import java.util.List;
import java.util.Objects;

/**
 * One entry of a vschema table's {@code "column_vindexes"}: the column(s) a vindex is applied to,
 * written {@code {"column": "customer_id", "name": "hash"}} or, for several columns, {@code
 * {"columns": ["a", "b"], "name": "lookup_ab"}}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param columns the columns, at least one, in order
 * @param vindexName the name of a vindex defined under the vschema's {@code "vindexes"}
 */
public record ColumnVindex(List<String> columns, String vindexName) {

  /**
   * Copies the columns.
   *
   * @throws IllegalArgumentException if there is no column
   */
  public ColumnVindex {
    Objects.requireNonNull(vindexName, "vindexName");
    columns = List.copyOf(columns);
    if (columns.isEmpty()) {
      throw new IllegalArgumentException("column vindex " + vindexName + " names no column");
    }
  }

  /** Returns the only column, or the first of several. */
  public String column() {
    return columns.get(0);
  }
}
