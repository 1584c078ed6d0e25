package io.reshard.core.schema;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One column as every module sees it: enough to decode, encode and bind its values (capture,
 * apply), and to read, key and write them exactly (copy, diff). Built from binlog TABLE_MAP
 * metadata (capture) or from {@code information_schema} ({@link TableSchemaReader}); both give
 * equal definitions for the same column, except that the binlog cannot tell MariaDB's JSON from
 * LONGTEXT, does not mark generated columns (capture adds that flag from {@code
 * information_schema}), and does not know the column's collation or full type text.
 *
 * <p>Serialized as compact JSON in each data record's {@code reshard.schema} header; the three
 * fields only {@code information_schema} knows ({@code columnType}, {@code collation}, {@code
 * maxChars}) are not part of that header.
 *
 * @param name the column name
 * @param kind how values are represented
 * @param type the base SQL type, lower case, as {@code information_schema.COLUMNS.DATA_TYPE} spells
 *     it ({@code int}, {@code decimal}, {@code varchar}, {@code longtext}, {@code datetime}); the
 *     other fields carry its parameters
 * @param unsigned for INTEGER, DECIMAL, FLOAT, DOUBLE: declared unsigned
 * @param length for TEXT and BYTES: the maximum length in bytes; for BIT: the number of bits
 * @param fixedLength for TEXT and BYTES: CHAR or BINARY; a BINARY value is {@code length} bytes,
 *     right-padded with 0x00
 * @param precision for DECIMAL: total digits
 * @param scale for DECIMAL: digits after the point; for DATETIME, TIMESTAMP, TIME: fraction digits
 * @param charset for TEXT, ENUM, SET: the MariaDB charset name ({@code utf8mb4}, {@code latin1});
 *     {@code binary} for BYTES; null otherwise
 * @param labels for ENUM and SET: the labels in definition order; empty otherwise
 * @param nullable whether NULL is allowed
 * @param generated a generated (virtual or stored) column: carried in records, never written by
 *     apply or the copier, never compared by the differ
 * @param columnType {@code information_schema.COLUMNS.COLUMN_TYPE} ({@code decimal(30,10)}, {@code
 *     bigint(20) unsigned}), for messages; the base type when only the binlog described the column
 * @param collation for TEXT (and MySQL JSON): {@code COLLATION_NAME}, the order keys are compared
 *     in; null when unknown (binlog) or not a character column
 * @param maxChars for TEXT: {@code CHARACTER_MAXIMUM_LENGTH}; 0 otherwise or when unknown
 */
