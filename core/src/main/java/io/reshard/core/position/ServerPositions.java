package io.reshard.core.position;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The one place that knows, per server {@link GtidPosition.Flavor}, how a server is reached and how
 * it reports its position: the JDBC URL (MariaDB Connector/J for MariaDB, MySQL Connector/J for
 * MySQL), the flavor of an open connection, and the server's current position
 * ({@code @@GLOBAL.gtid_binlog_pos} on MariaDB, {@code @@GLOBAL.gtid_executed} on MySQL). Every
 * reader of a server's position goes through {@link #current(Connection)}.
 *
 * <p>Stateless and thread-safe.
 */
public final class ServerPositions {

  private ServerPositions() {}

  /**
   * The JDBC URL of database {@code database} (empty for none) on {@code host:port}, with the
   * driver of {@code flavor}: {@code jdbc:mariadb://} or {@code jdbc:mysql://}.
   */
  public static String jdbcUrl(GtidPosition.Flavor flavor, String host, int port, String database) {
    String scheme = flavor == GtidPosition.Flavor.MYSQL ? "jdbc:mysql://" : "jdbc:mariadb://";
    return scheme + host + ":" + port + "/" + database;
  }

  /**
   * The flavor named {@code text} ({@code mariadb} or {@code mysql}, case-insensitive); null or
   * blank is MariaDB.
   *
   * @throws IllegalArgumentException for any other name
   */
  public static GtidPosition.Flavor parseFlavor(String text) {
    if (text == null || text.isBlank()) {
      return GtidPosition.Flavor.MARIADB;
    }
    return switch (text.strip().toLowerCase(Locale.ROOT)) {
      case "mariadb" -> GtidPosition.Flavor.MARIADB;
      case "mysql" -> GtidPosition.Flavor.MYSQL;
      default ->
          throw new IllegalArgumentException(
              "unknown server flavor '" + text + "'; use mariadb or mysql");
    };
  }

  /**
   * The flavor of the server behind {@code c}: MariaDB if its version says so ({@code
   * 10.11.6-MariaDB-...}), else MySQL.
   */
  public static GtidPosition.Flavor flavorOf(Connection c) throws SQLException {
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@version")) {
      rs.next();
      return rs.getString(1).contains("MariaDB")
          ? GtidPosition.Flavor.MARIADB
          : GtidPosition.Flavor.MYSQL;
    }
  }

  /** The variable that holds the executed position on {@code flavor}. */
  public static String positionVariable(GtidPosition.Flavor flavor) {
    return flavor == GtidPosition.Flavor.MYSQL
        ? "@@GLOBAL.gtid_executed"
        : "@@GLOBAL.gtid_binlog_pos";
  }

  /**
   * The position of the server behind {@code c}: everything it has written to its binlog.
   *
   * @throws SQLException if the server cannot be read
   * @throws IllegalArgumentException if it reports a position reshard cannot parse (MySQL 8.4's
   *     tagged GTIDs among them), naming it
   */
  public static GtidPosition current(Connection c) throws SQLException {
    GtidPosition.Flavor flavor = flavorOf(c);
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT " + positionVariable(flavor))) {
      rs.next();
      String text = rs.getString(1);
      String value = text == null ? "" : text;
      return flavor == GtidPosition.Flavor.MYSQL
          ? GtidPosition.parseMySql(value)
          : GtidPosition.parseMariaDb(value);
    }
  }
}
