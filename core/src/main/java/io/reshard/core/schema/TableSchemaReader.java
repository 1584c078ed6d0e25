package io.reshard.core.schema;

import io.reshard.core.value.MariaDbCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The one reader of {@code information_schema}: a table's {@link TableSchema} as the server defines
 * it now, the JDBC-side counterpart of the binlog's TABLE_MAP metadata. The copier and the differ
 * read a moved table with {@link #readMoved}, which also makes the refusals about a table (DESIGN
 * 6); capture reads any table with {@link #read} to mark generated columns and to describe a table
 * in a schema-change record.
 *
 * <p>Stateless; thread-safe as long as each thread uses its own connection.
 */
public final class TableSchemaReader {

  private TableSchemaReader() {}

  /**
   * The table's current definition.
   *
   * @return empty if the table does not exist (or the user cannot see it)
   * @throws SQLException from the driver
   */
  public static Optional<TableSchema> read(Connection c, String database, String table)
      throws SQLException {
    List<ColumnDef> columns = columns(c, database, table);
    if (columns.isEmpty()) {
      return Optional.empty();
    }
    List<String> pk = new ArrayList<>();
    for (KeyPart part : primaryKey(c, database, table)) {
      pk.add(part.column());
    }
    return Optional.of(new TableSchema(database, table, columns, pk));
  }

  /**
   * A moved table's definition, after the refusals that concern one table ({@link #refusals}),
   * except triggers: the copy and the diff only read the source, where triggers are harmless, and
   * whether a workflow may have them (they follow writes) is create's decision, which the copier
   * and differ do not know.
   *
   * @param c a connection to the server holding the table (the source shard)
   * @throws TableRefusedException naming the table and every reason, and what to do
   * @throws SQLException if the server cannot be read
   */
  public static TableSchema readMoved(Connection c, String database, String table)
      throws SQLException {
    List<String> problems = refusals(c, database, table, "the source", true);
    if (!problems.isEmpty()) {
      throw new TableRefusedException(String.join("; ", problems));
    }
    return read(c, database, table).orElseThrow();
  }

  /**
   * Every reason why a table cannot be moved (DESIGN 6), each naming the table and what to do: it
   * must exist as a base table, be InnoDB (the copy's row locks are what order it against later
   * changes), have no cascading foreign key (cascaded changes never reach the binlog; every such
   * key is named), no trigger (applied rows would fire it again; every trigger is named), and have
   * a primary key without prefix parts or generated columns, whose columns the copier can order.
   *
   * @param server how messages name the server, e.g. {@code "the source"} or {@code "source c0-"}
   * @return empty if the table can be moved
   * @throws SQLException if the server cannot be read
   */
  public static List<String> refusals(Connection c, String database, String table, String server)
      throws SQLException {
    return refusals(c, database, table, server, false);
  }

  /**
   * As {@link #refusals(Connection, String, String, String)}, with triggers accepted if {@code
   * triggersFollowWrites}: the operator chose that the workflow keeps them only where writes are
   * owned, so that no applied row fires one.
   */
  public static List<String> refusals(
      Connection c, String database, String table, String server, boolean triggersFollowWrites)
      throws SQLException {
    String name = database + "." + table;
    Optional<String> engine = engine(c, database, table);
    if (engine.isEmpty()) {
      return List.of("table " + name + " does not exist on " + server);
    }
    List<String> problems = new ArrayList<>();
    if (!"InnoDB".equalsIgnoreCase(engine.get())) {
      problems.add(
          "table "
              + name
              + " uses engine "
              + engine.get()
              + ": only InnoDB tables can be moved (the copy's row locks order it against later"
              + " changes); ALTER TABLE ... ENGINE=InnoDB first");
    }
    problems.addAll(cascadingForeignKeys(c, database, table));
    if (!triggersFollowWrites) {
      triggers(c, database, table).ifPresent(problems::add);
    }
    List<ColumnDef> columns = columns(c, database, table);
    List<KeyPart> key = primaryKey(c, database, table);
    for (KeyPart part : key) {
      keyColumnProblem(name, columns, part).ifPresent(problems::add);
    }
    if (key.isEmpty()) {
      problems.add(noPrimaryKey(name));
    }
    return problems;
  }

  /**
   * The refusal of a table without a primary key, with what to do: the copy and the diff walk a
   * table in primary key order, and the streams apply each change to the row with its key.
   *
   * @param name the table, {@code database.table}
   */
  static String noPrimaryKey(String name) {
    return "table "
        + name
        + " has no primary key, and rows are copied, compared and changed by their key: add one"
        + " (ALTER TABLE "
        + name
        + " ADD PRIMARY KEY (columns)) before moving it";
  }

  /** True if the database exists on the server (and the user can see it). */
  public static boolean databaseExists(Connection c, String database) throws SQLException {
    return firstValue(
            c, "SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", database)
        .isPresent();
  }

  /** True if {@code database.table} exists (as a table or view) on the server. */
  public static boolean exists(Connection c, String database, String table) throws SQLException {
    return firstValue(
            c,
            "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
            database,
            table)
        .isPresent();
  }

  /** Below this many estimated rows, {@link #estimatedRows} counts them instead. */
  static final long COUNT_BELOW = 1_000_000;

  /** How long {@link #estimatedRows} lets a count run before it keeps the server's estimate. */
  static final int COUNT_SECONDS = 2;

  /**
   * The table's rows: counted when the server estimates fewer than {@link #COUNT_BELOW} and the
   * count ends within {@link #COUNT_SECONDS} s, else the server's estimate ({@code
   * information_schema.TABLES.TABLE_ROWS}, approximate for InnoDB, and far off right after a bulk
   * load: 2,127 for 49,000 rows was seen); 0 if the table does not exist.
   */
  public static long estimatedRows(Connection c, String database, String table)
      throws SQLException {
    long estimate =
        firstValue(
                c,
                "SELECT COALESCE(TABLE_ROWS, 0) FROM information_schema.TABLES"
                    + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?",
                database,
                table)
            .map(rows -> Math.max(0, Long.parseLong(rows)))
            .orElse(-1L);
    if (estimate < 0 || estimate >= COUNT_BELOW) {
      return Math.max(0, estimate);
    }
    try (java.sql.Statement st = c.createStatement()) {
      st.setQueryTimeout(COUNT_SECONDS);
      try (ResultSet rs =
          st.executeQuery(
              "SELECT COUNT(*) FROM " + ColumnDef.quote(database) + "." + ColumnDef.quote(table))) {
        return rs.next() ? rs.getLong(1) : estimate;
      }
    } catch (java.sql.SQLTimeoutException slow) {
      return estimate; // a table too large to count quickly: the estimate will do
    }
  }

  /** The table's engine; empty if it is not a base table on the server ("" if it has none). */
  private static Optional<String> engine(Connection c, String database, String table)
      throws SQLException {
    return firstValue(
        c,
        "SELECT COALESCE(ENGINE, '') FROM information_schema.TABLES"
            + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND TABLE_TYPE = 'BASE TABLE'",
        database,
        table);
  }

  /** The first column of the first row {@code sql} returns with {@code args} bound, if any. */
  private static Optional<String> firstValue(Connection c, String sql, String... args)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      for (int i = 0; i < args.length; i++) {
        ps.setString(i + 1, args[i]);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(String.valueOf(rs.getString(1))) : Optional.empty();
      }
    }
  }

  /**
   * One reason for every foreign key of the table with a cascading action (CASCADE or SET NULL, on
   * delete or update): the server applies those changes inside its storage engine, and they never
   * reach the binlog, so the targets would miss them. Each names the key, its parent table and both
   * actions, and what to do.
   */
  private static List<String> cascadingForeignKeys(Connection c, String database, String table)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT CONSTRAINT_NAME, REFERENCED_TABLE_NAME, DELETE_RULE, UPDATE_RULE"
                + " FROM information_schema.REFERENTIAL_CONSTRAINTS"
                + " WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?"
                + " AND (DELETE_RULE IN ('CASCADE', 'SET NULL')"
                + " OR UPDATE_RULE IN ('CASCADE', 'SET NULL'))"
                + " ORDER BY CONSTRAINT_NAME")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          problems.add(
              "table "
                  + database
                  + "."
                  + table
                  + " has foreign key "
                  + rs.getString(1)
                  + " (to "
                  + rs.getString(2)
                  + ") with ON DELETE "
                  + rs.getString(3)
                  + " ON UPDATE "
                  + rs.getString(4)
                  + ": cascaded changes never reach the binlog, so the targets would miss them;"
                  + " drop it (ALTER TABLE "
                  + table
                  + " DROP FOREIGN KEY "
                  + rs.getString(1)
                  + ") or define it again with ON DELETE RESTRICT ON UPDATE RESTRICT (or NO"
                  + " ACTION), and let the application do what the cascade did");
        }
      }
    }
    return problems;
  }

  /**
   * The reason a table with triggers cannot be moved, naming every trigger: the streams write each
   * row change into the targets (and, after the write switch, back into the source), where a
   * trigger would fire a second time for one application write and rewrite or add rows.
   */
  private static Optional<String> triggers(Connection c, String database, String table)
      throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT TRIGGER_NAME, ACTION_TIMING, EVENT_MANIPULATION FROM information_schema.TRIGGERS"
                + " WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ?"
                + " ORDER BY TRIGGER_NAME")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          names.add(rs.getString(1) + " (" + rs.getString(2) + " " + rs.getString(3) + ")");
        }
      }
    }
    if (names.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        "table "
            + database
            + "."
            + table
            + " has "
            + (names.size() == 1 ? "trigger " : names.size() + " triggers: ")
            + String.join(", ", names)
            + ": the streams apply every row change to the targets and, after the write switch,"
            + " back to the source, where a trigger would fire again for one application write;"
            + " create the workflow with --triggers=follow-writes (each trigger then lives only"
            + " where writes are owned: moved to the targets when writes switch, back on reverse"
            + " traffic), or drop the triggers (DROP TRIGGER name) for the time of the workflow,"
            + " or have the application do what they do");
  }

  private static Optional<String> keyColumnProblem(
      String table, List<ColumnDef> columns, KeyPart part) {
    String column = part.column();
    if (part.prefix()) {
      return Optional.of(
          "table " + table + " has a prefix primary-key part on " + column + ": unsupported");
    }
    Optional<ColumnDef> def =
        columns.stream().filter(col -> col.name().equals(column) && !col.generated()).findFirst();
    if (def.isEmpty()) {
      return Optional.of(
          "table "
              + table
              + " has generated column "
              + column
              + " in its primary key: unsupported (generated columns are never written)");
    }
    if (!def.get().canBeKey()) {
      ColumnDef d = def.get();
      String why =
          d.kind() == ColumnKind.ENUM
              ? ", an ENUM of "
                  + d.labels().size()
                  + " labels, more than the "
                  + ColumnDef.MAX_ENUM_KEY_LABELS
                  + " an ENUM key may have (its keyset comparisons list every label)"
              : ", which the copy cannot read in key order and compare exactly";
      return Optional.of(
          "table "
              + table
              + " has primary-key column "
              + column
              + " of type "
              + d.columnType()
              + why
              + "; supported key types are integers, DECIMAL, CHAR/VARCHAR, BINARY/VARBINARY,"
              + " DATE, DATETIME, TIMESTAMP, TIME, YEAR and ENUM of at most "
              + ColumnDef.MAX_ENUM_KEY_LABELS
              + " labels: change the primary key to such columns (ALTER TABLE ... PRIMARY KEY)"
              + " or leave the table out of the vschema");
    }
    return Optional.empty();
  }

  /** One part of the primary key: its column, and whether it indexes only a prefix. */
  private record KeyPart(String column, boolean prefix) {}

  private static List<KeyPart> primaryKey(Connection c, String database, String table)
      throws SQLException {
    List<KeyPart> pk = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME, SUB_PART FROM information_schema.STATISTICS"
                + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND INDEX_NAME = 'PRIMARY'"
                + " ORDER BY SEQ_IN_INDEX")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          pk.add(new KeyPart(rs.getString(1), rs.getObject(2) != null));
        }
      }
    }
    return pk;
  }

  private static List<ColumnDef> columns(Connection c, String database, String table)
      throws SQLException {
    List<ColumnDef> columns = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_SET_NAME, COLLATION_NAME,"
                + " CHARACTER_MAXIMUM_LENGTH, CHARACTER_OCTET_LENGTH, NUMERIC_PRECISION,"
                + " NUMERIC_SCALE, DATETIME_PRECISION, IS_NULLABLE,"
                // IS_GENERATED is MariaDB's alone; both flavors fill GENERATION_EXPRESSION for a
                // generated column only (MariaDB leaves it NULL otherwise, MySQL empty)
                + " IF(COALESCE(GENERATION_EXPRESSION, '') = '', 'NEVER', 'ALWAYS') AS IS_GENERATED"
                + " FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?"
                + " ORDER BY ORDINAL_POSITION")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          columns.add(column(rs));
        }
      }
    }
    return columns;
  }

  private static ColumnDef column(ResultSet rs) throws SQLException {
    return column(
        rs.getString("COLUMN_NAME"),
        rs.getString("DATA_TYPE"),
        rs.getString("COLUMN_TYPE"),
        rs.getString("CHARACTER_SET_NAME"),
        rs.getString("COLLATION_NAME"),
        rs.getLong("CHARACTER_MAXIMUM_LENGTH"),
        rs.getLong("CHARACTER_OCTET_LENGTH"),
        rs.getInt("NUMERIC_PRECISION"),
        rs.getInt("NUMERIC_SCALE"),
        rs.getInt("DATETIME_PRECISION"),
        "YES".equals(rs.getString("IS_NULLABLE")),
        "ALWAYS".equalsIgnoreCase(rs.getString("IS_GENERATED")));
  }

  /**
   * The column that one row of {@code information_schema.COLUMNS} describes; each parameter is that
   * table's column of the same name (numbers 0 where it holds NULL).
   */
  public static ColumnDef column(
      String name,
      String dataTypeName,
      String columnType,
      String charsetName,
      String collation,
      long maxChars,
      long octets,
      int numericPrecision,
      int numericScale,
      int fraction,
      boolean nullable,
      boolean generated) {
    String dataType = dataTypeName.toLowerCase(Locale.ROOT);
    String charset = charsetName;
    int precision = numericPrecision;
    int scale = numericScale;
    boolean unsigned = columnType.toLowerCase(Locale.ROOT).contains("unsigned");
    ColumnKind kind = kindOf(dataType);
    long length = 0;
    boolean fixed = false;
    List<String> labels = List.of();
    switch (kind) {
      case TEXT, BYTES -> {
        length = octets;
        fixed = dataType.equals("char") || dataType.equals("binary");
        charset = kind == ColumnKind.BYTES ? MariaDbCharsets.BINARY : charset;
      }
      case BIT -> length = precision;
      case DATETIME, TIMESTAMP, TIME -> scale = fraction;
      case ENUM, SET -> labels = labels(columnType);
      default -> {
        // numbers and dates need nothing more
      }
    }
    if (kind != ColumnKind.DECIMAL
        && kind != ColumnKind.DATETIME
        && kind != ColumnKind.TIMESTAMP
        && kind != ColumnKind.TIME) {
      scale = 0;
    }
    if (kind != ColumnKind.DECIMAL) {
      precision = 0;
    }
    if (kind != ColumnKind.INTEGER
        && kind != ColumnKind.DECIMAL
        && kind != ColumnKind.FLOAT
        && kind != ColumnKind.DOUBLE) {
      unsigned = false;
    }
    boolean character = kind == ColumnKind.TEXT || kind == ColumnKind.JSON;
    return new ColumnDef(
        name,
        kind,
        dataType,
        unsigned,
        length,
        fixed,
        precision,
        scale,
        charset,
        labels,
        nullable,
        generated,
        columnType,
        character ? collation : null,
        character ? maxChars : 0);
  }

  /**
   * The kind of an {@code information_schema} DATA_TYPE; {@link ColumnKind#OTHER} for a type no
   * other kind describes.
   */
  public static ColumnKind kindOf(String dataType) {
    return switch (dataType) {
      case "tinyint", "smallint", "mediumint", "int", "bigint" -> ColumnKind.INTEGER;
      case "decimal" -> ColumnKind.DECIMAL;
      case "float" -> ColumnKind.FLOAT;
      case "double" -> ColumnKind.DOUBLE;
      case "bit" -> ColumnKind.BIT;
      case "date" -> ColumnKind.DATE;
      case "datetime" -> ColumnKind.DATETIME;
      case "timestamp" -> ColumnKind.TIMESTAMP;
      case "time" -> ColumnKind.TIME;
      case "year" -> ColumnKind.YEAR;
      case "char", "varchar", "tinytext", "text", "mediumtext", "longtext" -> ColumnKind.TEXT;
      case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob" -> ColumnKind.BYTES;
      case "enum" -> ColumnKind.ENUM;
      case "set" -> ColumnKind.SET;
      case "json" -> ColumnKind.JSON;
      default -> ColumnDef.SPATIAL.contains(dataType) ? ColumnKind.BYTES : ColumnKind.OTHER;
    };
  }

  /** The labels of {@code enum('a','b''c')} or {@code set(...)}, unescaped, in order. */
  public static List<String> labels(String columnType) {
    List<String> out = new ArrayList<>();
    int i = columnType.indexOf('(') + 1;
    while (i > 0 && i < columnType.length()) {
      if (columnType.charAt(i) != '\'') {
        i++;
        continue;
      }
      StringBuilder label = new StringBuilder();
      i++;
      while (i < columnType.length()) {
        char ch = columnType.charAt(i);
        if (ch == '\'' && i + 1 < columnType.length() && columnType.charAt(i + 1) == '\'') {
          label.append('\'');
          i += 2;
        } else if (ch == '\'') {
          i++;
          break;
        } else if (ch == '\\' && i + 1 < columnType.length()) {
          label.append(columnType.charAt(i + 1));
          i += 2;
        } else {
          label.append(ch);
          i++;
        }
      }
      out.add(label.toString());
    }
    return out;
  }
}
