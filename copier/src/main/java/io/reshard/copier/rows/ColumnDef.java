package io.reshard.copier.rows;

import java.util.Objects;

/**
 * One column of a table, as {@code information_schema.COLUMNS} describes it, with the SQL the
 * pipeline uses to read it, to bind a key value against it, and to key it for equality.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the column name
 * @param kind how it is transported and compared
 * @param columnType {@code COLUMN_TYPE}, e.g. {@code decimal(30,10)}, for messages
 * @param charset {@code CHARACTER_SET_NAME}; null for non-character columns
 * @param collation {@code COLLATION_NAME}; null for non-character columns
 * @param maxChars {@code CHARACTER_MAXIMUM_LENGTH}; 0 when not a string
 * @param precision {@code NUMERIC_PRECISION} (DECIMAL) or 0
 * @param scale {@code NUMERIC_SCALE} (DECIMAL) or 0
 * @param fractionDigits {@code DATETIME_PRECISION} (DATETIME, TIMESTAMP, TIME) or 0
 * @param generated true for a virtual or stored generated column: never written, never compared
 */
public record ColumnDef(
    String name,
    ColumnKind kind,
    String columnType,
    String charset,
    String collation,
    long maxChars,
    int precision,
    int scale,
    int fractionDigits,
    boolean generated) {

  /** Checks the name, kind and type. */
  public ColumnDef {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(columnType, "columnType");
  }

  /** The column name quoted with backticks, any backtick doubled. */
  public String quoted() {
    return quote(name);
  }

  /** {@code name} quoted with backticks, any backtick doubled. */
  public static String quote(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /**
   * The select-list expression whose value is the column's exact text bytes (see {@link
   * ColumnKind}): {@code CAST(`c` AS BINARY)}, {@code CAST(CAST(`c` AS DOUBLE) AS BINARY)} for a
   * floating column, {@code CAST(`c` + 0 AS BINARY)} for an {@code ENUM} or {@code SET}.
   */
  public String selectExpression() {
    String inner =
        switch (kind) {
          case FLOATING -> "CAST(" + quoted() + " AS DOUBLE)";
          case ENUM_OR_SET -> quoted() + " + 0";
          default -> quoted();
        };
    return "CAST(" + inner + " AS BINARY)";
  }

  /**
   * The expression that stores one bound value (as {@link #selectExpression()} read it) into this
   * column: {@code ?}, or {@code CAST(? AS UNSIGNED)} for an {@code ENUM} index or {@code SET} bit
   * mask.
   */
  public String insertParameter() {
    return kind == ColumnKind.ENUM_OR_SET ? "CAST(? AS UNSIGNED)" : "?";
  }

  /**
   * The expression for one bound key value (the column's exact text bytes, sent as a binary
   * literal) that the server compares with this column as it orders it.
   *
   * @throws IllegalStateException if this kind cannot be a key column ({@link
   *     ColumnKind#canBeKey()})
   */
  public String keyParameter() {
    return switch (kind) {
      case SIGNED_INTEGER -> "CAST(? AS SIGNED)";
      case UNSIGNED_INTEGER, YEAR -> "CAST(? AS UNSIGNED)";
      case DECIMAL -> "CAST(? AS DECIMAL(" + precision + "," + scale + "))";
      // explicit: the comparison must not depend on how a driver types a parameter
      case CHARACTER -> "CONVERT(? USING " + charset + ") COLLATE " + collation;
      case BINARY -> "?";
      case DATE -> "CAST(? AS DATE)";
      case DATETIME, TIMESTAMP -> "CAST(? AS DATETIME(" + fractionDigits + "))";
      case TIME -> "CAST(? AS TIME(" + fractionDigits + "))";
      default ->
          throw new IllegalStateException(
              "column " + name + " (" + columnType + ") cannot be compared as a key");
    };
  }

  /**
   * The select-list expression whose bytes are equal for two values exactly when the column's
   * collation calls them equal: the collation's sort key for a character column ({@code
   * WEIGHT_STRING}, padded to the column's length for a PAD SPACE collation, where {@code 'a'} and
   * {@code 'a '} are equal), the value's text bytes otherwise (integers, decimals of one scale,
   * temporals and binary strings are equal exactly when their text is).
   */
  public String equalityKeyExpression() {
    if (kind == ColumnKind.CHARACTER) {
      boolean noPad = collation != null && collation.contains("_nopad_");
      return noPad
          ? "WEIGHT_STRING(" + quoted() + ")"
          : "WEIGHT_STRING(" + quoted() + " AS CHAR(" + maxChars + "))";
    }
    return selectExpression();
  }
}
