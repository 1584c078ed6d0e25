package io.reshard.differ.compare;

import io.reshard.core.placement.ShardingKey;
import io.reshard.core.rows.KeyOrder;
import io.reshard.core.rows.KeysetSql;
import io.reshard.core.rows.RowKey;
import io.reshard.core.rows.RowWriter;
import io.reshard.core.schema.TableSchema;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffProgress;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.TableDiff;
import io.reshard.router.ReshardException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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
 *
 * <p><b>Overlap.</b> The source is the side that holds every row, so its connection is kept busy: a
 * {@link SourceStream} reads the source's chunks one after the other on a pool thread, each as soon
 * as the previous one is handed over. The differ's thread takes a chunk, starts the targets' reads
 * of its range, and while they run compares and saves the previous chunk and routes this one by
 * keyspace id (routing is not done on the source's thread, so it does not delay the next source
 * read). Memory is bounded: at most four source chunks (one being read, one handed over and
 * waiting, the current one, the previous one being compared) and two chunks of each target (the
 * current one's, the previous one's), each of at most {@code chunkRows} rows.
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
  private final SideReader targetReader;

  /** How many more rows a merge's diff reads of a target per chunk than of the source. */
  private static final int MERGE_TARGET_READ_FACTOR = 2;

  private final int sampleLimit;
  private final Tally[] tallies;
  private long chunk;

  /** A source chunk: its rows in key order, and the same rows routed to the active targets. */
  private record SourceChunk(List<KeyedRow> rows, List<List<KeyedRow>> routed) {}

  /** A chunk read on every side, waiting to be compared and saved. */
  private record ReadChunk(
      SourceChunk src, List<List<KeyedRow>> tgt, RowKey from, RowKey bound, boolean tableDone) {}

  /**
   * @param spec what is compared; {@code targets} follow {@link DiffSpec#targets()}
   * @param source reads the source inside its snapshot transaction
   * @param targets one per target of the spec, in order
   * @param sourcePosition G, stored with the progress
   * @param pool runs the reads of the targets and of the source's next chunks; at least as many
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
    // a merge's target also holds other sources' rows in the chunk's key range: read more of them
    // at once, or nearly every chunk would end early on a full target and be read again
    this.targetReader =
        spec.sourceRange() == null
            ? reader
            : new SideReader(table, config.chunkRows() * MERGE_TARGET_READ_FACTOR);
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
  public List<TableDiff> run(List<Optional<DiffProgress.State>> stored)
      throws SQLException, InterruptedException {
    int n = targets.size();
    SideReader.prepare(source);
    for (Target t : targets) {
      SideReader.prepare(t.read());
    }
    boolean[] done = new boolean[n];
    RowKey[] after = new RowKey[n];
    for (int i = 0; i < n; i++) {
      Optional<DiffProgress.State> s = stored.get(i);
      TableDiff from = s.map(DiffProgress.State::counts).orElse(null);
      tallies[i] = new Tally(table.table(), sampleLimit, from);
      done[i] = s.isPresent() && s.get().done();
      after[i] =
          s.flatMap(DiffProgress.State::lastKeyJson)
              .map(j -> RowKey.fromJson(j, table.primaryKey()))
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
    SourceStream stream = new SourceStream(prev, cap);
    List<Future<List<KeyedRow>>> reads = null;
    ReadChunk pending = null;
    RowKey from = prev;
    try {
      while (true) {
        List<KeyedRow> rows = stream.next();
        // a full chunk that ends exactly at the cap ends the range as well
        boolean more = rows.size() == n && (cap == null || !keyOf(rows).equals(cap));
        RowKey bound = more ? keyOf(rows) : cap;
        reads = submitTargets(from, bound, active);
        if (pending != null) {
          // the previous chunk is compared and saved while this one is read on the targets
          finishChunk(pending, active);
          pending = null;
        }
        SourceChunk src = route(rows, active);
        List<List<KeyedRow>> tgt = awaitTargets(reads);
        reads = null;
        for (int full = fullTarget(tgt, bound, active);
            full >= 0;
            full = fullTarget(tgt, bound, active)) {
          // rare: read every side again up to the full target's last key, and the source from there
          bound = keyOf(tgt.get(full));
          more = true;
          stream.close();
          src = route(reader.read(source, from, bound), active);
          stream = new SourceStream(bound, cap);
          tgt = readTargets(from, bound, active);
        }
        pending = new ReadChunk(src, tgt, from, bound, bound == null);
        if (!more) {
          finishChunk(pending, active);
          return;
        }
        from = bound;
      }
    } finally {
      stream.close();
      if (reads != null) {
        reads.forEach(TableDiffer::drain);
      }
    }
  }

  /**
   * Reads the source's chunks of {@code (from, cap]} one after the other on a pool thread, on the
   * source's connection (which nothing else uses meanwhile), each as soon as the previous one is
   * handed over: at most one chunk waits to be taken, and one is being read.
   */
  private final class SourceStream {
    /** What the reading thread hands over: rows, or the failure that ended it. */
    private final BlockingQueue<Object> handOver = new ArrayBlockingQueue<>(1);

    private final Future<?> task;
    private volatile boolean stop;

    SourceStream(RowKey from, RowKey cap) {
      task =
          pool.submit(
              () -> {
                readAll(from, cap);
                return null;
              });
    }

    private void readAll(RowKey from, RowKey cap) throws InterruptedException {
      RowKey after = from;
      try {
        while (!stop) {
          List<KeyedRow> rows = reader.read(source, after, cap);
          handOver.put(rows);
          if (rows.size() < reader.limit() || (cap != null && keyOf(rows).equals(cap))) {
            return;
          }
          after = keyOf(rows);
        }
      } catch (SQLException | RuntimeException e) {
        handOver.put(e);
      }
    }

    /** The next chunk's rows, in key order; only while the previous chunk was full. */
    @SuppressWarnings("unchecked")
    List<KeyedRow> next() throws SQLException, InterruptedException {
      Object o = handOver.take();
      if (o instanceof SQLException e) {
        throw e;
      }
      if (o instanceof RuntimeException e) {
        throw e;
      }
      return (List<KeyedRow>) o;
    }

    /** Stops reading and waits until the source's connection is free again. */
    void close() {
      stop = true;
      boolean interrupted = false;
      while (true) {
        handOver.clear(); // unblocks a hand-over, after which the thread sees stop
        try {
          task.get(10, TimeUnit.MILLISECONDS);
          break;
        } catch (TimeoutException e) {
          // still reading or handing over: clear again
        } catch (InterruptedException e) {
          interrupted = true;
        } catch (ExecutionException | CancellationException e) {
          break;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void finishChunk(ReadChunk c, boolean[] active) throws SQLException {
    finishChunk(c.src(), c.tgt(), active, c.from(), c.bound(), c.tableDone());
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
    Optional<String> savedJson = Optional.ofNullable(saved).map(k -> k.toJson(table.primaryKey()));
    for (int i = 0; i < targets.size(); i++) {
      if (!active[i]) {
        continue;
      }
      Target t = targets.get(i);
      ChunkMatcher.Fixes fixes =
          ChunkMatcher.match(
              table, routed.get(i), ownRows(i, tgt.get(i), routed.get(i)), tallies[i]);
      if (t.repairWriter() != null) {
        tallies[i].repaired(t.repairWriter().delete(t.writes(), fixes.delete()));
        tallies[i].repaired(t.repairWriter().replace(t.writes(), fixes.replace()));
      }
      DiffProgress.save(
          t.writes(),
          spec.workflow(),
          new DiffProgress.State(tallies[i].snapshot(), savedJson, sourcePosition, tableDone));
      t.writes().commit();
    }
    listener.chunkCompared(table.table(), ++chunk, bound);
  }

  /**
   * The rows of target {@code i}'s chunk that this diff compares: all of them, or in a merge those
   * whose keyspace id is in the source's range (the others are another source's, compared by its
   * diff).
   *
   * @param source the source rows of the chunk routed to the target
   * @throws ReshardException if a target row of another source's range has the primary key of one
   *     of these source rows: two sources hold that key, and the target can hold only one of them,
   *     so neither a diff nor a repair can make it right
   */
  private List<KeyedRow> ownRows(int i, List<KeyedRow> rows, List<KeyedRow> source) {
    if (spec.sourceRange() == null) {
      return rows;
    }
    List<KeyedRow> own = new ArrayList<>(rows.size());
    Set<Object> sourceKeys = null;
    for (KeyedRow r : rows) {
      if (spec.comparesTargetRow(sharding.keyspaceId(r.row()))) {
        own.add(r);
        continue;
      }
      if (sourceKeys == null) {
        sourceKeys = new HashSet<>();
        for (KeyedRow s : source) {
          sourceKeys.add(s.mapKey());
        }
      }
      if (sourceKeys.contains(r.mapKey())) {
        throw new ReshardException(
            "diff of workflow "
                + spec.workflow()
                + ", table "
                + table.table()
                + ": primary key "
                + table.keyOf(r.row()).describe(table.primaryKey())
                + " is held by the source "
                + spec.sourceRange().name()
                + " and, on target "
                + spec.targets().get(i).name()
                + ", by a row of another source's range. Either two sources hold this key, which"
                + " a merge cannot keep (the target holds one row per key: make the keys unique"
                + " across the sources, e.g. with a sequence, or cancel the workflow), or the row"
                + " has just moved between sources and the other source's change has not reached"
                + " the target yet (run the diff again). The chunk was not repaired on that target");
      }
    }
    return own;
  }

  /** Routes a source chunk's rows by keyspace id to the active targets. */
  private SourceChunk route(List<KeyedRow> rows, boolean[] active) {
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
    return awaitTargets(submitTargets(from, bound, active));
  }

  /**
   * Starts reading every active target's rows of {@code (from, bound]}, in parallel (null for an
   * inactive target).
   */
  private List<Future<List<KeyedRow>>> submitTargets(RowKey from, RowKey bound, boolean[] active) {
    List<Future<List<KeyedRow>>> reads = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      Connection c = targets.get(i).read();
      reads.add(active[i] ? pool.submit(() -> targetReader.read(c, from, bound)) : null);
    }
    return reads;
  }

  /** The rows of {@link #submitTargets}' reads; every read has ended when this returns. */
  private static List<List<KeyedRow>> awaitTargets(List<Future<List<KeyedRow>>> reads)
      throws SQLException, InterruptedException {
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
          && rows.size() == targetReader.limit()
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
