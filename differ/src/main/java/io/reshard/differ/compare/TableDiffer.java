package io.reshard.differ.compare;

import io.reshard.copier.rows.KeyOrder;
import io.reshard.copier.rows.KeysetSql;
import io.reshard.copier.rows.RowKey;
import io.reshard.copier.rows.RowWriter;
import io.reshard.copier.rows.ShardingKey;
import io.reshard.copier.rows.TableSchema;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.DiffStateTable;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.TableDiff;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;

/**
 * Diffs one table between the source snapshot and the snapshots of every target of the spec at
 * once, chunk by chunk in primary-key order: the source is read once, and each source row is routed
 * by its keyspace id to the target whose range holds it. Memory is bounded by a few chunks whatever
 * the table size.
 *
 * <p><b>Merge order.</b> The order of keys is the server's: every side is read with {@code ORDER
 * BY} the key and delimited with the keyset predicates of {@link KeysetSql}, which compare in the
 * key columns' collations. A chunk is the key range {@code (prev, K]}:
 *
 * <ol>
 *   <li>read the next N source rows after {@code prev}; K is the last one's key, or unbounded if
 *       fewer came back;
 *   <li>read every target's rows in {@code (prev, K]}, at most N each, in parallel; if a target
 *       returned N rows that end before K, it may hold more rows in the range, so K becomes its
 *       last key, and the source and the targets are read again for the smaller range (rare: a
 *       target holds about N / targets rows of a chunk unless it has many rows the source lacks);
 *   <li>route the source rows by keyspace id, and pair and compare each target's rows with the
 *       source rows routed to it ({@link ChunkMatcher}); a source row that no target's range holds
 *       is not expected anywhere and is left out.
 * </ol>
 *
 * Every side of a chunk thus covers the same key range as the server defines it, and rows are
 * paired by collation equality within it; no client-side comparator has to reproduce a collation.
 * While the targets are read and the chunk is compared, the next source chunk is already being read
 * (on the source's connection, which nothing else uses then).
 *
 * <p><b>Progress</b> is saved in {@code _reshard.diff_state} on each target after every chunk, in
 * the same transaction as that target's repair if repairing, so a stopped diff resumes after the
 * last saved chunk. Targets save one after the other, so a diff stopped in between leaves targets
 * one chunk apart: a resumed diff then first compares, up to the furthest saved key, only the
 * targets that are behind, and from there all of them ({@link #run}).
 *
 * <p>Not thread-safe: one per table, on the differ's thread; reads run on {@code pool}.
 */
public final class TableDiffer {

  /**
   * One target's connections.
   *
   * @param read reads the target inside its snapshot transaction
   * @param writes writes progress (and repairs) on the target, not in autocommit
   * @param repairWriter the writer of repairs, or null to only compare
   */
  public record Target(Connection read, Connection writes, RowWriter repairWriter) {}

  private final DiffSpec spec;
  private final TableSchema table;
  private final ShardingKey sharding;
  private final Connection source;
  private final List<Target> targets;
  private final String sourcePosition;
  private final ExecutorService pool;
  private final DiffListener listener;
  private final SideReader reader;
  private final int sampleLimit;
  private final Tally[] tallies;
  private long chunk;

  /** A source chunk: its rows in key order, and the same rows routed to the active targets. */
  private record SourceChunk(List<KeyedRow> rows, List<List<KeyedRow>> routed) {}

  /**
   * @param spec what is compared; {@code targets} follow {@link DiffSpec#targets()}
   * @param source reads the source inside its snapshot transaction
   * @param targets one per target of the spec, in order
   * @param sourcePosition G, stored with the progress
   * @param pool runs the reads of the targets and of the next source chunk; at least as many
   *     threads as targets plus one
   */
  public TableDiffer(
      DiffSpec spec,
      DifferConfig config,
      TableSchema table,
      ShardingKey sharding,
      Connection source,
      List<Target> targets,
      String sourcePosition,
      ExecutorService pool,
      DiffListener listener) {
    this.spec = spec;
    this.table = table;
    this.sharding = sharding;
    this.source = source;
    this.targets = List.copyOf(targets);
    this.sourcePosition = sourcePosition;
    this.pool = pool;
    this.listener = listener;
    this.reader = new SideReader(table, config.chunkRows());
    this.sampleLimit = config.sampleLimit();
    this.tallies = new Tally[targets.size()];
  }

