package io.reshard.copier.chunk;

import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopySpec;
import io.reshard.core.error.DataIntegrityException;
import io.reshard.core.placement.ShardingKey;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.rows.Futures;
import io.reshard.core.rows.KeysetSql;
import io.reshard.core.rows.Row;
import io.reshard.core.rows.RowKey;
import io.reshard.core.rows.RowWriter;
import io.reshard.core.rows.Sessions;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.state.CopyStateTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Copies one chunk of one table (DESIGN 4.6 point 2), on connections it keeps for the table's copy:
 * one to the source, one per target.
 *
 * <ol>
 *   <li>In a source transaction, a locking read of the next rows by primary key: {@code SELECT ...
 *       WHERE key > lastKey ORDER BY key LIMIT n LOCK IN SHARE MODE}. The rows are read once.
 *   <li>Each row is routed by its keyspace id to the target whose range holds it.
 *   <li>Every target, in parallel, in its own transaction: inserts its rows if absent and saves the
 *       chunk's last key in {@code _reshard.copy_state}, then commits. A target that receives no
 *       row still saves the last key, so all targets advance together.
 *   <li>Only then does the source transaction end, releasing the row locks.
 * </ol>
 *
 * <p>If anything fails, every transaction not yet committed rolls back; targets that did commit
 * hold the chunk, and a resumed copy starts from the smallest saved key, re-sending rows that the
 * insert-if-absent leaves untouched.
 *
 * <p>Not thread-safe: one per table copy. Uses {@code writers} to write targets in parallel.
 */
final class ChunkCopier implements AutoCloseable {
  private final CopySpec spec;
  private final TableSchema table;
  private final ShardingKey sharding;
  private final RowWriter writer;
  private final ExecutorService writers;
  private final Connection source;
  private final List<Connection> targets = new ArrayList<>();

  /**
   * A committed chunk.
   *
   * @param rowsRead the source rows read
   * @param rowsOutside of those, rows skipped: keyspace id outside every target range
   * @param lastKey the resume point after this chunk (the previous one if the chunk was empty)
   * @param last true if the chunk read fewer rows than asked: the table is done
   * @param elapsed from the read to the last commit
   */
  record Chunk(int rowsRead, int rowsOutside, RowKey lastKey, boolean last, Duration elapsed) {}

  ChunkCopier(
      CopySpec spec,
      CopierConfig config,
      TableSchema table,
      ShardingKey sharding,
      String sqlMode,
      ExecutorService writers)
      throws SQLException {
    this.spec = spec;
    this.table = table;
    this.sharding = sharding;
    this.writers = writers;
    this.writer = new RowWriter(table, config.maxRowsPerStatement(), config.maxBytesPerStatement());
    this.source = Sessions.open(spec.source(), spec.keyspace(), sqlMode);
    try {
      try (Statement s = source.createStatement()) {
        s.execute("SET SESSION innodb_lock_wait_timeout = " + config.lockWaitTimeout().toSeconds());
      }
      source.setAutoCommit(false);
      for (TargetShard t : spec.targets()) {
        Connection c = Sessions.open(t.endpoint(), spec.keyspace(), sqlMode);
        c.setAutoCommit(false);
        targets.add(c);
      }
    } catch (SQLException e) {
      close();
      throw e;
    }
  }

  /** The source connection (for server-side key comparisons between chunks). */
  Connection source() {
    return source;
  }

  /** The connections to the targets, in {@link CopySpec#targets()} order. */
  List<Connection> targets() {
    return targets;
  }

