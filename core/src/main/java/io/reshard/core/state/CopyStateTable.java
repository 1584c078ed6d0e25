package io.reshard.core.state;

import io.reshard.router.ReshardSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code _reshard.copy_state} on every target shard: per (workflow, table) how far the copy has
 * come on this target, written in the same transaction as the chunk's rows (DESIGN 4.6 point 2), so
 * the state can never claim rows the target does not hold, nor lose rows it does.
 *
 * <p>Columns: {@code workflow}; {@code table_name} (DESIGN's "table"; {@code TABLE} is a reserved
 * word); {@code lastpk}, the last primary key of the last chunk committed here, stored exactly as
 * {@link io.reshard.core.rows.RowKey#toJson} writes it (key column names and their values' bytes in
 * hex), NULL before the first chunk; {@code rows_copied} (DESIGN's "rows", also reserved), rows
 * written to this target by the copy, re-sent rows after a resume included; {@code done}, 1 once
 * the last chunk has been copied; {@code updated_at}.
 *
 * <p>Stateless and thread-safe; every method runs in the caller's transaction.
 */
public final class CopyStateTable {

  private CopyStateTable() {}

  /**
   * One table's copy state on one target.
   *
   * @param table the table
   * @param lastKeyJson the stored last key, or empty before the first chunk
   * @param rowsCopied rows written to this target by the copy
   * @param done whether the copy of the table has finished
   */
  public record State(String table, Optional<String> lastKeyJson, long rowsCopied, boolean done) {}

  /** Creates {@code _reshard} and the table if they do not exist. */
  public static void create(Connection c) throws SQLException {
    StateTables.COPY_STATE.create(c);
  }

  /** The state of one table of a workflow on the target behind {@code c}, if any. */
  public static Optional<State> read(Connection c, String workflow, String table)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT table_name, lastpk, rows_copied, done FROM "
                + ReshardSchema.DATABASE
                + ".copy_state WHERE workflow = ? AND table_name = ?")) {
      ps.setString(1, workflow);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(state(rs)) : Optional.empty();
      }
    }
  }

  /** The states of every table of a workflow on the target behind {@code c}, by table name. */
  public static List<State> readAll(Connection c, String workflow) throws SQLException {
    List<State> out = new ArrayList<>();
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT table_name, lastpk, rows_copied, done FROM "
                + ReshardSchema.DATABASE
                + ".copy_state WHERE workflow = ? ORDER BY table_name")) {
      ps.setString(1, workflow);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(state(rs));
        }
      }
    }
    return out;
  }

  /**
   * Records a committed chunk: sets the last key and {@code done}, adds {@code rows} to {@code
   * rows_copied}. Call it in the transaction that wrote the chunk's rows.
   *
   * @param lastKeyJson the chunk's last key, or null if the table has no row yet
   */
  public static void save(
      Connection c, String workflow, String table, String lastKeyJson, long rows, boolean done)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO "
                + ReshardSchema.DATABASE
                + ".copy_state (workflow, table_name, lastpk, rows_copied, done)"
                + " VALUES (?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE lastpk = VALUES(lastpk),"
                + " rows_copied = rows_copied + VALUES(rows_copied), done = VALUES(done)")) {
      ps.setString(1, workflow);
      ps.setString(2, table);
      ps.setString(3, lastKeyJson);
      ps.setLong(4, rows);
      ps.setInt(5, done ? 1 : 0);
      ps.executeUpdate();
    }
  }

  /** Deletes a workflow's copy state (cancel, or a copy started over). */
  public static int delete(Connection c, String workflow) throws SQLException {
    return StateTables.COPY_STATE.deleteWorkflow(c, workflow);
  }

  private static State state(ResultSet rs) throws SQLException {
    return new State(
        rs.getString(1), Optional.ofNullable(rs.getString(2)), rs.getLong(3), rs.getInt(4) == 1);
  }
}
