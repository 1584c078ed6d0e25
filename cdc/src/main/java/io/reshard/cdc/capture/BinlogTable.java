package io.reshard.cdc.capture;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
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
}
