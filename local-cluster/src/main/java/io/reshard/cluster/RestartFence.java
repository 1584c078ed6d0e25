package io.reshard.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Optional;

/**
 * What a server restarted on its data must be again: {@code read_only} if it holds reshard's fence
 * rows and none of them leaves a shard writable (a source fenced by a write switch or retired by a
 * complete, a target still being filled or fenced by a reverse). {@code SET GLOBAL read_only} is
 * not kept over a restart, so without this a killed and restarted server would take writes from
 * every client that bypasses the router (the fence rows stop routers in any case). Reshard's own
 * streams and copies write as a user with {@code SUPER}, which {@code read_only} lets through, and
 * the switcher sets it again on every step, so nothing of a workflow depends on this; on MySQL a
 * retired source had {@code super_read_only}, which comes back as plain {@code read_only}.
 * Stateless.
 */
final class RestartFence {
  /** {@code ER_NO_SUCH_TABLE}. */
  private static final int NO_SUCH_TABLE = 1146;

  /** {@code ER_BAD_DB_ERROR}. */
  private static final int NO_SUCH_DATABASE = 1049;

  private RestartFence() {}

  /**
   * Sets {@code server} {@code read_only} if its fence rows hold no writable shard.
   *
   * @return what it did, for the cluster's output, or empty if it left the server as it started (no
   *     fence rows, or a writable shard among them)
   */
  static Optional<String> restore(ClusterDescriptor.Server server) {
    String url = server.jdbcUrl("") + "?connectTimeout=2000&socketTimeout=10000";
    try (Connection c = DriverManager.getConnection(url, server.user(), "");
        Statement st = c.createStatement()) {
      long rows;
      long writable;
      try (ResultSet rs =
          st.executeQuery("SELECT COUNT(*), COALESCE(SUM(writable), 0) FROM _reshard.fence")) {
        rs.next();
        rows = rs.getLong(1);
        writable = rs.getLong(2);
      } catch (SQLException e) {
        if (e.getErrorCode() == NO_SUCH_TABLE || e.getErrorCode() == NO_SUCH_DATABASE) {
          return Optional.empty(); // no _reshard.fence: the server holds no shard of reshard's
        }
        throw e;
      }
      if (rows == 0 || writable > 0) {
        return Optional.empty();
      }
      st.execute("SET GLOBAL read_only = ON");
      return Optional.of(
          "read_only again: its "
              + rows
              + (rows == 1 ? " fence row leaves" : " fence rows leave")
              + " no shard writable (a restart forgets SET GLOBAL read_only)");
    } catch (SQLException e) {
      return Optional.of(
          "could not check its fence rows ("
              + e.getMessage()
              + "); if it holds a fenced or retired shard, run SET GLOBAL read_only = ON on it");
    }
  }
}