  /**
   * Copies the chunk after {@code after}.
   *
   * @param after the last key copied, or null to start at the first row
   * @param rows how many rows to read at most
   */
  Chunk copy(RowKey after, int rows) throws SQLException, InterruptedException {
    long t0 = System.nanoTime();
    try {
      List<Row> read = readLocked(after, rows);
      boolean last = read.size() < rows;
      RowKey lastKey = read.isEmpty() ? after : table.keyOf(read.get(read.size() - 1));
      List<List<Row>> routed = new ArrayList<>();
      spec.targets().forEach(t -> routed.add(new ArrayList<>()));
      int outside = 0;
      for (Row r : read) {
        int i = spec.targetIndexOf(placed(r));
        if (i < 0) {
          outside++;
        } else {
          routed.get(i).add(r);
        }
      }
      writeTargets(routed, lastKey, last);
      source.commit();
      return new Chunk(
          read.size(), outside, lastKey, last, Duration.ofNanos(System.nanoTime() - t0));
    } catch (SQLException | RuntimeException | InterruptedException e) {
      rollbackQuietly(source);
      throw e;
    }
  }

  /**
   * The keyspace id of {@code r}.
   *
   * @throws DataIntegrityException naming the table, the row's key and the sharding column if the
   *     vindex cannot map it (NULL, say): no target can hold that row
   */
  private io.reshard.router.KeyspaceId placed(Row r) {
    try {
      return sharding.keyspaceId(r);
    } catch (io.reshard.router.UnmappableValueException e) {
      throw new DataIntegrityException(
          "row "
              + keyText(r)
              + " of "
              + spec.keyspace()
              + "."
              + table.table()
              + " cannot be placed on any shard: its sharding column "
              + sharding.column()
              + ": "
              + e.getMessage()
              + ". Give it a value the vindex maps (or delete it) on the source, then run"
              + " `reshard workflow resume`: the copy goes on from where it stopped");
    }
  }

  /** The row's primary key for a message, as {@code {id=7, ...}} (the values as text). */
  private String keyText(Row r) {
    java.util.StringJoiner key = new java.util.StringJoiner(", ", "{", "}");
    for (String column : table.primaryKey()) {
      byte[] v = r.value(table.copyIndexOf(column));
      key.add(
          column
              + "="
              + (v == null ? "NULL" : new String(v, java.nio.charset.StandardCharsets.UTF_8)));
    }
    return key.toString();
  }

  private List<Row> readLocked(RowKey after, int rows) throws SQLException {
    List<Row> out = new ArrayList<>(Math.min(rows, 65_536));
    int columns = table.copyColumns().size();
    try (PreparedStatement ps =
        source.prepareStatement(KeysetSql.lockingChunk(table, after != null, rows))) {
      if (after != null) {
        KeysetSql.after(table.keyColumns()).bind(ps, 1, after);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(Row.read(rs, columns));
        }
      }
    }
    return out;
  }

  private void writeTargets(List<List<Row>> routed, RowKey lastKey, boolean last)
      throws SQLException, InterruptedException {
    String lastKeyJson = lastKey == null ? null : lastKey.toJson(table.primaryKey());
    List<Future<Void>> futures = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Connection c = targets.get(i);
      List<Row> rows = routed.get(i);
      futures.add(writers.submit(() -> writeTarget(c, rows, lastKeyJson, last)));
    }
    // Wait for every target, even when interrupted: the source's row locks must outlive every
    // target write of the chunk, or a later source change could reach a target before the
    // chunk's older image does (DESIGN 4.6 point 3).
    Futures.awaitAll(futures, "writing a chunk of " + table);
  }

  private Void writeTarget(Connection c, List<Row> rows, String lastKeyJson, boolean last)
      throws SQLException {
    try {
      writer.insertIfAbsent(c, rows);
      CopyStateTable.save(c, spec.workflow(), table.table(), lastKeyJson, rows.size(), last);
      c.commit();
      return null;
    } catch (SQLException | RuntimeException e) {
      rollbackQuietly(c);
      throw e;
    }
  }

  private static void rollbackQuietly(Connection c) {
    try {
      if (!c.isClosed()) {
        c.rollback();
      }
    } catch (SQLException ignored) {
      // the connection is broken; closing it ends the transaction
    }
  }

  @Override
  public void close() {
    List<Connection> all = new ArrayList<>(targets);
    all.add(source);
    for (Connection c : all) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (SQLException ignored) {
        // closing: nothing left to do
      }
    }
  }
}
