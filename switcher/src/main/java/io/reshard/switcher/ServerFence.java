package io.reshard.switcher;

import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.router.ReshardSchema;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The switch's steps on one shard server (DESIGN 4.3): fence (the shard's fence row {@code writable
 * = 0}, waiting at most {@code lockWait} for router transactions in flight, and the server {@code
 * read_only}), un-fence, make a shard writable at a new epoch, and read the server's GTID position.
 * Stateless. Each step exists twice: on a connection of its own, and on a connection the caller
 * opened before the fence ({@link Connections}), so that the fenced window spends no time on
 * connection handshakes.
 */
final class ServerFence {
  private ServerFence() {}

  /**
   * Fences {@code shard}: no router write can commit there once this returns.
   *
   * @throws SQLException with error 1205 if router transactions held the fence row longer than
   *     {@code lockWait}; then nothing changed
   */
  static void fence(ShardServer s, String keyspace, Duration lockWait) throws SQLException {
    try (Connection c = connect(s)) {
      fence(c, s, keyspace, lockWait);
    }
  }

  /**
   * As {@link #fence(ShardServer, String, Duration)}, on {@code c} (in autocommit mode again
   * after).
   */
  static void fence(Connection c, ShardServer s, String keyspace, Duration lockWait)
      throws SQLException {
    try (Statement st = c.createStatement()) {
      st.execute("SET SESSION innodb_lock_wait_timeout = " + Math.max(1, lockWait.toSeconds()));
      c.setAutoCommit(false);
      try {
        ReshardSchema.setWritable(c, keyspace, s.shard(), false);
        c.commit();
      } catch (SQLException e) {
        c.rollback();
        throw e;
      } finally {
        c.setAutoCommit(true);
      }
      // clients that bypass the router are refused too (users without READ_ONLY ADMIN)
      st.execute("SET GLOBAL read_only = ON");
    }
  }

  /** Un-fences {@code shard}: writable again at its epoch, and the server writable. */
  static void unfence(ShardServer s, String keyspace) throws SQLException {
    try (Connection c = connect(s);
        Statement st = c.createStatement()) {
      ReshardSchema.setWritable(c, keyspace, s.shard(), true);
      st.execute("SET GLOBAL read_only = OFF");
    }
  }

  /** Makes {@code shard} writable for routers at {@code epoch}, and the server writable. */
  static void open(ShardServer s, String keyspace, long epoch) throws SQLException {
    try (Connection c = connect(s)) {
      open(c, s, keyspace, epoch);
    }
  }

  /** As {@link #open(ShardServer, String, long)}, on {@code c} (in autocommit mode). */
  static void open(Connection c, ShardServer s, String keyspace, long epoch) throws SQLException {
    try (Statement st = c.createStatement()) {
      ReshardSchema.setFence(c, keyspace, s.shard(), epoch, true);
      st.execute("SET GLOBAL read_only = OFF");
    }
  }

  /**
   * Closes a retired source to every writer it can: on MySQL {@code super_read_only}, which even
   * {@code SUPER} users cannot write through (no reverse stream writes to a retired source any
   * more); on MariaDB {@code read_only} stays as the fence left it, since MariaDB has no stronger
   * switch.
   */
  static void retire(ShardServer s) throws SQLException {
    try (Connection c = connect(s);
        Statement st = c.createStatement()) {
      if (ServerPositions.flavorOf(c) == GtidPosition.Flavor.MYSQL) {
        st.execute("SET GLOBAL super_read_only = ON");
      } else {
        st.execute("SET GLOBAL read_only = ON");
      }
    }
  }

  /** Creates the fence row of a shard that must not take router writes yet. */
  static void closed(ShardServer s, String keyspace) throws SQLException {
    try (Connection c = connect(s)) {
      ReshardSchema.create(c);
      ReshardSchema.setFence(c, keyspace, s.shard(), 0, false);
    }
  }

  /** The server's current position ({@link ServerPositions#current}). */
  static GtidPosition position(ShardServer s) throws SQLException {
    try (Connection c = connect(s)) {
      return position(c);
    }
  }

  /** As {@link #position(ShardServer)}, on {@code c}. */
  static GtidPosition position(Connection c) throws SQLException {
    return ServerPositions.current(c);
  }

  static Connection connect(ShardServer s) throws SQLException {
    return DriverManager.getConnection(s.endpoint().url(), s.user(), s.password());
  }

  /**
   * One open connection (autocommit) per shard server of a switch, opened before the fence and
   * closed after the publish. Not thread-safe.
   */
  static final class Connections implements AutoCloseable {
    private final Map<String, Connection> byShard = new LinkedHashMap<>();

    /** Opens a connection to every server of {@code servers}; on failure closes those opened. */
    static Connections open(List<ShardServer> servers) throws SQLException {
      Connections all = new Connections();
      try {
        for (ShardServer s : servers) {
          all.byShard.put(s.shard(), connect(s));
        }
      } catch (SQLException | RuntimeException e) {
        all.close();
        throw e;
      }
      return all;
    }

    /** One server's step of {@link #onEach}. */
    @FunctionalInterface
    interface Step {
      void run(Connection c, ShardServer s) throws SQLException;
    }

    /**
     * Runs {@code step} on every one of {@code servers} at once, each on its own connection and
     * thread, so that a window with several sources or targets waits for the slowest of them, not
     * for their sum; one server's runs here. Returns once every one has ended.
     *
     * @throws SQLException the first server's failure, with the others' as suppressed ones; the
     *     servers that did not fail have run their step
     */
    void onEach(List<ShardServer> servers, Step step) throws SQLException {
      if (servers.size() == 1) {
        step.run(of(servers.get(0)), servers.get(0));
        return;
      }
      List<Thread> threads = new ArrayList<>();
      Map<String, Throwable> failures = new ConcurrentHashMap<>();
      for (ShardServer s : servers) {
        Connection c = of(s);
        Thread t =
            new Thread(
                () -> {
                  try {
                    step.run(c, s);
                  } catch (SQLException | RuntimeException e) {
                    failures.put(s.shard(), e);
                  }
                },
                "reshard-fence-" + s.shard());
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }
      for (Thread t : threads) {
        try {
          t.join();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted while the servers' steps ran", e);
        }
      }
      Throwable first = null;
      for (ShardServer s : servers) {
        Throwable f = failures.get(s.shard());
        if (f != null && first == null) {
          first = f;
        } else if (f != null) {
          first.addSuppressed(f);
        }
      }
      if (first instanceof SQLException e) {
        throw e;
      }
      if (first instanceof RuntimeException e) {
        throw e;
      }
    }

    /** The connection to {@code s}'s server. */
    Connection of(ShardServer s) {
      Connection c = byShard.get(s.shard());
      if (c == null) {
        throw new IllegalArgumentException("no connection to shard " + s.shard() + " was opened");
      }
      return c;
    }

    @Override
    public void close() {
      for (Connection c : byShard.values()) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // the server drops the session; nothing of the switch is left open in it
        }
      }
      byShard.clear();
    }
  }
}
