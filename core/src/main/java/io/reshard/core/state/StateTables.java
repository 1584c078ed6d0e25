package io.reshard.core.state;

import io.reshard.router.ReshardSchema;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The pipeline's state tables in the {@code _reshard} database of every target shard, declared
 * once: {@code streams} (an applier's position, {@link StreamsTable}), {@code copy_state} (the
 * copy's last key, {@link CopyStateTable}) and {@code diff_state} (a diff's progress, {@link
 * DiffStateTable}). Each is written in the same target transaction as the rows it describes. The
 * fourth table, {@code fence}, belongs to router-lib ({@link ReshardSchema}), which routers read.
 *
 * <p>Stateless; callers pass the connection and own its transaction.
 */
public enum StateTables {
  /** Per (workflow, source topic): next Kafka offset, source position applied, stream state. */
  STREAMS(
      "streams",
      " workflow VARBINARY(64) NOT NULL,"
          + " topic VARBINARY(249) NOT NULL,"
          + " target VARBINARY(64) NOT NULL,"
          + " next_offset BIGINT NOT NULL,"
          + " source_position VARCHAR(4096) NOT NULL,"
          + " state VARCHAR(16) NOT NULL,"
          + " message TEXT NULL,"
          + " updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
          + " ON UPDATE CURRENT_TIMESTAMP(6),"
          + " PRIMARY KEY (workflow, topic)"),
  /** Per (workflow, table) on one target: the copy's last key, rows copied, done. */
  COPY_STATE(
      "copy_state",
      " workflow VARBINARY(64) NOT NULL,"
          + " table_name VARBINARY(64) NOT NULL,"
          + " lastpk BLOB NULL,"
          + " rows_copied BIGINT NOT NULL DEFAULT 0,"
          + " done TINYINT NOT NULL DEFAULT 0,"
          + " updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
          + " ON UPDATE CURRENT_TIMESTAMP(6),"
          + " PRIMARY KEY (workflow, table_name)"),
  /** Per (workflow, table) on one target: the diff's last key, counts, samples, position, done. */
  DIFF_STATE(
      "diff_state",
      " workflow VARBINARY(64) NOT NULL,"
          + " table_name VARBINARY(64) NOT NULL,"
          + " lastpk BLOB NULL,"
          + " compared BIGINT NOT NULL DEFAULT 0,"
          + " matching BIGINT NOT NULL DEFAULT 0,"
          + " mismatched BIGINT NOT NULL DEFAULT 0,"
          + " extra_source BIGINT NOT NULL DEFAULT 0,"
          + " extra_target BIGINT NOT NULL DEFAULT 0,"
          + " repaired BIGINT NOT NULL DEFAULT 0,"
          + " samples LONGBLOB NULL,"
          + " source_position VARBINARY(4096) NULL,"
          + " done TINYINT NOT NULL DEFAULT 0,"
          + " updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
          + " ON UPDATE CURRENT_TIMESTAMP(6),"
          + " PRIMARY KEY (workflow, table_name)");

  private final String table;
  private final String columns;

  StateTables(String table, String columns) {
    this.table = table;
    this.columns = columns;
  }

  /** {@code _reshard.<table>}, for SQL. */
  public String qualifiedName() {
    return ReshardSchema.DATABASE + "." + table;
  }

  /** The table's {@code CREATE TABLE IF NOT EXISTS} statement. */
  public String createStatement() {
    return "CREATE TABLE IF NOT EXISTS " + qualifiedName() + " (" + columns + ") ENGINE=InnoDB";
  }

  /** Creates {@code _reshard} and this table if they do not exist. */
  public void create(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + ReshardSchema.DATABASE);
      s.execute(createStatement());
    }
  }

  /**
   * Deletes every row of one workflow (a workflow cancelled, a diff or copy started over).
   *
   * @return the rows deleted
   */
  public int deleteWorkflow(Connection c, String workflow) throws SQLException {
    try (var ps = c.prepareStatement("DELETE FROM " + qualifiedName() + " WHERE workflow = ?")) {
      ps.setString(1, workflow);
      return ps.executeUpdate();
    }
  }
}
