package io.reshard.core.state;

import io.reshard.core.rows.Row;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * {@code _reshard.streams} in a target shard: per (workflow, source topic) the next Kafka offset to
 * read, the source position whose transactions are all applied, and the stream's state. It is
 * written in the same database transaction as the rows it describes (DESIGN 4.5), so after any
 * crash the target's rows and its stored position agree, and a restart resumes exactly there.
 * Stateless; callers pass the connection and own its transaction.
 */
public final class StreamsTable {

  /** A stream's state. */
  public enum State {
    /** Applying. */
    RUNNING,
    /** Paused on purpose (stopped at a position, or frozen by the switch). */
    STOPPED,
    /** Stopped by an error that needs the operator (a DDL or truncate on a moved table). */
    ERROR
  }

  /**
   * One stream's stored row.
   *
   * @param nextOffset the next Kafka offset to read
   * @param sourcePosition the source GTID position whose transactions are all applied
   * @param state the stream's state
   * @param message why it stopped, or null
   */
  public record Row(long nextOffset, String sourcePosition, State state, String message) {}

  private StreamsTable() {}

  /** Creates {@code _reshard} and the streams table if they do not exist. */
  public static void create(Connection c) throws SQLException {
    StateTables.STREAMS.create(c);
  }

  /** The stored row of a stream, if it exists. */
  public static Optional<Row> load(Connection c, String workflow, String topic)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT next_offset, source_position, state, message FROM _reshard.streams"
                + " WHERE workflow = ? AND topic = ?")) {
      ps.setString(1, workflow);
      ps.setString(2, topic);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Row(
                rs.getLong(1), rs.getString(2), State.valueOf(rs.getString(3)), rs.getString(4)));
      }
    }
  }

  /** Inserts a stream's first row unless it exists (a restart keeps the stored one). */
  public static void initialise(
      Connection c, String workflow, String topic, String target, long offset, String position)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT IGNORE INTO _reshard.streams"
                + " (workflow, topic, target, next_offset, source_position, state) VALUES (?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, workflow);
      ps.setString(2, topic);
      ps.setString(3, target);
      ps.setLong(4, offset);
      ps.setString(5, position);
      ps.setString(6, State.RUNNING.name());
      ps.executeUpdate();
    }
  }

  /** Records the position reached, in the caller's transaction. */
  public static void advance(
      Connection c, String workflow, String topic, long nextOffset, String position)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE _reshard.streams SET next_offset = ?, source_position = ? WHERE workflow = ? AND topic = ?")) {
      ps.setLong(1, nextOffset);
      ps.setString(2, position);
      ps.setString(3, workflow);
      ps.setString(4, topic);
      if (ps.executeUpdate() != 1) {
        throw new SQLException(
            "no _reshard.streams row for workflow " + workflow + ", topic " + topic);
      }
    }
  }

  /** Sets a stream's state and message, in the caller's transaction. */
  public static void setState(
      Connection c, String workflow, String topic, State state, String message)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "UPDATE _reshard.streams SET state = ?, message = ? WHERE workflow = ? AND topic = ?")) {
      ps.setString(1, state.name());
      ps.setString(2, message);
      ps.setString(3, workflow);
      ps.setString(4, topic);
      ps.executeUpdate();
    }
  }
}
