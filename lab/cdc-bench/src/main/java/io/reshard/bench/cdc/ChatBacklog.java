package io.reshard.bench.cdc;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.core.position.ServerPositions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The benchmark's data: a chat table (id, channel_id, user_id, created_at, a body of about 130
 * characters) and a binlog backlog of row changes on it, written with set-based SQL so that the
 * load itself is quick: half the changes are inserts ({@code INSERT ... SELECT} from the SEQUENCE
 * engine's {@code seq_a_to_b} on MariaDB, from a recursive common table expression of the same
 * numbers on MySQL, which has no SEQUENCE engine), 30 % updates of the first ids (a new user_id and
 * body, so every row really changes), 20 % deletes of the last ids; each statement covers one chunk
 * of ids and commits on its own, so the binlog holds one transaction per chunk. The final table
 * holds {@code inserts - deletes} rows.
 */
final class ChatBacklog {
  static final String DATABASE = "chat";
  static final String TABLE = "messages";
  static final String DDL =
      "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
          + " user_id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL, body VARCHAR(200) NOT NULL,"
          + " KEY by_channel (channel_id, created_at)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";
  static final String VSCHEMA =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
          + " \"tables\": {\"messages\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}";
  private static final String WORDS =
      "the quick brown fox jumps over a lazy dog while shards split and merge online ";

  /**
   * How the changes split.
   *
   * @param inserts rows inserted, ids 1..inserts
   * @param updates rows updated, ids 1..updates
   * @param deletes rows deleted, the last ids
   */
  record Changes(long inserts, long updates, long deletes) {
    static Changes of(long total) {
      long inserts = total / 2;
      long updates = total * 3 / 10;
      return new Changes(inserts, updates, total - inserts - updates);
    }

    long total() {
      return inserts + updates + deletes;
    }

    long finalRows() {
      return inserts - deletes;
    }
  }

  private ChatBacklog() {}

  /** Creates the database and the empty table on {@code server}, as {@code database}. */
  static void createTable(ClusterDescriptor.Server server, String database) throws SQLException {
    try (Connection c = connect(server, "");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE " + database);
      st.execute("USE " + database);
      st.execute(DDL);
    }
  }

  /**
   * Writes the changes in chunks of {@code chunk} rows, one transaction per statement; the same
   * rows on either flavor of {@code server} (only the source of the numbers {@code a..b} differs).
   */
  static void load(ClusterDescriptor.Server server, Changes n, int chunk) throws SQLException {
    boolean mysql = server.flavorOrDefault() == Flavor.MYSQL;
    try (Connection c = connect(server, DATABASE);
        Statement st = c.createStatement()) {
      if (mysql) {
        // a chunk of N numbers recurses N - 1 times; MySQL stops a CTE at 1,000 by default
        st.execute("SET SESSION cte_max_recursion_depth = " + Math.max(1000, chunk));
      }
      for (long a = 1; a <= n.inserts(); a += chunk) {
        long b = Math.min(n.inserts(), a + chunk - 1);
        st.executeUpdate(
            "INSERT INTO messages "
                + (mysql ? numbersCte(a, b) : "")
                + "SELECT seq, 1 + (seq * 7919) % 5000, 1 + (seq * 104729) % 100000,"
                + " TIMESTAMP'2026-01-01 00:00:00' + INTERVAL seq * 1000 MICROSECOND,"
                + " SUBSTRING(REPEAT('"
                + WORDS
                + "', 3), 1 + seq % 70, 120 + seq % 20) FROM "
                + (mysql ? "numbers" : "seq_" + a + "_to_" + b));
      }
      for (long a = 1; a <= n.updates(); a += chunk) {
        long b = Math.min(n.updates(), a + chunk - 1);
        st.executeUpdate(
            "UPDATE messages SET user_id = user_id + 1, body = CONCAT('edited: ', LEFT(body, 122))"
                + " WHERE id BETWEEN "
                + a
                + " AND "
                + b);
      }
      for (long a = n.inserts() - n.deletes() + 1; a <= n.inserts(); a += chunk) {
        long b = Math.min(n.inserts(), a + chunk - 1);
        st.executeUpdate("DELETE FROM messages WHERE id BETWEEN " + a + " AND " + b);
      }
    }
  }

  /**
   * The numbers {@code a..b} as the table {@code numbers(seq)}, for MySQL: a recursive common table
   * expression in front of the {@code SELECT} of an {@code INSERT ... SELECT}.
   */
  private static String numbersCte(long a, long b) {
    return "WITH RECURSIVE numbers (seq) AS (SELECT CAST("
        + a
        + " AS UNSIGNED) UNION ALL SELECT seq + 1 FROM numbers WHERE seq < "
        + b
        + ") ";
  }

  /**
   * The server's position, read the way its flavor gives it ({@link ServerPositions#current}:
   * {@code @@gtid_binlog_pos} on MariaDB, {@code @@gtid_executed} on MySQL), as canonical text.
   */
  static String binlogPosition(ClusterDescriptor.Server server) throws SQLException {
    try (Connection c = connect(server, "")) {
      return ServerPositions.current(c).toString();
    }
  }

  /** The total size of the server's binlog files, bytes. */
  static long binlogBytes(ClusterDescriptor.Server server) throws SQLException {
    long total = 0;
    try (Connection c = connect(server, "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
      while (rs.next()) {
        total += rs.getLong(2);
      }
    }
    return total;
  }

  /**
   * Row count and {@code CHECKSUM TABLE} of {@code database}.messages, as {@code rows/checksum}.
   */
  static String fingerprint(ClusterDescriptor.Server server, String database) throws SQLException {
    String count = queryString(server, "SELECT COUNT(*) FROM " + database + ".messages");
    try (Connection c = connect(server, "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("CHECKSUM TABLE " + database + ".messages")) {
      rs.next();
      return count + "/" + rs.getLong(2);
    }
  }

  /** Runs statements in autocommit mode. */
  static void execute(ClusterDescriptor.Server server, String... sql) throws SQLException {
    try (Connection c = connect(server, "");
        Statement st = c.createStatement()) {
      for (String s : sql) {
        st.execute(s);
      }
    }
  }

  private static String queryString(ClusterDescriptor.Server server, String sql)
      throws SQLException {
    try (Connection c = connect(server, "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  static Connection connect(ClusterDescriptor.Server server, String database) throws SQLException {
    return DriverManager.getConnection(server.jdbcUrl(database), server.user(), "");
  }
}
