package io.reshard.router;

/**
 * A functional vindex: maps one column value to the {@link KeyspaceId} that places its row, by
 * computation alone, exactly as the Vitess vindex of the same name ({@code go/vt/vtgate/vindexes}),
 * so a keyspace sharded by Vitess keeps its placement here.
 *
 * <table>
 *   <caption>The functions and the values they accept</caption>
 *   <tr><th>type</th><th>ksid</th><th>accepted values</th></tr>
 *   <tr><td>{@code hash}</td>
 *       <td>the value as 8 big-endian bytes, encrypted with single DES under an all-zero key, one
 *       ECB block, no padding (Vitess's {@code vhash}); 8 bytes</td>
 *       <td>integers (below)</td></tr>
 *   <tr><td>{@code numeric}</td><td>the value as 8 big-endian bytes; 8 bytes</td>
 *       <td>integers (below)</td></tr>
 *   <tr><td>{@code xxhash}</td>
 *       <td>xxh64 with seed 0 of the value's bytes, written little-endian (Vitess's
 *       {@code vXXHash}); 8 bytes</td><td>bytes (below)</td></tr>
 *   <tr><td>{@code binary_md5}</td><td>MD5 of the value's bytes; 16 bytes</td>
 *       <td>bytes (below)</td></tr>
 * </table>
 *
 * <p><b>Integers</b> ({@code hash}, {@code numeric}): {@link Long}, {@link Integer}, {@link Short},
 * {@link Byte}, a {@link java.math.BigInteger} in [-2^63, 2^64-1] (for {@code BIGINT UNSIGNED}
 * columns), or a {@link String} holding such a decimal integer (optional sign, digits only, as
 * MariaDB returns a number in text form). A negative value is taken as its two's-complement
 * unsigned 64-bit pattern, as Vitess's {@code hash} does for signed columns ({@code
 * uint64(int64)}): {@code -1} maps like {@code 18446744073709551615}.
 *
 * <p><b>Bytes</b> ({@code xxhash}, {@code binary_md5}): a {@code byte[]} as is; a {@link String} as
 * its UTF-8 bytes (the bytes MariaDB stores for a {@code utf8mb4} column); an integer type as
 * listed above as its decimal text, because Vitess hashes the text form in which MySQL sends
 * integers ({@code sqltypes.Value.ToBytes}): the integer {@code 1} and the string {@code "1"} have
 * the same ksid.
 *
 * <p>Every other type ({@code Double}, {@code BigDecimal}, {@code Boolean}, dates, ...) and every
 * integer out of range is refused with an {@link UnmappableValueException} naming the value, and so
 * is {@code null}: a NULL sharding key has no ksid and the write is refused (DESIGN 4.1).
 *
 * <p>Implementations are immutable and thread-safe.
 */
public interface Vindex {

  /** Returns the Vitess type this vindex computes. */
  VindexType type();

  /**
   * Returns the ksid of {@code value}.
   *
   * @param value the column value; see the class description for the accepted types
   * @throws UnmappableValueException naming the value if it is {@code null}, of a type this vindex
   *     does not accept, or out of its range
   */
  KeyspaceId keyspaceId(Object value);

  /**
   * Returns the functional vindex of this type.
   *
   * @throws IllegalArgumentException if {@code type} is a lookup type, which needs its table (see
   *     {@link LookupVindexSpec})
   */
  static Vindex of(VindexType type) {
    return FunctionalVindex.of(type);
  }
}
