package io.reshard.cdc.capture;

import io.reshard.core.schema.TableSchema;

/**
 * A table as capture publishes it: its schema with generated columns marked, the schema header
 * bytes, and the positions of its primary-key columns. Immutable.
 *
 * @param schema the schema
 * @param schemaJson the {@code reshard.schema} header value
 * @param primaryKeyIndexes indexes into the columns, in key order
 */
record CapturedTable(TableSchema schema, byte[] schemaJson, int[] primaryKeyIndexes) {}
