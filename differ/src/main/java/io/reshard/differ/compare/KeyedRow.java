package io.reshard.differ.compare;

import io.reshard.copier.rows.Row;

/**
 * A row read for the diff, with its collation equality key: the bytes of its key columns' {@link
 * io.reshard.copier.rows.ColumnDef#equalityKeyExpression()}, each length-prefixed, held as an
 * ISO-8859-1 string (one char per byte) so that it can key a hash map. Two rows have equal equality
 * keys exactly when the server's collation calls their primary keys equal.
 *
 * @param row the row's exact values
 * @param equalityKey the collation equality key
 */
public record KeyedRow(Row row, String equalityKey) {}
