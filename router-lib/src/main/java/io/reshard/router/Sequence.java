package io.reshard.router;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;

/**
 * One sequence: a table in an unsharded keyspace in Vitess's {@code vitess_sequence} layout, from
 * which router-lib takes the ids of a sharded table's {@link AutoIncrement} column.
 *
 * <pre>{@code
 * CREATE TABLE messages_seq (id INT NOT NULL PRIMARY KEY, next_id BIGINT NOT NULL,
 *                            cache BIGINT NOT NULL) ENGINE=InnoDB COMMENT 'vitess_sequence';
 * INSERT INTO messages_seq (id, next_id, cache) VALUES (0, 1, 1000);
 * }</pre>
 *
 * <p>The single row {@code id = 0} holds the next id not yet handed out ({@code next_id}) and the
 * block size ({@code cache}). {@link #next()} hands out ids from a block held in memory; when the
 * block is used up it reserves the next one in one short transaction:
 *
 * <pre>{@code
 * SELECT next_id, cache FROM messages_seq WHERE id = 0 FOR UPDATE;   -- say 1001, 1000
 * UPDATE messages_seq SET next_id = 2001 WHERE id = 0;               -- this router owns [1001, 2001)
 * COMMIT;
 * }</pre>
 *
 * The row lock orders every reservation, by any router anywhere, so two blocks never overlap and no
 * id is handed out twice: not across threads, router instances or restarts (a router that stops
 * loses the rest of its block, leaving a gap, never a repeat). Ids are unique and increase within
 * one router, but across routers they interleave and are not in commit order, as in Vitess. The
 * switcher raises {@code next_id} above every id a workflow copied ({@link #raiseNextId}), so ids
 * the servers chose before the sequence was used cannot come back.
 *
 * <p>Thread-safe: callers of {@link #next()} share the block; one of them reserves the next block
 * while the others wait for it.
 */
public final class Sequence {
  /** The comment Vitess gives a sequence table; kept so such a table is recognisable. */
  public static final String TABLE_COMMENT = "vitess_sequence";

  /** The block size {@link #createTable} gives a new sequence: one reservation per 1,000 ids. */
  public static final long DEFAULT_CACHE = 1000;

  private final String keyspace;
  private final String table;
  private final ConnectionSource connections;
  private long nextId;
  private long limit;

  /** Where a sequence gets a connection to its keyspace's database (autocommit on). */
  @FunctionalInterface
  interface ConnectionSource {
    Connection connect();
  }

  Sequence(String keyspace, String table, ConnectionSource connections) {
    this.keyspace = Objects.requireNonNull(keyspace, "keyspace");
    this.table = Objects.requireNonNull(table, "table");
    this.connections = Objects.requireNonNull(connections, "connections");
  }

  /** The sequence's name, {@code keyspace.table}. */
  public String name() {
    return keyspace + "." + table;
  }

  /**
   * The next id: from the block held, or from a block reserved now.
   *
   * @throws ReshardException naming the sequence and what to do if it has no row {@code id = 0},
   *     its {@code cache} is below 1, or its table cannot be read or updated
   */
  public synchronized long next() {
    if (nextId >= limit) {
      reserve();
    }
    return nextId++;
  }

  /** Reserves {@code [next_id, next_id + cache)} in one transaction. */
  private void reserve() {
    try (Connection c = connections.connect()) {
      c.setAutoCommit(false);
      try {
        long[] block = reserve(c);
        c.commit();
        nextId = block[0];
        limit = block[1];
      } catch (SQLException | RuntimeException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
    } catch (SQLException e) {
      throw new ShardQueryException(
          "-", "reserving a block of sequence " + name() + " (table " + table + ")", e);
    }
  }

  private long[] reserve(Connection c) throws SQLException {
    long next;
    long cache;
    try (PreparedStatement ps =
            c.prepareStatement(
                "SELECT next_id, cache FROM " + Router.q(table) + " WHERE id = 0 FOR UPDATE");
        ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        throw new ReshardException(
            "sequence "
                + name()
                + " has no row id = 0; give it one: INSERT INTO "
                + table
                + " (id, next_id, cache) VALUES (0, 1, "
                + DEFAULT_CACHE
                + ")");
      }
      next = rs.getLong(1);
      cache = rs.getLong(2);
    }
    if (cache < 1) {
      throw new ReshardException(
          "sequence "
              + name()
              + " has cache = "
              + cache
              + "; the block size must be 1 or more: UPDATE "
              + table
              + " SET cache = "
              + DEFAULT_CACHE
              + " WHERE id = 0");
    }
    long limit = Math.addExact(next, cache);
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + Router.q(table) + " SET next_id = ? WHERE id = 0")) {
      ps.setLong(1, limit);
      ps.executeUpdate();
    }
    return new long[] {next, limit};
  }

  /**
   * Creates a sequence table in the current database of {@code c} with its row {@code id = 0}, if
   * the table does not exist yet (an existing one is left as it is).
   *
   * @param nextId the first id to hand out, 1 or more
   * @param cache the block size, 1 or more
   */
  public static void createTable(Connection c, String table, long nextId, long cache)
      throws SQLException {
    if (nextId < 1 || cache < 1) {
      throw new IllegalArgumentException(
          "sequence "
              + table
              + ": next_id and cache must be 1 or more, got "
              + nextId
              + ", "
              + cache);
    }
    try (Statement st = c.createStatement()) {
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + Router.q(table)
              + " (id INT NOT NULL PRIMARY KEY, next_id BIGINT NOT NULL, cache BIGINT NOT NULL)"
              + " ENGINE=InnoDB COMMENT '"
              + TABLE_COMMENT
              + "'");
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT IGNORE INTO " + Router.q(table) + " (id, next_id, cache) VALUES (0, ?, ?)")) {
      ps.setLong(1, nextId);
      ps.setLong(2, cache);
      ps.executeUpdate();
    }
  }

  /**
   * Raises the sequence's {@code next_id} to at least {@code floor} (never lowers it), in the
   * database {@code database} of {@code c}'s server. The switcher calls it at the write switch with
   * the largest copied id + 1, so no id handed out later is one a server chose before.
   *
   * @return the {@code next_id} the row holds afterwards
   * @throws ReshardException if the table has no row {@code id = 0}
   */
  public static long raiseNextId(Connection c, String database, String table, long floor)
      throws SQLException {
    String t = Router.q(database) + "." + Router.q(table);
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE " + t + " SET next_id = GREATEST(next_id, ?) WHERE id = 0")) {
      ps.setLong(1, floor);
      ps.executeUpdate();
    }
    try (Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT next_id FROM " + t + " WHERE id = 0")) {
      if (!rs.next()) {
        throw new ReshardException(
            "sequence "
                + database
                + "."
                + table
                + " has no row id = 0; give it one: INSERT INTO "
                + table
                + " (id, next_id, cache) VALUES (0, "
                + Math.max(1, floor)
                + ", "
                + DEFAULT_CACHE
                + ")");
      }
      return rs.getLong(1);
    }
  }
}
