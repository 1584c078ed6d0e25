package io.reshard.cdc;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;

/**
 * One column as capture, copy and apply see it: enough to decode, encode and bind its values. Built
 * from binlog TABLE_MAP metadata (capture) or from {@code information_schema} ({@link
 * TableSchemas}); both give equal definitions for the same column, except that the binlog cannot
 * tell MariaDB's JSON from LONGTEXT and does not mark generated columns (capture adds that flag
 * from {@code information_schema}).
 *
 * <p>Serialized as compact JSON in each data record's {@code reshard.schema} header.
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
 *     apply
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
    @JsonProperty("generated") boolean generated) {

  /** Validates and copies the labels. */
  public ColumnDef {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    labels = labels == null ? List.of() : List.copyOf(labels);
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
        value);
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
        generated);
  }
}
