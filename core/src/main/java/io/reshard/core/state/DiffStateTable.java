package io.reshard.core.state;

import io.reshard.core.rows.Row;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * {@code _reshard.diff_state} on every target shard: per (workflow, table) how far a diff has come
 * there, so an interrupted diff resumes after its last compared key. The differ maps its report
 * model to and from {@link Row} ({@code io.reshard.differ.DiffProgress}).
 *
 * <p>Stateless and thread-safe; every method runs in the caller's transaction.
 */
public final class DiffStateTable {

  private DiffStateTable() {}

  /**
   * One table's stored diff progress.
   *
   * @param table the table
   * @param lastKeyJson the last key compared, or empty before the first chunk
   * @param compared rows compared so far
   * @param matching rows equal on both sides
   * @param mismatched rows present on both sides with differing values
   * @param extraSource rows only on the source
   * @param extraTarget rows only on the target
   * @param repaired rows a repair wrote or deleted
   * @param samplesJson the sample keys, as the differ writes them; null if none
   * @param sourcePosition G of the last chunk's snapshot
   * @param done whether the table is fully compared
   */
  public record Row(
      String table,
      Optional<String> lastKeyJson,
      long compared,
      long matching,
      long mismatched,
      long extraSource,
      long extraTarget,
      long repaired,
      String samplesJson,
      String sourcePosition,
      boolean done) {}

  /** Creates {@code _reshard} and the table if they do not exist. */
  public static void create(Connection c) throws SQLException {
    StateTables.DIFF_STATE.create(c);
  }

  /** The stored progress of one table of a workflow, if any. */
  public static Optional<Row> read(Connection c, String workflow, String table)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lastpk, compared, matching, mismatched, extra_source, extra_target, repaired,"
                + " samples, source_position, done FROM "
                + StateTables.DIFF_STATE.qualifiedName()
                + " WHERE workflow = ? AND table_name = ?")) {
      ps.setString(1, workflow);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new Row(
                table,
                Optional.ofNullable(rs.getString(1)),
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7),
                rs.getString(8),
                rs.getString(9),
                rs.getInt(10) == 1));
      }
    }
  }

  /** Saves one table's progress (insert or overwrite). */
  public static void save(Connection c, String workflow, Row r) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "REPLACE INTO "
                + StateTables.DIFF_STATE.qualifiedName()
                + " (workflow, table_name, lastpk, compared, matching, mismatched,"
                + " extra_source, extra_target, repaired, samples, source_position, done)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, workflow);
      ps.setString(2, r.table());
      ps.setString(3, r.lastKeyJson().orElse(null));
      ps.setLong(4, r.compared());
      ps.setLong(5, r.matching());
      ps.setLong(6, r.mismatched());
      ps.setLong(7, r.extraSource());
      ps.setLong(8, r.extraTarget());
      ps.setLong(9, r.repaired());
      ps.setString(10, r.samplesJson());
      ps.setString(11, r.sourcePosition());
      ps.setInt(12, r.done() ? 1 : 0);
      ps.executeUpdate();
    }
  }

  /** Deletes a workflow's diff progress (a diff that starts over, a cancelled workflow). */
  public static int delete(Connection c, String workflow) throws SQLException {
    return StateTables.DIFF_STATE.deleteWorkflow(c, workflow);
  }
}
