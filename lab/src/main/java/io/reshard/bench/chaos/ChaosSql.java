package io.reshard.bench.chaos;

import io.reshard.cluster.ClusterDescriptor;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The chaos run's own SQL connections (loading, the read lock, the end checks), as the local
 * cluster's user without a password. Timeouts keep the harness from hanging on a paused server:
 * {@link #CONNECT_TIMEOUT_MS} to connect, {@link #SOCKET_TIMEOUT_MS} per statement. Stateless.
 */
final class ChaosSql {
  /** How long a connection attempt may take; a killed server refuses at once. */
  static final int CONNECT_TIMEOUT_MS = 5_000;

  /** How long one statement may take; the end checks read a few tens of thousands of rows. */
  static final int SOCKET_TIMEOUT_MS = 120_000;

  private ChaosSql() {}

  /** A connection to {@code server}'s database {@code database} (empty for none). */
  static Connection connect(ClusterDescriptor.Server server, String database) throws SQLException {
    return DriverManager.getConnection(
        server.jdbcUrl(database)
            + "?connectTimeout="
            + CONNECT_TIMEOUT_MS
            + "&socketTimeout="
            + SOCKET_TIMEOUT_MS,
        server.user(),
        "");
  }
}
