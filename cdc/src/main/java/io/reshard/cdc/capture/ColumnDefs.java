package io.reshard.cdc.capture;

import static io.reshard.cdc.capture.BinlogTypes.*;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.value.MariaDbCharsets;
import java.util.List;

/**
 * Builds a {@link ColumnDef} from a TABLE_MAP column: binlog type code, its metadata as {@link
 * TableMapParser} stores it, signedness, charset and labels. The result equals what {@link
 * io.reshard.core.schema.TableSchemaReader} reads from {@code information_schema} for the same
 * column, except that MariaDB's JSON shows as {@code longtext} both ways and generated columns are
 * not yet marked. Stateless.
 */
final class ColumnDefs {

  private ColumnDefs() {}

  static ColumnDef fromBinlog(
      String name,
      int type,
      int meta,
      boolean unsigned,
      String charset,
      List<String> labels,
      boolean nullable) {
    return switch (type) {
      case TINY -> number(name, "tinyint", unsigned, nullable);
      case SHORT -> number(name, "smallint", unsigned, nullable);
      case INT24 -> number(name, "mediumint", unsigned, nullable);
      case LONG -> number(name, "int", unsigned, nullable);
      case LONGLONG -> number(name, "bigint", unsigned, nullable);
      case FLOAT -> def(name, ColumnKind.FLOAT, "float", unsigned, 0, 0, 0, null, nullable);
      case DOUBLE -> def(name, ColumnKind.DOUBLE, "double", unsigned, 0, 0, 0, null, nullable);
      case NEWDECIMAL ->
          def(
              name,
              ColumnKind.DECIMAL,
              "decimal",
              unsigned,
              0,
              meta >> 8,
              meta & 0xFF,
              null,
              nullable);
      case BIT -> def(name, ColumnKind.BIT, "bit", false, meta, 0, 0, null, nullable);
      case DATE, NEWDATE -> def(name, ColumnKind.DATE, "date", false, 0, 0, 0, null, nullable);
      case DATETIME, DATETIME2 ->
          def(name, ColumnKind.DATETIME, "datetime", false, 0, 0, fsp(type, meta), null, nullable);
      case TIMESTAMP, TIMESTAMP2 ->
          def(
              name,
              ColumnKind.TIMESTAMP,
              "timestamp",
              false,
              0,
              0,
              fsp(type, meta),
              null,
              nullable);
      case TIME, TIME2 ->
          def(name, ColumnKind.TIME, "time", false, 0, 0, fsp(type, meta), null, nullable);
      case YEAR -> def(name, ColumnKind.YEAR, "year", false, 0, 0, 0, null, nullable);
      case VARCHAR, VAR_STRING -> string(name, false, meta, charset, nullable);
      case STRING -> string(name, true, meta, charset, nullable);
      case BLOB, TINY_BLOB, MEDIUM_BLOB, LONG_BLOB -> blob(name, meta, charset, nullable);
      case GEOMETRY ->
          def(name, ColumnKind.BYTES, "geometry", false, 0, 0, 0, MariaDbCharsets.BINARY, nullable);
      // MySQL's binary JSON: information_schema gives it no length and no charset
      case JSON -> def(name, ColumnKind.JSON, "json", false, 0, 0, 0, null, nullable);
      case ENUM, SET ->
          new ColumnDef(
              name,
              type == ENUM ? ColumnKind.ENUM : ColumnKind.SET,
              type == ENUM ? "enum" : "set",
              false,
              0,
              false,
              0,
              0,
              charset,
              labels,
              nullable,
              false);
      default ->
          throw new IllegalStateException(
              "column " + name + " has binlog type " + type + ", which cdc cannot represent");
    };
  }

  /**
   * The fraction digits: the metadata of the 5.6 types; for the old codes the precision {@link
   * SchemaCache} found ({@code 0} until then, and on MySQL, whose old codes have no fraction).
   */
  /**
   * A GEOMETRY column as the subtype the TABLE_MAP's GEOMETRY_TYPE field names ({@code point},
   * {@code polygon}, ...), as information_schema's DATA_TYPE has it.
   */
  static ColumnDef spatial(ColumnDef geometry, String subtype) {
    return def(
        geometry.name(),
        ColumnKind.BYTES,
        subtype,
        false,
        0,
        0,
        0,
        MariaDbCharsets.BINARY,
        geometry.nullable());
  }

  private static int fsp(int type, int meta) {
    return type == DATETIME2 || type == TIMESTAMP2 || type == TIME2 || isOldTemporal(type)
        ? Math.max(meta, 0)
        : 0;
  }

  private static ColumnDef number(String name, String type, boolean unsigned, boolean nullable) {
    return def(name, ColumnKind.INTEGER, type, unsigned, 0, 0, 0, null, nullable);
  }

  private static ColumnDef string(
      String name, boolean fixed, int maxBytes, String charset, boolean nullable) {
    boolean binary = charset == null || MariaDbCharsets.BINARY.equals(charset);
    String type = fixed ? (binary ? "binary" : "char") : (binary ? "varbinary" : "varchar");
    return new ColumnDef(
        name,
        binary ? ColumnKind.BYTES : ColumnKind.TEXT,
        type,
        false,
        maxBytes,
        fixed,
        0,
        0,
        binary ? MariaDbCharsets.BINARY : charset,
        List.of(),
        nullable,
        false);
  }

  private static ColumnDef blob(String name, int lengthBytes, String charset, boolean nullable) {
    boolean binary = charset == null || MariaDbCharsets.BINARY.equals(charset);
    String size =
        switch (lengthBytes) {
          case 1 -> "tiny";
          case 2 -> "";
          case 3 -> "medium";
          default -> "long";
        };
    long max = lengthBytes >= 4 ? 0xFFFF_FFFFL : (1L << (8 * lengthBytes)) - 1;
    return def(
        name,
        binary ? ColumnKind.BYTES : ColumnKind.TEXT,
        size + (binary ? "blob" : "text"),
        false,
        max,
        0,
        0,
        binary ? MariaDbCharsets.BINARY : charset,
        nullable);
  }

  private static ColumnDef def(
      String name,
      ColumnKind kind,
      String type,
      boolean unsigned,
      long length,
      int precision,
      int scale,
      String charset,
      boolean nullable) {
    return new ColumnDef(
        name, kind, type, unsigned, length, false, precision, scale, charset, List.of(), nullable,
        false);
  }
}
