package io.reshard.differ.compare;

import io.reshard.core.rows.Row;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A row read for the diff, with its collation equality key: the bytes of its key columns' {@link
 * io.reshard.core.schema.ColumnDef#equalityKeyExpression()}, each length-prefixed when the key has
 * several columns. Two rows have equal equality keys exactly when the server's collation calls
 * their primary keys equal. For a single key column that is not a character column, the equality
 * key is the key value's own array in the row (no copy).
 *
 * @param row the row's exact values
 * @param equalityKey the collation equality key; never modified
 */
public record KeyedRow(Row row, byte[] equalityKey) {

  /** True if the two rows' keys are equal in the key columns' collations. */
  boolean sameKey(KeyedRow other) {
    return Arrays.equals(equalityKey, other.equalityKey);
  }

  /** The equality key as a hash-map key (equal and hashed by content). */
  Object mapKey() {
    return ByteBuffer.wrap(equalityKey);
  }
}
