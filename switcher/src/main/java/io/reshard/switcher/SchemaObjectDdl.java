package io.reshard.switcher;

import io.reshard.core.schema.SchemaObject;
import io.reshard.core.schema.SchemaObjectReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Creates and drops a {@link SchemaObject} on a server, idempotently: an object that is there
 * already is not created again, one that is not there is not dropped (so a step re-run after a
 * crash writes nothing twice into a binlog). The statement is the source's own {@code SHOW CREATE}
 * text, run under the {@code sql_mode} and {@code collation_connection} it was created under (its
 * text travels in the driver's {@code utf8mb4}), in the keyspace's database; the session's own
 * settings are restored after. Stateless.
 */
final class SchemaObjectDdl {
  private SchemaObjectDdl() {}

  /**
   * Creates {@code o} in {@code database} unless it exists.
   *
   * @return true if it was created
   */
  static boolean create(Connection c, String database, SchemaObject o) throws SQLException {
    if (SchemaObjectReader.exists(c, database, o)) {
      return false;
    }
    // character_set_client stays the driver's (utf8mb4): the statement's text reaches us, and goes
    // back, in it; setting the original one would misread every non-ASCII character of the text
    String[] saved = session(c);
    try (Statement st = c.createStatement()) {
      set(c, "sql_mode", o.sqlMode());
      if (o.collationConnection() != null) {
        set(c, "collation_connection", o.collationConnection());
      }
      st.execute("USE `" + database.replace("`", "``") + "`");
      st.execute(o.statement());
    } catch (SQLException e) {
      throw new SQLException(
          "creating " + o.describe() + " in " + database + " failed: " + e.getMessage(),
          e.getSQLState(),
          e.getErrorCode(),
          e);
    } finally {
      set(c, "sql_mode", saved[0]);
      set(c, "collation_connection", saved[1]);
    }
    return true;
  }

  /**
   * Drops {@code o} from {@code database} if it exists.
   *
   * @return true if it was dropped
   */
  static boolean drop(Connection c, String database, SchemaObject o) throws SQLException {
    if (!SchemaObjectReader.exists(c, database, o)) {
      return false;
    }
    try (Statement st = c.createStatement()) {
      st.execute("DROP " + o.kind().sql() + " " + SchemaObjectReader.name(database, o.name()));
    }
    return true;
  }

  private static String[] session(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT @@SESSION.sql_mode, @@SESSION.collation_connection")) {
      rs.next();
      return new String[] {rs.getString(1), rs.getString(2)};
    }
  }

  private static void set(Connection c, String variable, String value) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SET SESSION " + variable + " = ?")) {
      ps.setString(1, value);
      ps.execute();
    }
  }
}
