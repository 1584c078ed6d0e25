package io.reshard.cdc.capture;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import java.util.ArrayList;
import java.util.List;

/**
 * A table as one TABLE_MAP event describes it: its {@link TableSchema} plus, per column, the binlog
 * type code and metadata needed to decode row cells. Immutable.
 *
 * @param tableId the server's table id, valid until the next TABLE_MAP for that id
 * @param schema columns and primary key ({@code generated} not yet marked)
 * @param types per column, the binlog type code (after resolving STRING's real type)
 * @param metas per column, the type metadata as {@link BinlogTypes} reads it
 * @param body the raw event body, to reuse this object when the same map repeats
 */
record BinlogTable(long tableId, TableSchema schema, int[] types, int[] metas, byte[] body) {

  ColumnDef column(int i) {
    return schema.columns().get(i);
  }

  int columnCount() {
    return types.length;
  }

  List<ColumnDef> columns() {
    return schema.columns();
  }

  /**
   * True if a column's cells cannot be read from the TABLE_MAP alone: an old temporal type code on
   * MariaDB, whose layout depends on a precision only the table's definition gives ({@link
   * BinlogTypes#FSP_FROM_SCHEMA}). Rows of such a table are decoded once {@link SchemaCache} has
   * supplied it ({@link #withPrecisions}).
   */
  boolean precisionPending() {
    for (int m : metas) {
      if (m == BinlogTypes.FSP_FROM_SCHEMA) {
        return true;
      }
    }
    return false;
  }

  /**
   * This table with the given fraction digits for the columns whose precision is pending, and their
   * definitions' scale set to it.
   *
   * @param precisions per column, the precision; ignored for columns whose precision is known
   */
  BinlogTable withPrecisions(int[] precisions) {
    int[] resolved = metas.clone();
    List<ColumnDef> cols = new ArrayList<>(schema.columns());
    for (int i = 0; i < resolved.length; i++) {
      if (resolved[i] == BinlogTypes.FSP_FROM_SCHEMA) {
        resolved[i] = precisions[i];
        ColumnDef c = cols.get(i);
        cols.set(
            i,
            new ColumnDef(
                c.name(),
                c.kind(),
                c.type(),
                c.unsigned(),
                c.length(),
                c.fixedLength(),
                c.precision(),
                precisions[i],
                c.charset(),
                c.labels(),
                c.nullable(),
                c.generated()));
      }
    }
    TableSchema s = new TableSchema(schema.database(), schema.table(), cols, schema.primaryKey());
    return new BinlogTable(tableId, s, types, resolved, body);
  }
}
