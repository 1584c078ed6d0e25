package io.reshard.differ.compare;

import io.reshard.copier.rows.Row;
import io.reshard.copier.rows.ShardingKey;
import io.reshard.router.KeyspaceId;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A row read for the diff, with its collation equality key: the bytes of its key columns' {@link
 * io.reshard.copier.rows.ColumnDef#equalityKeyExpression()}, each length-prefixed when the key has
 * several columns. Two rows have equal equality keys exactly when the server's collation calls
 * their primary keys equal.
 *
 * <p>The row is held in one array, so that comparing two rows reads two arrays from memory, not a
 * dozen: per copied column (in {@link io.reshard.copier.rows.TableSchema#copyColumns()} order) its
 * length in 4 big-endian bytes, -1 for NULL, then its exact bytes; then the equality key, unless
 * the key is a single column that is not a character column, whose equality key is the value's own
 * bytes in the values part. Two rows have the same values exactly when the values parts are equal
 * byte for byte (NULL and an empty value differ in their lengths).
 *
 * <p>Immutable and thread-safe.
 */
public final class KeyedRow {
  private static final int NULL = -1;

  private final byte[] packed;
  private final int valuesEnd;
  private final int keyFrom;
  private final int keyTo;

  private KeyedRow(byte[] packed, int valuesEnd, int keyFrom, int keyTo) {
    this.packed = packed;
    this.valuesEnd = valuesEnd;
    this.keyFrom = keyFrom;
    this.keyTo = keyTo;
  }

  /**
   * A row whose equality key is given.
   *
   * @param values per copied column its exact bytes, null for NULL; not kept
   */
  public static KeyedRow of(byte[][] values, byte[] equalityKey) {
    int valuesEnd = valuesSize(values);
    byte[] packed = new byte[valuesEnd + equalityKey.length];
    packValues(values, packed);
    System.arraycopy(equalityKey, 0, packed, valuesEnd, equalityKey.length);
    return new KeyedRow(packed, valuesEnd, valuesEnd, packed.length);
  }

  /** A row whose equality key is the value of column {@code keyColumn}, never NULL. */
  static KeyedRow ofKeyColumn(byte[][] values, int keyColumn) {
    byte[] packed = new byte[valuesSize(values)];
    packValues(values, packed);
    int at = headerOf(packed, keyColumn);
    return new KeyedRow(packed, packed.length, at + 4, at + 4 + length(packed, at));
  }

  /** A row whose equality key is {@code row}'s value, for tests and callers holding a Row. */
  public static KeyedRow of(Row row, byte[] equalityKey) {
    byte[][] values = new byte[row.size()][];
    for (int i = 0; i < values.length; i++) {
      values[i] = row.value(i);
    }
    return of(values, equalityKey);
  }

  /** The row's values, unpacked into new arrays. */
  public Row row() {
    int n = 0;
    for (int at = 0; at < valuesEnd; at = next(packed, at)) {
      n++;
    }
    byte[][] values = new byte[n][];
    int at = 0;
    for (int i = 0; i < n; i++) {
      int len = length(packed, at);
      values[i] = len == NULL ? null : Arrays.copyOfRange(packed, at + 4, at + 4 + len);
      at = next(packed, at);
    }
    return new Row(values);
  }

  /** True if the two rows' keys are equal in the key columns' collations. */
  boolean sameKey(KeyedRow other) {
    return Arrays.equals(packed, keyFrom, keyTo, other.packed, other.keyFrom, other.keyTo);
  }

  /**
   * True if every column of the two rows has the same bytes (and NULL where the other has NULL).
   */
  boolean sameValues(KeyedRow other) {
    return Arrays.equals(packed, 0, valuesEnd, other.packed, 0, other.valuesEnd);
  }

  /** The equality key as a hash-map key (equal and hashed by content). */
  Object mapKey() {
    return ByteBuffer.wrap(packed, keyFrom, keyTo - keyFrom);
  }

  /**
   * The row's keyspace id by {@code sharding}, read from the packed value.
   *
   * @throws io.reshard.router.UnmappableValueException as {@link ShardingKey#keyspaceId(byte[],
   *     int, int)}
   */
  KeyspaceId keyspaceId(ShardingKey sharding) {
    int at = headerOf(packed, sharding.columnIndex());
    return sharding.keyspaceId(packed, at + 4, length(packed, at));
  }

  private static int valuesSize(byte[][] values) {
    int n = 0;
    for (byte[] v : values) {
      n += 4 + (v == null ? 0 : v.length);
    }
    return n;
  }

  private static void packValues(byte[][] values, byte[] packed) {
    int at = 0;
    for (byte[] v : values) {
      int len = v == null ? NULL : v.length;
      packed[at] = (byte) (len >>> 24);
      packed[at + 1] = (byte) (len >>> 16);
      packed[at + 2] = (byte) (len >>> 8);
      packed[at + 3] = (byte) len;
      if (v != null) {
        System.arraycopy(v, 0, packed, at + 4, v.length);
      }
      at += 4 + Math.max(len, 0);
    }
  }

  /** Where column {@code column}'s length starts. */
  private static int headerOf(byte[] packed, int column) {
    int at = 0;
    for (int i = 0; i < column; i++) {
      at = next(packed, at);
    }
    return at;
  }

  private static int next(byte[] packed, int at) {
    return at + 4 + Math.max(length(packed, at), 0);
  }

  private static int length(byte[] packed, int at) {
    return (packed[at] << 24)
        | (packed[at + 1] & 0xff) << 16
        | (packed[at + 2] & 0xff) << 8
        | (packed[at + 3] & 0xff);
  }
}
