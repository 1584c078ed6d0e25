package io.reshard.core.rows;

import io.reshard.core.schema.ColumnKind;
import io.reshard.router.JdbcEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Connections for copy, apply-side writes and diff, with the session settings of DESIGN 4.5: {@code
 * time_zone = '+00:00'} (a {@code TIMESTAMP} is read and written without any shift), the source's
 * {@code sql_mode} without {@code NO_ZERO_DATE}, {@code NO_ZERO_IN_DATE}, the {@code STRICT_*}
 * modes and {@code PAD_CHAR_TO_FULL_LENGTH} (so zero dates stored on the source can be stored on
 * the targets; conversion problems are still caught, because writers treat every warning as an
 * error), and {@code foreign_key_checks = 0} (rows arrive in key order, not in reference order).
 *
 * <p>Connections use client-side prepared statements, so every result comes in the text protocol
 * and every parameter goes as a literal: the value transport of {@link ColumnKind} depends on it.
 *
 * <p>Stateless and thread-safe.
 */
public final class Sessions {
  /** Modes removed from the source's {@code sql_mode}; see the class description. */
  static final Set<String> REMOVED_MODES =
      Set.of(
          "NO_ZERO_DATE",
          "NO_ZERO_IN_DATE",
          "STRICT_TRANS_TABLES",
          "STRICT_ALL_TABLES",
          "PAD_CHAR_TO_FULL_LENGTH");

  private Sessions() {}

  /** The pipeline's {@code sql_mode} for a source whose global {@code sql_mode} is given. */
  public static String pipelineSqlMode(String sourceSqlMode) {
    return Arrays.stream(sourceSqlMode.split(","))
        .map(String::trim)
        .filter(m -> !m.isEmpty() && !REMOVED_MODES.contains(m.toUpperCase(Locale.ROOT)))
        .collect(Collectors.joining(","));
  }

  /** Reads {@code @@GLOBAL.sql_mode} of the server behind {@code c}. */
  public static String globalSqlMode(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT @@GLOBAL.sql_mode")) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * Opens a connection to {@code database} on {@code endpoint} with the pipeline's session
   * settings.
   *
   * @param sqlMode the pipeline's {@code sql_mode} ({@link #pipelineSqlMode})
   */
  public static Connection open(JdbcEndpoint endpoint, String database, String sqlMode)
      throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", endpoint.user());
    p.setProperty("password", endpoint.password());
    p.setProperty("useServerPrepStmts", "false");
    p.setProperty("connectTimeout", "10000");
    Connection c = DriverManager.getConnection(endpoint.urlFor(database), p);
    try {
      apply(c, sqlMode);
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** Applies the session settings to an open connection. */
  public static void apply(Connection c, String sqlMode) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SET SESSION time_zone = '+00:00', sql_mode = ?, foreign_key_checks = 0")) {
      ps.setString(1, sqlMode);
      ps.execute();
    }
  }
}
