package io.reshard.router;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A fenced write transaction of a {@link Router}, against one shard map version.
 *
 * <p>The first statement routed to a shard opens a connection there, turns autocommit off and takes
 * a shared lock on the shard's fence row ({@code _reshard.fence}, DESIGN 4.3). It proceeds only if
 * the row's epoch equals the epoch the map gives the shard and the row says {@code writable = 1};
 * otherwise every shard of the transaction is rolled back and a {@link StaleShardMapException} is
 * thrown. The lock is held until commit, so the switcher's fence update waits for this transaction
 * and no write of it can commit after the shard was fenced.
 *
 * <p>In {@link TransactionMode#SINGLE} mode touching a second shard rolls everything back and
 * throws {@link CrossShardTransactionException}. Not thread-safe: one thread uses a transaction.
 * Always close it (try-with-resources); closing without commit rolls back.
 */
public final class RouterTransaction implements AutoCloseable {
  private final Router router;
  private final ShardMap map;
  private final Map<String, Connection> open = new LinkedHashMap<>();
  private boolean finished;

  RouterTransaction(Router router, ShardMap map) {
    this.router = router;
    this.map = map;
  }

  /** The shard map version this transaction routes by. */
  public long mapVersion() {
    return map.version();
  }

  /** The names of the shards touched so far, in order. */
  public List<String> shards() {
    return new ArrayList<>(open.keySet());
  }

  /**
   * Runs an insert, update or delete on the shard that owns {@code shardingKey} of {@code table}.
   *
   * @return the affected row count
   * @throws StaleShardMapException if the shard's fence refuses this map (all rolled back)
   * @throws CrossShardTransactionException in single mode, on a second shard (all rolled back)
   * @throws ShardQueryException if the statement fails (all rolled back)
   */
  public int update(String table, Object shardingKey, String sql, Object... params) {
    Shard shard = router.writeShard(map, table, shardingKey);
    Connection c = connectionFor(shard);
    try {
      router.metrics().shardQuery(shard.name());
      return Rows.update(c, sql, params);
    } catch (SQLException e) {
      rollbackQuietly();
      throw new ShardQueryException(shard.name(), "statement `" + sql + "`", e);
    }
  }

  /**
   * Runs a query inside the transaction, on the shard that owns {@code shardingKey} of {@code
   * table} (for read-modify-write; use {@code SELECT ... FOR UPDATE} to lock).
   */
  public List<Map<String, Object>> query(
      String table, Object shardingKey, String sql, Object... params) {
    Shard shard = router.writeShard(map, table, shardingKey);
    Connection c = connectionFor(shard);
    try {
      router.metrics().shardQuery(shard.name());
      return Rows.query(c, sql, params);
    } catch (SQLException e) {
      rollbackQuietly();
      throw new ShardQueryException(shard.name(), "query `" + sql + "`", e);
    }
  }

  /**
   * Commits every shard in the order it was first touched.
   *
   * @throws ReshardException if a commit fails; in multi mode its message names the shards that had
   *     already committed (their changes stay: multi mode is not atomic)
   */
  public void commit() {
    requireOpen();
    finished = true;
    List<String> committed = new ArrayList<>();
    for (Map.Entry<String, Connection> e : open.entrySet()) {
      try {
        e.getValue().commit();
        committed.add(e.getKey());
      } catch (SQLException ex) {
        rollbackQuietly();
        String partial =
            committed.isEmpty()
                ? ""
                : "; shards " + committed + " had already committed and keep their changes";
        throw new ReshardException(
            "commit failed on shard "
                + map.keyspace()
                + "/"
                + e.getKey()
                + ": "
                + ex.getMessage()
                + " [error "
                + ex.getErrorCode()
                + "]"
                + partial,
            ex);
      }
    }
    closeAll();
  }

  /** Rolls back every shard touched. Idempotent. */
  public void rollback() {
    if (!finished) {
      finished = true;
      rollbackQuietly();
    }
  }

  @Override
  public void close() {
    rollback();
  }

  private Connection connectionFor(Shard shard) {
    requireOpen();
    Connection c = open.get(shard.name());
    if (c != null) {
      return c;
    }
    if (!open.isEmpty() && router.config().mode() == TransactionMode.SINGLE) {
      String first = open.keySet().iterator().next();
      rollbackQuietly();
      finished = true;
      throw new CrossShardTransactionException(map.keyspace(), first, shard.name());
    }
    c = router.pools().connect(shard);
    open.put(shard.name(), c);
    try {
      c.setAutoCommit(false);
      checkFence(c, shard);
    } catch (SQLException e) {
      rollbackQuietly();
      finished = true;
      throw new ShardQueryException(shard.name(), "the fence check", e);
    } catch (StaleShardMapException e) {
      rollbackQuietly();
      finished = true;
      router.metrics().writeRefused(shard.name(), e.isSwitching() ? "switching" : "stale");
      throw e;
    }
    return c;
  }

  private void checkFence(Connection c, Shard shard) throws SQLException {
    router.metrics().shardQuery(shard.name());
    try (PreparedStatement ps = c.prepareStatement(ReshardSchema.FENCE_CHECK)) {
      ps.setString(1, map.keyspace());
      ps.setString(2, shard.name());
      try (ResultSet rs = ps.executeQuery()) {
        long epoch = -1;
        boolean writable = false;
        if (rs.next()) {
          epoch = rs.getLong(1);
          writable = rs.getInt(2) == 1;
        }
        if (epoch != shard.epoch() || !writable) {
          throw new StaleShardMapException(
              map.keyspace(), shard.name(), map.version(), shard.epoch(), epoch, writable);
        }
      }
    }
  }

  private void requireOpen() {
    if (finished) {
      throw new IllegalStateException("the transaction has already been committed or rolled back");
    }
  }

  private void rollbackQuietly() {
    for (Connection c : open.values()) {
      try {
        c.rollback();
      } catch (SQLException ignored) {
        // the connection is closed below; the server rolls back what it held
      }
    }
    closeAll();
  }

  private void closeAll() {
    for (Connection c : open.values()) {
      try {
        c.setAutoCommit(true);
      } catch (SQLException ignored) {
        // a broken connection is evicted by the pool
      }
      try {
        c.close();
      } catch (SQLException ignored) {
        // as above
      }
    }
    open.clear();
  }
}
