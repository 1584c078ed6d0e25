package io.reshard.cdc.capture;

/**
 * Binlog column type codes (MySQL's {@code enum_field_types}) and which of them carry signedness
 * and charset metadata in a TABLE_MAP event. Constants only.
 */
final class BinlogTypes {
  static final int DECIMAL = 0;
  static final int TINY = 1;
  static final int SHORT = 2;
  static final int LONG = 3;
  static final int FLOAT = 4;
  static final int DOUBLE = 5;
  static final int NULL = 6;
  static final int TIMESTAMP = 7;
  static final int LONGLONG = 8;
  static final int INT24 = 9;
  static final int DATE = 10;
  static final int TIME = 11;
  static final int DATETIME = 12;
  static final int YEAR = 13;
  static final int NEWDATE = 14;
  static final int VARCHAR = 15;
  static final int BIT = 16;
  static final int TIMESTAMP2 = 17;
  static final int DATETIME2 = 18;
  static final int TIME2 = 19;
  static final int JSON = 245;
  static final int NEWDECIMAL = 246;
  static final int ENUM = 247;
  static final int SET = 248;
  static final int TINY_BLOB = 249;
  static final int MEDIUM_BLOB = 250;
  static final int LONG_BLOB = 251;
  static final int BLOB = 252;
  static final int VAR_STRING = 253;
  static final int STRING = 254;
  static final int GEOMETRY = 255;

  /**
   * The metadata {@link TableMapParser} stores for a column of an old temporal type code (TIME,
   * DATETIME, TIMESTAMP) on MariaDB: the TABLE_MAP carries no metadata for them, yet MariaDB writes
   * both the plain pre-5.6 layout (precision 0) and its own 5.3 "hires" layout (precision 1-6)
   * under these codes, with cells of a length that depends on the precision. The precision comes
   * from the table's definition ({@link SchemaCache}) before any of its rows is decoded.
   */
  static final int FSP_FROM_SCHEMA = -1;

  private BinlogTypes() {}

  /** True for the pre-MySQL-5.6 temporal type codes: TIMESTAMP (7), TIME (11), DATETIME (12). */
  static boolean isOldTemporal(int type) {
    return type == TIMESTAMP || type == TIME || type == DATETIME;
  }

  /** The SQL name of a temporal type code, for messages. */
  static String temporalName(int type) {
    return switch (type) {
      case TIMESTAMP, TIMESTAMP2 -> "TIMESTAMP";
      case TIME, TIME2 -> "TIME";
      case DATETIME, DATETIME2 -> "DATETIME";
      case DATE, NEWDATE -> "DATE";
      default -> "type " + type;
    };
  }

  /**
   * True if the SIGNEDNESS metadata has a bit for this type. Both flavors give YEAR one (an integer
   * field on either): measured on MariaDB 10.11 and on MySQL 8.0.31, where a YEAR column counted as
   * no numeric column gave every numeric column after it the bit of the one before ({@code
   * MySqlTypeMatrixIT}).
   */
  static boolean isNumeric(int type) {
    return switch (type) {
      case TINY, SHORT, INT24, LONG, LONGLONG, FLOAT, DOUBLE, NEWDECIMAL, DECIMAL, YEAR -> true;
      default -> false;
    };
  }

  /**
   * True if the charset metadata has an entry for this (real) type. MariaDB includes GEOMETRY (with
   * the binary collation); MySQL does not. ENUM and SET have their own charset fields.
   */
  static boolean isCharacter(int realType, boolean mariaDb) {
    return switch (realType) {
      case STRING, VARCHAR, VAR_STRING, BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB -> true;
      case GEOMETRY -> mariaDb;
      default -> false;
    };
  }

  /**
   * The number of metadata bytes a type has in a TABLE_MAP event; -1 for a type capture does not
   * decode (NULL, the pre-5.0 DECIMAL, codes no server writes for a column).
   */
  static int metadataLength(int type) {
    return switch (type) {
      case TINY, SHORT, INT24, LONG, LONGLONG, DATE, NEWDATE, TIME, DATETIME, TIMESTAMP, YEAR -> 0;
      case FLOAT,
          DOUBLE,
          BLOB,
          TINY_BLOB,
          MEDIUM_BLOB,
          LONG_BLOB,
          GEOMETRY,
          JSON,
          TIME2,
          DATETIME2,
          TIMESTAMP2 ->
          1;
      case NEWDECIMAL, BIT, VARCHAR, VAR_STRING, STRING, ENUM, SET -> 2;
      default -> -1;
    };
  }
}