@JsonInclude(JsonInclude.Include.NON_DEFAULT)
@JsonIgnoreProperties(ignoreUnknown = true)
public record ColumnDef(
    @JsonProperty("name") String name,
    @JsonProperty("kind") ColumnKind kind,
    @JsonProperty("type") String type,
    @JsonProperty("unsigned") boolean unsigned,
    @JsonProperty("length") long length,
    @JsonProperty("fixed") boolean fixedLength,
    @JsonProperty("precision") int precision,
    @JsonProperty("scale") int scale,
    @JsonProperty("charset") String charset,
    @JsonProperty("labels") List<String> labels,
    @JsonProperty("nullable") boolean nullable,
    @JsonProperty("generated") boolean generated,
    @JsonIgnore String columnType,
    @JsonIgnore String collation,
    @JsonIgnore long maxChars) {

  /** The spatial types: carried as bytes, never a key. */
  static final Set<String> SPATIAL =
      Set.of(
          "geometry",
          "point",
          "linestring",
          "polygon",
          "multipoint",
          "multilinestring",
          "multipolygon",
          "geometrycollection");

  /** Validates and copies the labels; {@code columnType} defaults to {@code type}. */
  public ColumnDef {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    labels = labels == null ? List.of() : List.copyOf(labels);
    columnType = columnType == null ? type : columnType;
  }

  /**
   * A column as the binlog describes it (no collation, no full type text, no character count).
   * Parameters as in the record.
   */
  public ColumnDef(
      String name,
      ColumnKind kind,
      String type,
      boolean unsigned,
      long length,
      boolean fixedLength,
      int precision,
      int scale,
      String charset,
      List<String> labels,
      boolean nullable,
      boolean generated) {
    this(
        name,
        kind,
        type,
        unsigned,
        length,
        fixedLength,
        precision,
        scale,
        charset,
        labels,
        nullable,
        generated,
        null,
        null,
        0);
  }

  /** A column of {@code kind} with only a name and type; the rest at defaults (for tests). */
  public static ColumnDef of(String name, ColumnKind kind, String type) {
    return new ColumnDef(name, kind, type, false, 0, false, 0, 0, null, List.of(), true, false);
  }

  /** A copy with {@code generated} set. */
  public ColumnDef withGenerated(boolean value) {
    return new ColumnDef(
        name,
        kind,
        type,
        unsigned,
        length,
        fixedLength,
        precision,
        scale,
        charset,
        labels,
        nullable,
        value,
        columnType,
        collation,
        maxChars);
  }

  /** A copy with another name. */
  public ColumnDef withName(String value) {
    return new ColumnDef(
        value,
        kind,
        type,
        unsigned,
        length,
        fixedLength,
        precision,
        scale,
        charset,
        labels,
        nullable,
        generated,
        columnType,
        collation,
        maxChars);
  }

  /**
   * This column as the binlog's TABLE_MAP metadata describes it: without the full type text, the
   * collation and the character count, which only {@code information_schema} knows.
   */
  public ColumnDef asBinlogDescribes() {
    return new ColumnDef(
        name,
        kind,
        type,
        unsigned,
        length,
        fixedLength,
        precision,
        scale,
        charset,
        labels,
        nullable,
        generated);
  }

  /** The column name quoted with backticks, any backtick doubled. */
  public String quoted() {
    return quote(name);
  }

  /** {@code name} quoted with backticks, any backtick doubled. */
  public static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /** A spatial column (GEOMETRY, POINT, ...): its value is bytes, it cannot be a key. */
  @JsonIgnore
  public boolean isSpatial() {
    return kind == ColumnKind.BYTES && type != null && SPATIAL.contains(type);
  }

  /**
   * A character column (TEXT, and MySQL's JSON): compared in its collation, its stored bytes sent
   * unconverted.
   */
  @JsonIgnore
  public boolean isCharacter() {
    return kind == ColumnKind.TEXT || kind == ColumnKind.JSON;
  }

  /** A binary string (BINARY, VARBINARY, the BLOB types; not a spatial column). */
  @JsonIgnore
  public boolean isBinaryString() {
    return kind == ColumnKind.BYTES && !isSpatial();
  }

  /**
   * The most labels an ENUM primary-key column may have: keyset predicates compare such a column
   * with one term per label ({@code io.reshard.core.rows.KeysetSql}), so a larger one would make
   * statements of thousands of placeholders (at most 65,535 in all). 256 leaves room for composite
   * keys and is far beyond the ENUMs keys are made of.
   */
  public static final int MAX_ENUM_KEY_LABELS = 256;

  /**
   * True if a primary-key column of this type can be ordered and compared in keyset predicates, and
   * bound by apply and the copier: integers, DECIMAL, character and binary strings, DATE, DATETIME,
   * TIMESTAMP, TIME, YEAR, and ENUM of at most {@link #MAX_ENUM_KEY_LABELS} labels (ordered by its
   * index, as the server orders it). FLOAT and DOUBLE (no exact text form a key can be compared
   * by), BIT, SET (no order an index range can follow), JSON, spatial and other types cannot.
   */
  @JsonIgnore
  public boolean canBeKey() {
    return switch (kind) {
      case INTEGER, DECIMAL, DATE, DATETIME, TIMESTAMP, TIME, YEAR -> true;
      case TEXT -> true;
      case BYTES -> !isSpatial();
      case ENUM -> !labels.isEmpty() && labels.size() <= MAX_ENUM_KEY_LABELS;
      default -> false;
    };
  }
}
