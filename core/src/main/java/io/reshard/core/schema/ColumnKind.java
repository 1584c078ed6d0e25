package io.reshard.core.schema;

import io.reshard.core.value.ValueCodec;

/**
 * How a column's value is represented, the one classification of column types for every module:
 * capture decodes binlog rows by it, apply binds by it, and the copier and the differ choose their
 * select, bind and key expressions by it ({@link ValueCodec} holds every form). The JSON shape in a
 * change record and the Java type {@link ValueCodec} produces:
 *
 * <table>
 *   <caption>value representation per kind</caption>
 *   <tr><th>kind</th><th>SQL types</th><th>Java value</th><th>JSON</th></tr>
 *   <tr><td>INTEGER</td><td>TINYINT..BIGINT, signed or unsigned</td>
 *       <td>{@code Long}, or {@code BigInteger} above {@code Long.MAX_VALUE}</td><td>number</td></tr>
 *   <tr><td>DECIMAL</td><td>DECIMAL(p,s)</td>
 *       <td>{@code String}, plain, exactly s fraction digits ({@code -12.50})</td><td>string</td></tr>
 *   <tr><td>FLOAT</td><td>FLOAT</td><td>{@code Float}</td><td>number (shortest round-trip)</td></tr>
 *   <tr><td>DOUBLE</td><td>DOUBLE</td><td>{@code Double}</td><td>number (shortest round-trip)</td></tr>
 *   <tr><td>BIT</td><td>BIT(n)</td><td>{@code byte[]}, (n+7)/8 bytes big-endian</td>
 *       <td>base64 string</td></tr>
 *   <tr><td>DATE</td><td>DATE</td><td>{@code String} {@code yyyy-mm-dd}, zero parts kept</td>
 *       <td>string</td></tr>
 *   <tr><td>DATETIME, TIMESTAMP</td><td>DATETIME(f), TIMESTAMP(f)</td>
 *       <td>{@code String} {@code yyyy-mm-dd hh:mm:ss[.f digits]}; TIMESTAMP in UTC</td>
 *       <td>string</td></tr>
 *   <tr><td>TIME</td><td>TIME(f)</td><td>{@code String} {@code [-]hh:mm:ss[.f digits]}, hours up
 *       to 838</td><td>string</td></tr>
 *   <tr><td>YEAR</td><td>YEAR</td><td>{@code Integer} (0 for 0000)</td><td>number</td></tr>
 *   <tr><td>TEXT</td><td>CHAR, VARCHAR, TEXT types in a non-binary charset; MariaDB JSON</td>
 *       <td>{@code String}, or {@code byte[]} when the charset cannot reproduce the bytes</td>
 *       <td>string (plus base64 in the record's {@code *_raw} map when not exact)</td></tr>
 *   <tr><td>BYTES</td><td>BINARY(n) (right-padded with 0x00 to n), VARBINARY, BLOB types,
 *       GEOMETRY</td><td>{@code byte[]}</td><td>base64 string</td></tr>
 *   <tr><td>ENUM</td><td>ENUM</td><td>{@code String} label ({@code ""} for the error value)</td>
 *       <td>string</td></tr>
 *   <tr><td>SET</td><td>SET</td><td>{@code String}, labels in definition order joined by
 *       {@code ,}</td><td>string</td></tr>
 *   <tr><td>JSON</td><td>MySQL's binary JSON type</td><td>{@code String} (MySQL's text form)</td>
 *       <td>string</td></tr>
 * </table>
 *
 * NULL is {@code null} everywhere.
 */
public enum ColumnKind {
  /** TINYINT, SMALLINT, MEDIUMINT, INT, BIGINT, signed or unsigned. */
  INTEGER,
  /** DECIMAL(p,s) as an exact string. */
  DECIMAL,
  /** Single-precision FLOAT. */
  FLOAT,
  /** Double-precision DOUBLE. */
  DOUBLE,
  /** BIT(n) as its bytes. */
  BIT,
  /** DATE. */
  DATE,
  /** DATETIME(f). */
  DATETIME,
  /** TIMESTAMP(f), shown in UTC. */
  TIMESTAMP,
  /** TIME(f), possibly negative. */
  TIME,
  /** YEAR. */
  YEAR,
  /** Character strings in a non-binary charset. */
  TEXT,
  /** Binary strings and GEOMETRY. */
  BYTES,
  /** ENUM, as its label. */
  ENUM,
  /** SET, as its labels. */
  SET,
  /** MySQL's JSON type (MariaDB's JSON is LONGTEXT, i.e. TEXT). */
  JSON,
  /**
   * Any other type ({@code INET4}, {@code INET6}, {@code UUID}, ...): the copier and the differ
   * carry its bytes as the server casts them; capture refuses it (it cannot decode it exactly from
   * the binlog), so a workflow cannot move such a table today.
   */
  OTHER
}
