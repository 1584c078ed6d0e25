/**
 * The one model of a table: {@link io.reshard.core.schema.TableSchema}, {@link
 * io.reshard.core.schema.ColumnDef}, {@link io.reshard.core.schema.ColumnKind}. Entry class: {@link
 * io.reshard.core.schema.TableSchemaReader}, the one reader of {@code information_schema}, which
 * also makes the refusals about one table ({@link io.reshard.core.schema.TableRefusedException}).
 * Capture builds the same model from binlog TABLE_MAP events.
 */
package io.reshard.core.schema;
