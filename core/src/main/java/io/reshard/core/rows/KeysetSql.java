package io.reshard.core.rows;

import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Keyset SQL over a primary key: the predicates and statements that read a table in primary-key
 * order, chunk by chunk, leaving every comparison of keys to the server.
 *
 * <p>Composite keys are compared with the expanded form, never with a row constructor: {@code (a,
 * b) > (x, y)} is written {@code (a > x) OR (a = x AND b > y)}, which every MariaDB and MySQL
 * version turns into an index range scan. Each bound value is the key column's exact text bytes
 * wrapped in {@link ColumnDef#keyParameter()}, so a string key is compared in its column's
 * collation, an integer key as an integer, and so on: the order of the predicates is the order of
 * {@code ORDER BY}.
 *
 * <p>An {@code ENUM} key column orders by its index, as {@code ORDER BY} sorts it, and its bound
 * value is that index ({@code CAST(? AS UNSIGNED)}). The server compares an ENUM with a number by
 * index, but its range optimizer uses an ENUM column's index only for equality: {@code e > 2} reads
 * the index from its start, which would make every chunk read all rows before it. So a strict or
 * inclusive comparison of an ENUM column is written as the OR, over every index {@code i} of the
 * column (0, the error value, to its last label), of {@code (e = i AND i > ?)}: the server folds
 * the constant comparisons once the value is bound and scans only the ranges left (verified on
 * MariaDB 10.11 with {@code Handler_read_next}). {@link ColumnDef#canBeKey()} bounds the labels of
 * an ENUM key ({@link ColumnDef#MAX_ENUM_KEY_LABELS}), so this stays small.
 *
 * <p>Stateless and thread-safe.
 */
public final class KeysetSql {
  private KeysetSql() {}

  /**
   * Which key value and column a placeholder binds.
   *
   * @param operand 0 for the first key passed to {@link Predicate#bind}, 1 for the second
   * @param column the key column
   */
  public record Bind(int operand, int column) {}

  /**
   * A predicate with placeholders, and what each placeholder binds, in order.
   *
   * @param sql the SQL, parenthesized
   * @param binds one entry per {@code ?}, in order of appearance
   * @param key the key columns the binds' {@code column} indexes
   */
  public record Predicate(String sql, List<Bind> binds, List<ColumnDef> key) {

    /** Copies the binds and the key. */
    public Predicate {
      binds = List.copyOf(binds);
      key = List.copyOf(key);
    }

    /**
     * Binds the placeholders from {@code keys}, starting at parameter {@code first}.
     *
     * @return the index of the next parameter
     */
    public int bind(PreparedStatement ps, int first, RowKey... keys) throws SQLException {
      int i = first;
      for (Bind b : binds) {
        ValueCodec.bindExact(ps, i++, key.get(b.column()), keys[b.operand()].value(b.column()));
      }
      return i;
    }
  }

  /** {@code key > ?}: the rows after a key. */
  public static Predicate after(List<ColumnDef> key) {
    return lexicographic(key, columns(key), parameters(key, 0), ">", ">");
  }

  /** {@code key <= ?}: the rows up to and including a key. */
  public static Predicate atMost(List<ColumnDef> key) {
    return lexicographic(key, columns(key), parameters(key, 0), "<", "<=");
  }

  /**
   * {@code key = ?}: the row with a key, equal in the key columns' collations and types (as the
   * primary key's uniqueness counts it).
   */
  public static Predicate equalTo(List<ColumnDef> key) {
    StringBuilder sql = new StringBuilder("(");
    List<Bind> binds = new ArrayList<>();
    List<Operand> left = columns(key);
    List<Operand> right = parameters(key, 0);
    for (int i = 0; i < key.size(); i++) {
      if (i > 0) {
        sql.append(" AND ");
      }
      append(sql, binds, left.get(i), "=", right.get(i));
    }
    return new Predicate(sql.append(")").toString(), binds, key);
  }

  /**
   * {@code first < second} for two bound keys, evaluated by the server in the key columns'
   * collations and types: the way to order two keys without a client-side comparator.
   */
  public static Predicate firstBeforeSecond(List<ColumnDef> key) {
    return lexicographic(key, parameters(key, 0), parameters(key, 1), "<", "<");
  }

  /**
   * The expanded lexicographic comparison: the OR over i of ({@code left[j] = right[j]} for j &lt;
   * i, and {@code left[i] op right[i]}), with {@code op} = {@code strict} except {@code last} for
   * the last column.
   */
  static Predicate lexicographic(
      List<ColumnDef> key, List<Operand> left, List<Operand> right, String strict, String last) {
    StringBuilder sql = new StringBuilder("(");
    List<Bind> binds = new ArrayList<>();
    int n = left.size();
    for (int i = 0; i < n; i++) {
      sql.append(i == 0 ? "(" : " OR (");
      for (int j = 0; j < i; j++) {
        append(sql, binds, left.get(j), "=", right.get(j));
        sql.append(" AND ");
      }
      append(sql, binds, left.get(i), i == n - 1 ? last : strict, right.get(i));
      sql.append(")");
    }
    return new Predicate(sql.append(")").toString(), binds, key);
  }

  /** {@code ORDER BY `a`, `b`}: the key order. */
  public static String orderBy(List<ColumnDef> key) {
    return " ORDER BY " + key.stream().map(ColumnDef::quoted).collect(Collectors.joining(", "));
  }

  /** The select list of the copied columns' exact values. */
  public static String selectList(List<ColumnDef> columns) {
    return columns.stream()
        .map(ValueCodec::exactSelectExpression)
        .collect(Collectors.joining(", "));
  }

  /**
   * The copier's chunk read: {@code SELECT <values> FROM t [WHERE key > ?] ORDER BY key LIMIT n
   * LOCK IN SHARE MODE}.
   *
   * @param afterKey whether the statement has the lower bound (false for the first chunk)
   * @param rows the chunk size
   */
  public static String lockingChunk(TableSchema t, boolean afterKey, int rows) {
    return "SELECT "
        + selectList(t.copyColumns())
        + " FROM "
        + t.quotedName()
        + (afterKey ? " WHERE " + after(t.keyColumns()).sql() : "")
        + orderBy(t.keyColumns())
        + " LIMIT "
        + rows
        + " LOCK IN SHARE MODE";
  }

  /**
   * The differ's chunk read: {@code SELECT <values>, <equality keys> FROM t WHERE [key > ?] [AND
   * key <= ?] ORDER BY key LIMIT n}, a plain (snapshot) read.
   *
   * @param afterKey whether the statement has the lower bound
   * @param upToKey whether the statement has the upper bound
   */
  public static String snapshotChunk(TableSchema t, boolean afterKey, boolean upToKey, int rows) {
    List<String> where = new ArrayList<>();
    if (afterKey) {
      where.add(after(t.keyColumns()).sql());
    }
    if (upToKey) {
      where.add(atMost(t.keyColumns()).sql());
    }
    return "SELECT "
        + selectList(t.copyColumns())
        + ", "
        + t.keyColumns().stream()
            .map(ValueCodec::equalityKeyExpression)
            .collect(Collectors.joining(", "))
        + " FROM "
        + t.quotedName()
        + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where))
        + orderBy(t.keyColumns())
        + " LIMIT "
        + rows;
  }

  /**
   * One side of a comparison: SQL text and, if it is a placeholder, what it binds; {@code column}
   * is the key column when the side is that column itself, else null.
   */
  record Operand(String sql, Bind bind, ColumnDef column) {}

  private static List<Operand> columns(List<ColumnDef> key) {
    return key.stream().map(c -> new Operand(c.quoted(), null, c)).toList();
  }

  private static List<Operand> parameters(List<ColumnDef> key, int operand) {
    List<Operand> out = new ArrayList<>();
    for (int i = 0; i < key.size(); i++) {
      out.add(new Operand(ValueCodec.keyParameter(key.get(i)), new Bind(operand, i), null));
    }
    return out;
  }

  private static void append(
      StringBuilder sql, List<Bind> binds, Operand left, String op, Operand right) {
    if (left.column() != null
        && left.column().kind() == ColumnKind.ENUM
        && right.bind() != null
        && !op.equals("=")) {
      enumRange(sql, binds, left, op, right);
      return;
    }
    sql.append(left.sql()).append(' ').append(op).append(' ').append(right.sql());
    if (left.bind() != null) {
      binds.add(left.bind());
    }
    if (right.bind() != null) {
      binds.add(right.bind());
    }
  }

  /**
   * {@code e op ?} for an ENUM column {@code e}, as an OR of equalities the range optimizer can
   * use: {@code ((e = 0 AND 0 op ?) OR (e = 1 AND 1 op ?) OR ...)}, one term per index (see the
   * class description).
   */
  private static void enumRange(
      StringBuilder sql, List<Bind> binds, Operand column, String op, Operand value) {
    int last = column.column().labels().size();
    sql.append('(');
    for (int i = 0; i <= last; i++) {
      sql.append(i == 0 ? "" : " OR ")
          .append('(')
          .append(column.sql())
          .append(" = ")
          .append(i)
          .append(" AND ")
          .append(i)
          .append(' ')
          .append(op)
          .append(' ')
          .append(value.sql())
          .append(')');
      binds.add(value.bind());
    }
    sql.append(')');
  }
}
