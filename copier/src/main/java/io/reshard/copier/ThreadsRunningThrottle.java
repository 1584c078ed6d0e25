package io.reshard.copier;

import io.reshard.router.JdbcEndpoint;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pauses the copy while the source server is busy: while its {@code Threads_running} status value
 * (statements executing right now, the copier's own included) is above a limit.
 *
 * <p>The value is sampled on a connection of its own at most once per {@code sampleInterval}, so
 * tables copied in parallel share one sample. If the server cannot be read, the throttle pauses
 * (the reason says why) rather than push load onto a server it cannot see.
 *
 * <p>Thread-safe. Close it to release its connection.
 */
public final class ThreadsRunningThrottle implements CopyThrottle, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ThreadsRunningThrottle.class);

  private final JdbcEndpoint source;
  private final int limit;
  private final Duration sampleInterval;
  private final Clock clock;
  private Connection connection;
  private Instant sampledAt = Instant.MIN;
  private Optional<String> lastAnswer = Optional.empty();

  /**
   * @param source the source shard's server
   * @param limit pause while {@code Threads_running} is above this; at least 1
   * @param sampleInterval how long one sample is used
   * @param clock the time source
   */
  public ThreadsRunningThrottle(
      JdbcEndpoint source, int limit, Duration sampleInterval, Clock clock) {
    if (limit < 1) {
      throw new IllegalArgumentException("Threads_running limit must be at least 1, got " + limit);
    }
    this.source = source;
    this.limit = limit;
    this.sampleInterval = sampleInterval;
    this.clock = clock;
  }

  @Override
  public synchronized Optional<String> pauseReason() {
    Instant now = clock.instant();
    if (Duration.between(sampledAt, now).compareTo(sampleInterval) < 0) {
      return lastAnswer;
    }
    sampledAt = now;
    try {
      long running = threadsRunning();
      lastAnswer =
          running > limit
              ? Optional.of("Threads_running " + running + " > " + limit + " on the source")
              : Optional.empty();
    } catch (SQLException e) {
      LOG.warn("cannot read Threads_running on {}: {}", source.url(), e.getMessage());
      closeConnection();
      lastAnswer =
          Optional.of("cannot read Threads_running on the source (error " + e.getErrorCode() + ")");
    }
    return lastAnswer;
  }

  /** The source's current {@code Threads_running}. */
  public synchronized long threadsRunning() throws SQLException {
    if (connection == null || connection.isClosed()) {
      connection = DriverManager.getConnection(source.url(), source.user(), source.password());
    }
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SHOW GLOBAL STATUS LIKE 'Threads_running'")) {
      rs.next();
      return rs.getLong(2);
    }
  }

  /** Closes its connection to the source. */
  @Override
  public synchronized void close() {
    closeConnection();
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("closing the Threads_running connection: {}", e.getMessage());
      }
      connection = null;
    }
  }
}
