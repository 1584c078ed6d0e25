package io.reshard.core.rows;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * One row as the pipeline carries it: per copied column (in {@link TableSchema#copyColumns()}
 * order) the exact bytes of the server's text form of the value, or null for SQL NULL (see {@link
 * ColumnKind} for why this transport is exact).
 *
 * <p>The arrays are not copied: a row belongs to one reader and is never modified after it is read.
 */
public final class Row {
  private final byte[][] values;

  /**
   * @param values one entry per copied column; null for SQL NULL
   */
  public Row(byte[][] values) {
    this.values = values;
  }

  /**
   * Reads the current row of {@code rs}, whose first {@code columns} select-list items are the
   * copied columns' {@link ColumnDef#selectExpression()}s.
   */
  public static Row read(ResultSet rs, int columns) throws SQLException {
    byte[][] v = new byte[columns][];
    for (int i = 0; i < columns; i++) {
      v[i] = rs.getBytes(i + 1);
    }
    return new Row(v);
  }

  /** The value of column {@code i}; null for NULL. Not copied. */
  public byte[] value(int i) {
    return values[i];
  }

  /** The number of columns. */
  public int size() {
    return values.length;
  }

  /** The approximate size of the values in bytes, for batching statements. */
  public long byteSize() {
    long n = 0;
    for (byte[] v : values) {
      n += v == null ? 4 : v.length + 3;
    }
    return n;
  }
}
