package io.reshard.core.rows;

import io.reshard.core.error.DataIntegrityException;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Writes rows of one table exactly ({@link ColumnKind}) with multi-row statements, in the caller's
 * transaction: insert-if-absent for the copy, replace and delete for a diff's repair.
 *
 * <p>Insert-if-absent is {@code INSERT ... ON DUPLICATE KEY UPDATE `k` = `k`}, not {@code INSERT
 * IGNORE}: a row already present is left as it is (the change stream has a newer image of it), yet
 * every other problem still fails the statement. Since sessions run without strict mode (zero dates
 * must be storable), a statement that leaves any warning (a truncation, a conversion) fails with a
 * {@link DataIntegrityException} naming the table and the warnings: a value is never silently
 * changed. The one warning accepted is the one MariaDB gives for every way of storing an {@code
 * ENUM}'s error value (index 0), on a row whose value for that column is index 0: the source holds
 * that value, so the target must too.
 *
 * <p>Statements are cut at {@code maxRowsPerStatement} rows or {@code maxBytesPerStatement} bytes
 * of values, whichever comes first, to stay under {@code max_allowed_packet}. Thread-safe (holds
 * only immutable state and a cache of statement texts).
 */
public final class RowWriter {
  /** MariaDB's {@code WARN_DATA_TRUNCATED}. */
  private static final Pattern TRUNCATED_COLUMN =
      Pattern.compile("Data truncated for column '(.*)' at row (\\d+)");

  private final TableSchema table;
  private final int maxRowsPerStatement;
  private final long maxBytesPerStatement;
  private final String columnList;
  private final String rowPlaceholders;
  private final ConcurrentHashMap<String, String> sqlCache = new ConcurrentHashMap<>();

  /**
   * @param table the table written
   * @param maxRowsPerStatement at most this many rows per statement, at least 1
   * @param maxBytesPerStatement at most about this many bytes of values per statement (a single
   *     larger row still goes alone)
   */
  public RowWriter(TableSchema table, int maxRowsPerStatement, long maxBytesPerStatement) {
    if (maxRowsPerStatement < 1 || maxBytesPerStatement < 1) {
      throw new IllegalArgumentException("statement limits must be positive");
    }
    this.table = table;
    this.maxRowsPerStatement = maxRowsPerStatement;
    this.maxBytesPerStatement = maxBytesPerStatement;
    this.columnList =
        table.copyColumns().stream().map(ColumnDef::quoted).collect(Collectors.joining(", "));
    this.rowPlaceholders =
        table.copyColumns().stream()
            .map(ValueCodec::exactInsertParameter)
            .collect(Collectors.joining(", ", "(", ")"));
  }

  /**
   * Inserts the rows that are absent; rows whose key is present are left untouched.
   *
   * @return the number of rows sent
   * @throws DataIntegrityException if the server warned about a value
   */
  public int insertIfAbsent(Connection c, List<Row> rows) throws SQLException {
    String head = "INSERT INTO " + table.quotedName() + " (" + columnList + ") VALUES ";
    String tail =
        " ON DUPLICATE KEY UPDATE "
            + table.keyColumns().get(0).quoted()
            + " = "
            + table.keyColumns().get(0).quoted();
    return write(c, rows, head, tail);
  }

  /**
   * Replaces the rows (insert, or delete and insert when the key or a unique key is present).
   *
   * @return the number of rows sent
   * @throws DataIntegrityException if the server warned about a value
   */
  public int replace(Connection c, List<Row> rows) throws SQLException {
    return write(
        c, rows, "REPLACE INTO " + table.quotedName() + " (" + columnList + ") VALUES ", "");
  }

  /**
   * Deletes the rows with these keys.
   *
   * @return the number of rows deleted
   */
  public int delete(Connection c, List<RowKey> keys) throws SQLException {
    List<ColumnDef> key = table.keyColumns();
    String where =
        key.stream()
            .map(k -> k.quoted() + " = " + ValueCodec.keyParameter(k))
            .collect(Collectors.joining(" AND "));
    int deleted = 0;
    try (PreparedStatement ps =
        c.prepareStatement("DELETE FROM " + table.quotedName() + " WHERE " + where)) {
      for (RowKey k : keys) {
        for (int i = 0; i < key.size(); i++) {
          ValueCodec.bindExact(ps, i + 1, key.get(i), k.value(i));
        }
        deleted += ps.executeUpdate();
      }
    }
    return deleted;
  }

  private int write(Connection c, List<Row> rows, String head, String tail) throws SQLException {
    int from = 0;
    while (from < rows.size()) {
      int to = from;
      long bytes = 0;
      while (to < rows.size() && to - from < maxRowsPerStatement) {
        long b = rows.get(to).byteSize();
        if (to > from && bytes + b > maxBytesPerStatement) {
          break;
        }
        bytes += b;
        to++;
      }
      execute(c, rows.subList(from, to), head, tail);
      from = to;
    }
    return rows.size();
  }

  private void execute(Connection c, List<Row> rows, String head, String tail) throws SQLException {
    String sql =
        sqlCache.computeIfAbsent(
            head.charAt(0) + ":" + rows.size(),
            k ->
                head + String.join(", ", Collections.nCopies(rows.size(), rowPlaceholders)) + tail);
    List<ColumnDef> columns = table.copyColumns();
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      for (Row r : rows) {
        for (int i = 0; i < columns.size(); i++) {
          ValueCodec.bindExact(ps, p++, columns.get(i), r.value(i));
        }
      }
      ps.executeUpdate();
      refuseWarnings(ps.getWarnings(), rows);
    }
  }

  private void refuseWarnings(SQLWarning w, List<Row> rows) {
    List<String> messages = new ArrayList<>();
    for (SQLWarning x = w; x != null && messages.size() < 5; x = x.getNextWarning()) {
      if (!isEnumErrorValue(x, rows)) {
        messages.add(x.getErrorCode() + " " + x.getMessage());
      }
    }
    if (messages.isEmpty()) {
      return;
    }
    throw new DataIntegrityException(
        "writing "
            + rows.size()
            + " rows of "
            + table
            + " (first key "
            + table.keyOf(rows.get(0))
            + ") left warnings, so a value would not be stored exactly: "
            + messages
            + "; check that the target table has the source's definition");
  }

  /** True for the warning of an ENUM error value that the row really holds (index 0). */
  private boolean isEnumErrorValue(SQLWarning w, List<Row> rows) {
    if (w.getErrorCode() != ErrorClassifier.WARN_DATA_TRUNCATED) {
      return false;
    }
    Matcher m = TRUNCATED_COLUMN.matcher(w.getMessage());
    if (!m.find()) {
      return false;
    }
    int column = table.copyIndexOf(m.group(1));
    int row = Integer.parseInt(m.group(2)) - 1;
    if (column < 0 || row < 0 || row >= rows.size()) {
      return false;
    }
    ColumnDef def = table.copyColumns().get(column);
    byte[] v = rows.get(row).value(column);
    return def.kind() == ColumnKind.ENUM && v != null && v.length == 1 && v[0] == '0';
  }
}
