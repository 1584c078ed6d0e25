package io.reshard.differ.compare;

import io.reshard.copier.rows.KeysetSql;
import io.reshard.copier.rows.Row;
import io.reshard.copier.rows.RowKey;
import io.reshard.copier.rows.RowWriter;
import io.reshard.copier.rows.ShardingKey;
import io.reshard.copier.rows.TableSchema;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.DiffStateTable;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.TableDiff;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Diffs one table between the source snapshot and the target snapshot, chunk by chunk in primary
 * key order, with memory bounded by the chunk size whatever the table size.
 *
 * <p><b>Merge order.</b> The order of keys is the server's: both sides are read with {@code ORDER
 * BY} the key and delimited with the keyset predicates of {@link KeysetSql}, which compare in the
 * key columns' collations. A chunk is the key range {@code (prev, K]}:
 *
 * <ol>
 *   <li>read the next N source rows after {@code prev}; K is the last one's key, or unbounded if
 *       fewer came back;
 *   <li>read the target rows in {@code (prev, K]}, at most N; if N came back, the target may have
 *       more rows in the range, so K becomes the last of them and the source rows are read again
 *       for the smaller range {@code (prev, K]} (a subset of the first read);
 *   <li>pair and compare the rows of the range ({@link ChunkMatcher}); the source rows whose
 *       keyspace id is outside the target's range are not expected on the target and are left out
 *       first.
 * </ol>
 *
 * Both sides of a chunk thus cover the same key range as the server defines it, and rows are paired
 * by collation equality within it; no client-side comparator has to reproduce a collation.
 *
 * <p><b>Progress</b> is saved in {@code _reshard.diff_state} on the target after every chunk, in
 * the same transaction as the chunk's repair if repairing, so a stopped diff resumes after the last
 * saved chunk.
 *
 * <p>Not thread-safe: one per table, on the differ's thread.
 */
public final class TableDiffer {
  private final DiffSpec spec;
  private final DifferConfig config;
  private final TableSchema table;
  private final ShardingKey sharding;
  private final Connection source;
  private final Connection target;
  private final Connection writes;
  private final RowWriter repairWriter;
  private final String sourcePosition;
  private final DiffListener listener;

  /**
   * @param source the source connection, inside its snapshot
   * @param target the target connection, inside its snapshot
   * @param writes a target connection for progress (and repairs), not in autocommit
   * @param repairWriter the writer of repairs, or null to only compare
   * @param sourcePosition G, stored with the progress
   */
  public TableDiffer(
      DiffSpec spec,
      DifferConfig config,
      TableSchema table,
      ShardingKey sharding,
      Connection source,
      Connection target,
      Connection writes,
      RowWriter repairWriter,
      String sourcePosition,
      DiffListener listener) {
    this.spec = spec;
    this.config = config;
    this.table = table;
    this.sharding = sharding;
    this.source = source;
    this.target = target;
    this.writes = writes;
    this.repairWriter = repairWriter;
    this.sourcePosition = sourcePosition;
    this.listener = listener;
  }

  /**
   * Compares the table from {@code after} (null: from the first key) to its end.
   *
   * @param from counts to continue from (a resumed diff), or null
   * @return the table's counts, earlier runs included
   */
  public TableDiff run(RowKey after, TableDiff from) throws SQLException {
    Tally tally = new Tally(table.table(), config.sampleLimit(), from);
    int n = config.chunkRows();
    RowKey prev = after;
    for (long chunk = 1; ; chunk++) {
      List<KeyedRow> src = read(source, prev, null, n);
      RowKey bound = src.size() == n ? keyOf(src) : null;
      List<KeyedRow> tgt = read(target, prev, bound, n);
      if (tgt.size() == n) {
        bound = keyOf(tgt);
        src = read(source, prev, bound, n);
      }
      ChunkMatcher.Fixes fixes = ChunkMatcher.match(table, inTargetRange(src), tgt, tally);
      if (repairWriter != null) {
        tally.repaired(repairWriter.delete(writes, fixes.delete()));
        tally.repaired(repairWriter.replace(writes, fixes.replace()));
      }
      boolean done = bound == null;
      RowKey saved = done ? prev : bound;
      DiffStateTable.save(
          writes,
          spec.workflow(),
          new DiffStateTable.State(
              tally.snapshot(),
              Optional.ofNullable(saved).map(k -> k.toJson(table.keyNames())),
              sourcePosition,
              done));
      writes.commit();
      listener.chunkCompared(table.table(), chunk, bound);
      if (done) {
        return tally.snapshot();
      }
      prev = bound;
    }
  }

  private List<KeyedRow> inTargetRange(List<KeyedRow> rows) {
    List<KeyedRow> out = new ArrayList<>(rows.size());
    for (KeyedRow r : rows) {
      if (spec.target().range().contains(sharding.keyspaceId(r.row()))) {
        out.add(r);
      }
    }
    return out;
  }

  private RowKey keyOf(List<KeyedRow> rows) {
    return table.keyOf(rows.get(rows.size() - 1).row());
  }

  /** Rows in {@code (after, upTo]} in key order, at most {@code limit}. */
  private List<KeyedRow> read(Connection c, RowKey after, RowKey upTo, int limit)
      throws SQLException {
    List<KeyedRow> out = new ArrayList<>();
    int columns = table.copyColumns().size();
    int keys = table.keyColumns().size();
    String sql = KeysetSql.snapshotChunk(table, after != null, upTo != null, limit);
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      if (after != null) {
        p = KeysetSql.after(table.keyColumns()).bind(ps, p, after);
      }
      if (upTo != null) {
        KeysetSql.atMost(table.keyColumns()).bind(ps, p, upTo);
      }
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Row row = Row.read(rs, columns);
          StringBuilder key = new StringBuilder();
          for (int i = 0; i < keys; i++) {
            byte[] b = rs.getBytes(columns + 1 + i);
            key.append((char) (b.length >>> 16)).append((char) (b.length & 0xffff));
            key.append(new String(b, StandardCharsets.ISO_8859_1));
          }
          out.add(new KeyedRow(row, key.toString()));
        }
      }
    }
    return out;
  }
}
