package io.reshard.cdc.capture;

import io.reshard.core.schema.TableSchema;

/**
 * A table as capture publishes it: its schema with generated columns marked, the schema header
 * bytes, the positions of its primary-key columns, and the TABLE_MAP its rows are decoded with.
 * Immutable.
 *
 * @param schema the schema
 * @param schemaJson the {@code reshard.schema} header value
 * @param primaryKeyIndexes indexes into the columns, in key order
 * @param decoding the TABLE_MAP with every column's precision known (old temporal formats resolved
 *     from the table's definition), or null if only the schema is needed
 */
record CapturedTable(
    TableSchema schema, byte[] schemaJson, int[] primaryKeyIndexes, BinlogTable decoding) {

  CapturedTable(TableSchema schema, byte[] schemaJson, int[] primaryKeyIndexes) {
    this(schema, schemaJson, primaryKeyIndexes, null);
  }
}
