package io.reshard.cluster;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * Which server program a local cluster runs: MariaDB (the machine's {@code mariadbd}, the default)
 * or MySQL 8.0.31 (extracted from a Maven artifact by {@link MySqlDistribution}). Recorded per
 * server in {@code cluster.json} as {@code "flavor": "mariadb" | "mysql"}; a descriptor written
 * before flavors existed reads as MariaDB.
 */
public enum Flavor {
  /** MariaDB 10.11 from the Debian package {@code mariadb-server}. */
  MARIADB("mariadb", "jdbc:mariadb://"),
  /** MySQL Community Server 8.0.31, reached with MySQL Connector/J. */
  MYSQL("mysql", "jdbc:mysql://");

  private final String id;
  private final String jdbcPrefix;

  Flavor(String id, String jdbcPrefix) {
    this.id = id;
    this.jdbcPrefix = jdbcPrefix;
  }

  /**
   * The name used in {@code cluster.json} and on the command line: {@code mariadb}, {@code mysql}.
   */
  public String id() {
    return id;
  }

  /**
   * The JDBC URL prefix that selects this flavor's driver ({@code jdbc:mariadb://} for MariaDB
   * Connector/J, {@code jdbc:mysql://} for MySQL Connector/J).
   */
  public String jdbcPrefix() {
    return jdbcPrefix;
  }

  /**
   * The flavor named {@code text} (case-insensitive); null or blank is {@link #MARIADB}.
   *
   * @throws IllegalArgumentException naming the flavors there are
   */
  public static Flavor parse(String text) {
    if (text == null || text.isBlank()) {
      return MARIADB;
    }
    String wanted = text.strip().toLowerCase(Locale.ROOT);
    for (Flavor f : values()) {
      if (f.id.equals(wanted)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "unknown server flavor '"
            + text
            + "'; use one of "
            + Arrays.stream(values()).map(Flavor::id).collect(Collectors.joining(", ")));
  }
}