  /**
   * Compares the table to its end, each target from its stored progress.
   *
   * @param stored per target (in order), its progress from an earlier run, or empty to start at the
   *     first key
   * @return per target (in order), the table's counts, earlier runs included
   */
  public List<TableDiff> run(List<Optional<DiffStateTable.State>> stored)
      throws SQLException, InterruptedException {
    int n = targets.size();
    boolean[] done = new boolean[n];
    RowKey[] after = new RowKey[n];
    for (int i = 0; i < n; i++) {
      Optional<DiffStateTable.State> s = stored.get(i);
      TableDiff from = s.map(DiffStateTable.State::counts).orElse(null);
      tallies[i] = new Tally(table.table(), sampleLimit, from);
      done[i] = s.isPresent() && s.get().done();
      after[i] =
          s.flatMap(DiffStateTable.State::lastKeyJson)
              .map(j -> RowKey.fromJson(j, table.keyNames()))
              .orElse(null);
    }
    // The distinct resume keys of the unfinished targets, in key order (null, the start, first).
    List<RowKey> stops = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (!done[i] && !contains(stops, after[i])) {
        stops.add(after[i]);
      }
    }
    sort(stops);
    boolean[] active = new boolean[n];
    for (int k = 0; k < stops.size(); k++) {
      RowKey prev = stops.get(k);
      for (int i = 0; i < n; i++) {
        active[i] |= !done[i] && same(after[i], prev);
      }
      compareUpTo(prev, k + 1 < stops.size() ? stops.get(k + 1) : null, active.clone());
    }
    List<TableDiff> out = new ArrayList<>();
    for (Tally t : tallies) {
      out.add(t.snapshot());
    }
    return out;
  }

  /**
   * Compares the chunks of {@code (prev, cap]} (cap null: to the end) for the active targets,
   * saving each one's progress after every chunk.
   */
  private void compareUpTo(RowKey prev, RowKey cap, boolean[] active)
      throws SQLException, InterruptedException {
    int n = reader.limit();
    Future<SourceChunk> next = pool.submit(() -> readSource(prev, cap, active));
    RowKey from = prev;
    try {
      while (true) {
        SourceChunk src = await(next);
        next = null;
        // a full chunk that ends exactly at the cap ends the range as well
        boolean more = src.rows().size() == n && (cap == null || !keyOf(src.rows()).equals(cap));
        RowKey bound = more ? keyOf(src.rows()) : cap;
        if (more) {
          RowKey b = bound;
          next = pool.submit(() -> readSource(b, cap, active));
        }
        List<List<KeyedRow>> tgt = readTargets(from, bound, active);
        for (int full = fullTarget(tgt, bound, active);
            full >= 0;
            full = fullTarget(tgt, bound, active)) {
          bound = keyOf(tgt.get(full));
          more = true;
          drain(next);
          src = readSource(from, bound, active);
          RowKey b = bound;
          next = pool.submit(() -> readSource(b, cap, active));
          tgt = readTargets(from, bound, active);
        }
        finishChunk(src, tgt, active, from, bound, bound == null);
        if (!more) {
          return;
        }
        from = bound;
      }
    } finally {
      drain(next);
    }
  }

  private void finishChunk(
      SourceChunk src,
      List<List<KeyedRow>> tgt,
      boolean[] active,
      RowKey from,
      RowKey bound,
      boolean tableDone)
      throws SQLException {
    List<List<KeyedRow>> routed = src.routed();
    RowKey saved = bound != null ? bound : from;
    Optional<String> savedJson = Optional.ofNullable(saved).map(k -> k.toJson(table.keyNames()));
    for (int i = 0; i < targets.size(); i++) {
      if (!active[i]) {
        continue;
      }
      Target t = targets.get(i);
      ChunkMatcher.Fixes fixes = ChunkMatcher.match(table, routed.get(i), tgt.get(i), tallies[i]);
      if (t.repairWriter() != null) {
        tallies[i].repaired(t.repairWriter().delete(t.writes(), fixes.delete()));
        tallies[i].repaired(t.repairWriter().replace(t.writes(), fixes.replace()));
      }
      DiffStateTable.save(
          t.writes(),
          spec.workflow(),
          new DiffStateTable.State(tallies[i].snapshot(), savedJson, sourcePosition, tableDone));
      t.writes().commit();
    }
    listener.chunkCompared(table.table(), ++chunk, bound);
  }

  /**
   * Reads the source's rows of {@code (from, upTo]} and routes them by keyspace id to the active
   * targets (on a pool thread, so that the hashing overlaps the other reads).
   */
  private SourceChunk readSource(RowKey from, RowKey upTo, boolean[] active) throws SQLException {
    List<KeyedRow> rows = reader.read(source, from, upTo);
    List<List<KeyedRow>> routed = new ArrayList<>(targets.size());
    for (int i = 0; i < targets.size(); i++) {
      routed.add(new ArrayList<>(active[i] ? rows.size() / targets.size() + 16 : 0));
    }
    for (KeyedRow r : rows) {
      int i = spec.targetIndexOf(sharding.keyspaceId(r.row()));
      if (i >= 0 && active[i]) {
        routed.get(i).add(r);
      }
    }
    return new SourceChunk(rows, routed);
  }

  /** Reads every active target's rows of {@code (from, bound]} in parallel. */
  private List<List<KeyedRow>> readTargets(RowKey from, RowKey bound, boolean[] active)
      throws SQLException, InterruptedException {
    List<Future<List<KeyedRow>>> reads = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Connection c = targets.get(i).read();
      reads.add(active[i] ? pool.submit(() -> reader.read(c, from, bound)) : null);
    }
    List<List<KeyedRow>> out = new ArrayList<>();
    try {
      for (Future<List<KeyedRow>> f : reads) {
        out.add(f == null ? List.of() : await(f));
      }
    } finally {
      reads.forEach(TableDiffer::drain);
    }
    return out;
  }

  /**
   * An active target that returned a full chunk ending before {@code bound} (it may have more rows
   * in the range), or -1.
   */
  private int fullTarget(List<List<KeyedRow>> tgt, RowKey bound, boolean[] active) {
    for (int i = 0; i < tgt.size(); i++) {
      List<KeyedRow> rows = tgt.get(i);
      if (active[i]
          && rows.size() == reader.limit()
          && (bound == null || !keyOf(rows).equals(bound))) {
        return i;
      }
    }
    return -1;
  }

  private RowKey keyOf(List<KeyedRow> rows) {
    return table.keyOf(rows.get(rows.size() - 1).row());
  }

  private static boolean same(RowKey a, RowKey b) {
    return a == null ? b == null : a.equals(b);
  }

  private static boolean contains(List<RowKey> keys, RowKey k) {
    return keys.stream().anyMatch(x -> same(x, k));
  }

  /** Sorts resume keys in the server's key order (null first); there are at most a few. */
  private void sort(List<RowKey> keys) throws SQLException {
    for (int i = 1; i < keys.size(); i++) {
      for (int j = i; j > 0 && before(keys.get(j), keys.get(j - 1)); j--) {
        RowKey t = keys.get(j);
        keys.set(j, keys.get(j - 1));
        keys.set(j - 1, t);
      }
    }
  }

  private boolean before(RowKey a, RowKey b) throws SQLException {
    if (a == null || b == null) {
      return a == null && b != null;
    }
    return KeyOrder.compare(source, table, a, b) < 0;
  }

  private static <T> T await(Future<T> f) throws SQLException, InterruptedException {
    try {
      return f.get();
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof SQLException s) {
        throw s;
      }
      if (c instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException("a diff read failed", c);
    }
  }

  /** Waits for a read still running on a connection, ignoring its result. */
  private static void drain(Future<?> f) {
    if (f == null) {
      return;
    }
    boolean interrupted = false;
    while (true) {
      try {
        f.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException e) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
