package io.reshard.copier.rows;

import java.util.Locale;

/**
 * How the pipeline reads, writes, compares and keys a column, by its {@code DATA_TYPE} in {@code
 * information_schema.COLUMNS}.
 *
 * <p><b>Value transport.</b> Every value travels as the exact bytes of the server's text form,
 * selected as {@code CAST(col AS BINARY)} so that the driver never converts a character set and
 * never parses a number, and written back through a client-side prepared statement whose parameters
 * are sent as binary literals ({@code _binary'...'}), which the server stores unconverted into a
 * string column and parses exactly into a numeric or temporal one. The text form is exact for every
 * type except {@code FLOAT}, which the server prints with 6 significant digits ({@code 16777217}
 * reads {@code 16777200}): floating columns are therefore read as {@code CAST(col AS DOUBLE)},
 * whose shortest round-trip text parses back to the same float or double.
 *
 * <p><b>Keys.</b> A primary-key column is compared in keyset predicates with a bound parameter cast
 * to the column's own type, so that the server compares as it orders: integers as integers ({@code
 * CAST(? AS SIGNED)}), strings in the column's collation ({@code CONVERT(? USING cs) COLLATE coll};
 * a bare binary literal would force a binary comparison), temporals as temporals. Kinds without a
 * meaningful order in SQL ({@code FLOAT}, {@code BIT}, {@code ENUM}, {@code SET}, {@code JSON},
 * spatial and other types) are refused as key columns.
 */
public enum ColumnKind {
  /** {@code TINYINT} .. {@code BIGINT}, signed. */
  SIGNED_INTEGER,
  /** {@code TINYINT} .. {@code BIGINT} {@code UNSIGNED}. */
  UNSIGNED_INTEGER,
  /** {@code DECIMAL}: exact text of the column's scale. */
  DECIMAL,
  /** {@code FLOAT}, {@code DOUBLE}: read through {@code CAST(.. AS DOUBLE)}. */
  FLOATING,
  /** {@code CHAR}, {@code VARCHAR}, the {@code TEXT} types (and MariaDB's {@code JSON} alias). */
  CHARACTER,
  /** {@code ENUM}, {@code SET}: the index or bit mask, as decimal text. */
  ENUM_OR_SET,
  /** {@code BINARY}, {@code VARBINARY}, the {@code BLOB} types. */
  BINARY,
  /** {@code BIT(n)}: its bytes, big-endian. */
  BIT,
  /** {@code DATE}. */
  DATE,
  /** {@code DATETIME(p)}. */
  DATETIME,
  /** {@code TIMESTAMP(p)}: text in the session time zone, which is always {@code +00:00}. */
  TIMESTAMP,
  /** {@code TIME(p)}, negative values and more than 24 hours included. */
  TIME,
  /** {@code YEAR}. */
  YEAR,
  /**
   * Anything else (spatial types, {@code INET6}, {@code UUID}, ...): its bytes as the server casts
   * them.
   */
  OTHER;

  /**
   * The kind of a column.
   *
   * @param dataType {@code information_schema.COLUMNS.DATA_TYPE}, e.g. {@code varchar}
   * @param columnType {@code COLUMN_TYPE}, e.g. {@code bigint(20) unsigned}
   */
  public static ColumnKind of(String dataType, String columnType) {
    String t = dataType.toLowerCase(Locale.ROOT);
    boolean unsigned = columnType.toLowerCase(Locale.ROOT).contains("unsigned");
    return switch (t) {
      case "tinyint", "smallint", "mediumint", "int", "integer", "bigint" ->
          unsigned ? UNSIGNED_INTEGER : SIGNED_INTEGER;
      case "decimal", "numeric" -> DECIMAL;
      case "float", "double", "real", "double precision" -> FLOATING;
      case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "json" -> CHARACTER;
      case "enum", "set" -> ENUM_OR_SET;
      case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" -> BINARY;
      case "bit" -> BIT;
      case "date" -> DATE;
      case "datetime" -> DATETIME;
      case "timestamp" -> TIMESTAMP;
      case "time" -> TIME;
      case "year" -> YEAR;
      default -> OTHER;
    };
  }

  /** True if a primary-key column of this kind can be ordered and compared in keyset predicates. */
  public boolean canBeKey() {
    return switch (this) {
      case SIGNED_INTEGER,
          UNSIGNED_INTEGER,
          DECIMAL,
          CHARACTER,
          BINARY,
          DATE,
          DATETIME,
          TIMESTAMP,
          TIME,
          YEAR ->
          true;
      default -> false;
    };
  }

  /** True if the value's text is a decimal integer (what integer vindexes map). */
  public boolean isInteger() {
    return this == SIGNED_INTEGER || this == UNSIGNED_INTEGER;
  }
}
