package io.reshard.cdc.apply;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.value.ValueCodec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;

/**
 * Binds a value of {@link ValueCodec}'s representation to a statement parameter so that the target
 * stores exactly what the source stored: integers as numbers (unsigned BIGINT beyond the signed
 * range as a decimal), DECIMAL and temporal values as the server's own text (exact fractions, zero
 * dates, negative TIME), FLOAT/DOUBLE as their binary values, and every string kind as its stored
 * bytes, which the server keeps unconverted (MySQL's JSON as its text, which the server parses into
 * the same document). The session must use {@code time_zone = '+00:00'} and a {@code sql_mode} that
 * allows zero dates. Stateless.
 */
public final class JdbcValues {
  private JdbcValues() {}

  /**
   * @param index the 1-based parameter index
   * @throws IllegalArgumentException if the value's Java type does not fit the column's kind
   */
  public static void bind(PreparedStatement ps, int index, ColumnDef column, Object value)
      throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.NULL);
      return;
    }
    switch (column.kind()) {
      case INTEGER -> {
        if (value instanceof BigInteger big) {
          ps.setBigDecimal(index, new BigDecimal(big));
        } else {
          ps.setLong(index, ((Number) value).longValue());
        }
      }
      case FLOAT -> ps.setFloat(index, ((Number) value).floatValue());
      case DOUBLE -> ps.setDouble(index, ((Number) value).doubleValue());
      case YEAR -> ps.setInt(index, ((Number) value).intValue());
      case DECIMAL, DATE, DATETIME, TIMESTAMP, TIME -> ps.setString(index, (String) value);
      case BIT, BYTES -> ps.setBytes(index, (byte[]) value);
      case TEXT, ENUM, SET -> ps.setBytes(index, ValueCodec.exactBytes(column, value));
      // MySQL refuses a binary string for JSON: its text, in the connection's utf8mb4
      case JSON -> ps.setString(index, (String) value);
      default ->
          throw new IllegalArgumentException(
              "column " + column.name() + ": unknown kind " + column.kind());
    }
  }
}
