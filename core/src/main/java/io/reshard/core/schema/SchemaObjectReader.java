package io.reshard.core.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a database's triggers, views, procedures and functions ({@link SchemaObject}) from {@code
 * information_schema} and the server's {@code SHOW CREATE} statements, and tells which tables a
 * definition uses. Stateless; the connection's user must see the objects' definitions (their
 * definer, or a user with {@code SHOW CREATE ROUTINE} / {@code SELECT} on {@code mysql.proc}, and
 * {@code SELECT} on {@code mysql.user} for {@link #userExists}).
 */
public final class SchemaObjectReader {
  /** A back-quoted identifier (a doubled back quote inside it) or a bare word. */
  private static final Pattern IDENTIFIER = Pattern.compile("`((?:[^`]|``)+)`|([A-Za-z0-9_$]+)");

  /** A qualified name {@code db.t}, either part back-quoted or bare. */
  private static final Pattern QUALIFIED =
      Pattern.compile("(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)\\s*\\.\\s*(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)");

  private static final Set<String> SYSTEM_DATABASES =
      Set.of("information_schema", "mysql", "performance_schema", "sys");

  private SchemaObjectReader() {}

  /**
   * The triggers on {@code table}, in the order they fire for each event (timing, event, {@code
   * ACTION_ORDER}), which is the order to create them in again.
   */
  public static List<SchemaObject> triggers(Connection c, String database, String table)
      throws SQLException {
    List<String[]> found = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT TRIGGER_NAME, DEFINER, ACTION_STATEMENT FROM information_schema.TRIGGERS"
                + " WHERE EVENT_OBJECT_SCHEMA = ? AND EVENT_OBJECT_TABLE = ?"
                + " ORDER BY ACTION_TIMING, EVENT_MANIPULATION, ACTION_ORDER")) {
      ps.setString(1, database);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
        }
      }
    }
    List<SchemaObject> out = new ArrayList<>();
    for (String[] t : found) {
      // Trigger, sql_mode, SQL Original Statement, character_set_client, collation_connection
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SHOW CREATE TRIGGER " + name(database, t[0]))) {
        rs.next();
        out.add(
            new SchemaObject(
                SchemaObject.Kind.TRIGGER,
                t[0],
                table,
                t[1],
                rs.getString(2),
                rs.getString(4),
                rs.getString(5),
                rs.getString(3),
                t[2]));
      }
    }
    return out;
  }

  /** The views of {@code database}, by name. */
  public static List<SchemaObject> views(Connection c, String database) throws SQLException {
    List<String[]> found = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT TABLE_NAME, DEFINER, VIEW_DEFINITION FROM information_schema.VIEWS"
                + " WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME")) {
      ps.setString(1, database);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(new String[] {rs.getString(1), rs.getString(2), rs.getString(3)});
        }
      }
    }
    List<SchemaObject> out = new ArrayList<>();
    for (String[] v : found) {
      // View, Create View, character_set_client, collation_connection
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SHOW CREATE VIEW " + name(database, v[0]))) {
        rs.next();
        out.add(
            new SchemaObject(
                SchemaObject.Kind.VIEW,
                v[0],
                null,
                v[1],
                "",
                rs.getString(3),
                rs.getString(4),
                rs.getString(2),
                v[2]));
      }
    }
    return out;
  }

  /** The procedures and functions of {@code database}, by type and name. */
  public static List<SchemaObject> routines(Connection c, String database) throws SQLException {
    List<String[]> found = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT ROUTINE_NAME, ROUTINE_TYPE, DEFINER, ROUTINE_DEFINITION"
                + " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?"
                + " AND ROUTINE_TYPE IN ('PROCEDURE', 'FUNCTION')"
                + " ORDER BY ROUTINE_TYPE, ROUTINE_NAME")) {
      ps.setString(1, database);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          found.add(
              new String[] {rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4)});
        }
      }
    }
    List<SchemaObject> out = new ArrayList<>();
    for (String[] r : found) {
      SchemaObject.Kind kind = SchemaObject.Kind.valueOf(r[1]);
      // Procedure|Function, sql_mode, Create ..., character_set_client, collation_connection
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SHOW CREATE " + kind.sql() + " " + name(database, r[0]))) {
        rs.next();
        String statement = rs.getString(3);
        if (statement == null) {
          throw new SQLException(
              "the server shows no definition of "
                  + kind.word()
                  + " "
                  + database
                  + "."
                  + r[0]
                  + " to this user: grant it SHOW CREATE ROUTINE (or SELECT on mysql.proc)");
        }
        out.add(
            new SchemaObject(
                kind,
                r[0],
                null,
                r[2],
                rs.getString(2),
                rs.getString(4),
                rs.getString(5),
                statement,
                r[3]));
      }
    }
    return out;
  }

  /** The tables and views of {@code database}: lower-cased name to its {@code TABLE_TYPE}. */
  public static Map<String, String> tables(Connection c, String database) throws SQLException {
    Map<String, String> out = new LinkedHashMap<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?")) {
      ps.setString(1, database);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.put(rs.getString(1).toLowerCase(Locale.ROOT), rs.getString(2));
        }
      }
    }
    return out;
  }

  /** The server's databases other than its own ({@code mysql}, {@code information_schema}...). */
  public static Set<String> otherDatabases(Connection c, String database) throws SQLException {
    Set<String> out = new TreeSet<>();
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT SCHEMA_NAME FROM information_schema.SCHEMATA")) {
      while (rs.next()) {
        String db = rs.getString(1).toLowerCase(Locale.ROOT);
        if (!SYSTEM_DATABASES.contains(db) && !db.equalsIgnoreCase(database)) {
          out.add(db);
        }
      }
    }
    return out;
  }

  /**
   * The tables of the database (keys of {@code tables}, lower case) that {@code body} names, by
   * matching its identifiers: a word that is a table's name counts, wherever it stands (a column or
   * alias of the same name too, so this errs on the side of naming a table).
   */
  public static Set<String> tablesUsed(String body, Set<String> tables) {
    Set<String> used = new TreeSet<>();
    Matcher m = IDENTIFIER.matcher(body == null ? "" : body);
    while (m.find()) {
      String id = (m.group(1) != null ? m.group(1).replace("``", "`") : m.group(2));
      String key = id.toLowerCase(Locale.ROOT);
      if (tables.contains(key)) {
        used.add(key);
      }
    }
    return used;
  }

  /**
   * The {@code db.table} names in {@code body} whose database is one of {@code databases} (lower
   * case): what a definition uses outside its own database.
   */
  public static Set<String> otherDatabaseTablesUsed(String body, Set<String> databases) {
    Set<String> used = new TreeSet<>();
    Matcher m = QUALIFIED.matcher(body == null ? "" : body);
    while (m.find()) {
      String db = unquote(m.group(1)).toLowerCase(Locale.ROOT);
      if (databases.contains(db)) {
        used.add(db + "." + unquote(m.group(2)));
      }
    }
    return used;
  }

  /** Whether the object exists in {@code database} on the server {@code c} reaches. */
  public static boolean exists(Connection c, String database, SchemaObject o) throws SQLException {
    String sql =
        switch (o.kind()) {
          case TRIGGER ->
              "SELECT 1 FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?"
                  + " AND TRIGGER_NAME = ?";
          case VIEW ->
              "SELECT 1 FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?";
          case PROCEDURE, FUNCTION ->
              "SELECT 1 FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?"
                  + " AND ROUTINE_NAME = ? AND ROUTINE_TYPE = '"
                  + o.kind().sql()
                  + "'";
        };
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setString(1, database);
      ps.setString(2, o.name());
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /**
   * Whether the object's definer is a user (or, without a host, a role) of the server {@code c}
   * reaches: an object whose definer does not exist fails when it is used.
   */
  public static boolean definerExists(Connection c, SchemaObject o) throws SQLException {
    if (o.definer() == null || o.definer().isEmpty()) {
      return true;
    }
    String host = o.definerHost();
    try (PreparedStatement ps =
        c.prepareStatement(
            host == null
                ? "SELECT 1 FROM mysql.user WHERE User = ?"
                : "SELECT 1 FROM mysql.user WHERE User = ? AND Host = ?")) {
      ps.setString(1, o.definerUser());
      if (host != null) {
        ps.setString(2, host);
      }
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    }
  }

  /** {@code `db`.`name`}, each part back-quoted. */
  public static String name(String database, String object) {
    return quote(database) + "." + quote(object);
  }

  private static String quote(String id) {
    return "`" + id.replace("`", "``") + "`";
  }

  private static String unquote(String id) {
    return id.startsWith("`") ? id.substring(1, id.length() - 1).replace("``", "`") : id;
  }
}
