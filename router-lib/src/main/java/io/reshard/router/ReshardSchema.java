package io.reshard.router;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The {@code _reshard} database that every shard server holds next to the keyspace's data, and its
 * fence table (DESIGN 4.3): one row per (keyspace, shard) with the shard's write epoch and whether
 * it is writable.
 *
 * <p>Routers only read the fence row, with a locking read at the start of each write transaction
 * ({@link #FENCE_CHECK}). It is written by {@code keyspace init} and by the switcher. Stateless.
 */
public final class ReshardSchema {

  /** The database that holds reshard's own tables on every shard server. */
  public static final String DATABASE = "_reshard";

  /** Creates the fence table. */
  public static final String CREATE_FENCE =
      "CREATE TABLE IF NOT EXISTS "
          + DATABASE
          + ".fence ("
          + " keyspace VARBINARY(64) NOT NULL,"
          + " shard VARBINARY(64) NOT NULL,"
          + " epoch BIGINT NOT NULL,"
          + " writable TINYINT NOT NULL,"
          + " PRIMARY KEY (keyspace, shard)"
          + ") ENGINE=InnoDB";

  /**
   * The router's first statement in a write transaction on a shard: a shared lock on the fence row.
   * The switcher's {@code UPDATE ... SET writable = 0} needs the exclusive lock, so it waits for
   * every router transaction that holds the row, and every later one queues behind it: once the
   * update commits, no router write can commit on the shard (DESIGN 4.3).
   */
  static final String FENCE_CHECK =
      "SELECT epoch, writable FROM "
          + DATABASE
          + ".fence WHERE keyspace = ? AND shard = ?"
          + " LOCK IN SHARE MODE";

  private ReshardSchema() {}

  /** Creates {@code _reshard} and the fence table if they do not exist. */
  public static void create(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
      s.execute(CREATE_FENCE);
    }
  }

  /**
   * Sets a shard's fence row (insert or overwrite), in the connection's current transaction.
   *
   * @param epoch the shard's write epoch
   * @param writable whether routers may write
   */
  public static void setFence(
      Connection c, String keyspace, String shard, long epoch, boolean writable)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + DATABASE
                + ".fence (keyspace, shard, epoch, writable) VALUES (?, ?, ?, ?)"
                + " ON DUPLICATE KEY UPDATE epoch = VALUES(epoch), writable = VALUES(writable)")) {
      ps.setString(1, keyspace);
      ps.setString(2, shard);
      ps.setLong(3, epoch);
      ps.setInt(4, writable ? 1 : 0);
      ps.executeUpdate();
    }
  }

  /**
   * Sets {@code writable} on an existing fence row, leaving the epoch alone: the switcher's fence
   * ({@code false}) and un-fence ({@code true}). Blocks while router transactions hold the row.
   *
   * @return the number of rows changed (0 if the row is missing or already so)
   */
  public static int setWritable(Connection c, String keyspace, String shard, boolean writable)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE " + DATABASE + ".fence SET writable = ? WHERE keyspace = ? AND shard = ?")) {
      ps.setInt(1, writable ? 1 : 0);
      ps.setString(2, keyspace);
      ps.setString(3, shard);
      return ps.executeUpdate();
    }
  }
}
