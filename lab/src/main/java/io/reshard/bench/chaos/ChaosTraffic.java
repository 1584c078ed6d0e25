package io.reshard.bench.chaos;

import io.reshard.router.CrossShardTransactionException;
import io.reshard.router.Router;
import io.reshard.router.ShardQueryException;
import io.reshard.router.ShardSwitchingException;
import io.reshard.router.StaleShardMapException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The application of one lifecycle, all the time the lifecycle runs: writer threads that insert
 * rows and update their own rows through router-lib (fenced, buffered writes; one of them through a
 * router whose shard map lags behind, see {@link LaggingMaps}), and a reader that reads loaded rows
 * by key and, now and then, several at once by scatter.
 *
 * <p>Every write is recorded in the {@link AckLedger}: acknowledged (with the map version and shard
 * it was routed to, and the fence row its transaction read just before the commit), refused before
 * its commit (nothing written), or of unknown outcome (the commit failed). Each writer owns the ids
 * {@code id % writers == its index}, so one thread writes an id at a time, and values come from one
 * growing counter. Thread-safe counters; {@link #start} once, {@link #stop} once.
 */
final class ChaosTraffic implements HealWatch.WriteAcks {
  /** The harness's own read of the fence row, inside the write's transaction, before the commit. */
  private static final String FENCE_READ =
      "SELECT epoch, writable FROM _reshard.fence WHERE keyspace = ? AND shard = ?"
          + " LOCK IN SHARE MODE";

  /** A writer inserts a new row this often out of ten, else it updates one of its rows. */
  private static final int INSERTS_IN_TEN = 4;

  /** Ids per scatter read. */
  private static final int SCATTER_IDS = 10;

  private final ChaosKeyspace keyspace;
  private final int loadedRows;
  private final AckLedger ledger;
  private final List<Router> writerRouters;
  private final List<String> writerNames;
  private final Router reader;
  private final long writeIntervalNanos;
  private final long readIntervalNanos;
  private final long seed;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong values = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private final Map<String, Long> lastAckNanos = new ConcurrentHashMap<>();

  final AtomicLong acknowledged = new AtomicLong();
  final AtomicLong refused = new AtomicLong();
  final AtomicLong unknown = new AtomicLong();
  final AtomicLong updatesFoundNoRow = new AtomicLong();
  final AtomicLong reads = new AtomicLong();
  final AtomicLong readErrors = new AtomicLong();
  final AtomicLong readMisses = new AtomicLong();
  final AtomicLong scatterDuplicates = new AtomicLong();
  volatile String firstWriteError;

  /**
   * @param writerRouters one router per writer thread (the lagging one among them)
   * @param writerNames their names in the ledger ({@code live}, {@code lagging})
   * @param reader the router the reader uses
   * @param writesPerSecond all writers together
   * @param readsPerSecond the reader's rate
   */
  ChaosTraffic(
      ChaosKeyspace keyspace,
      int loadedRows,
      AckLedger ledger,
      List<Router> writerRouters,
      List<String> writerNames,
      Router reader,
      int writesPerSecond,
      int readsPerSecond,
      long seed) {
    this.keyspace = keyspace;
    this.loadedRows = loadedRows;
    this.ledger = ledger;
    this.writerRouters = List.copyOf(writerRouters);
    this.writerNames = List.copyOf(writerNames);
    this.reader = reader;
    this.writeIntervalNanos = 1_000_000_000L * writerRouters.size() / writesPerSecond;
    this.readIntervalNanos = 1_000_000_000L / readsPerSecond;
    this.seed = seed;
  }

  /** Starts every writer and the reader. */
  void start() {
    for (int w = 0; w < writerRouters.size(); w++) {
      int index = w;
      threads.add(thread("chaos-writer-" + w, () -> write(index)));
    }
    threads.add(thread("chaos-reader", this::read));
    threads.forEach(Thread::start);
  }

  /** Stops them and waits until every write in flight has ended. */
  void stop() throws InterruptedException {
    stop.set(true);
    for (Thread t : threads) {
      t.join();
    }
  }

  @Override
  public long lastAckNanos(String shard) {
    return lastAckNanos.getOrDefault(shard, 0L);
  }

  private static Thread thread(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  private void write(int index) {
    int writers = writerRouters.size();
    Router router = writerRouters.get(index);
    String name = writerNames.get(index);
    Random random = new Random(seed * 1_000_003L + keyspace.lifecycle() * 101L + index);
    List<Long> own = new ArrayList<>();
    for (long id = 1; id <= loadedRows; id++) {
      if (id % writers == index) {
        own.add(id);
      }
    }
    long nextNew = ChaosKeyspace.FIRST_INSERTED_ID + index;
    long next = System.nanoTime();
    while (!stop.get()) {
      next = pace(next, writeIntervalNanos);
      boolean insert = own.isEmpty() || random.nextInt(10) < INSERTS_IN_TEN;
      long id = insert ? nextNew : own.get(random.nextInt(own.size()));
      if (insert) {
        nextNew += writers; // never written twice, whatever this write's outcome
      }
      if (writeOnce(router, name, id, insert) && insert) {
        own.add(id);
      }
    }
  }

  /** One write; true if it was acknowledged. */
  private boolean writeOnce(Router router, String name, long id, boolean insert) {
    long value = values.incrementAndGet();
    long k = ChaosKeyspace.keyOf(id);
    long[] begin = new long[1];
    Object[] seen = new Object[4]; // shard, map version, fence epoch, fence writable
    try {
      int n =
          router.inTransaction(
              tx -> {
                begin[0] = System.nanoTime();
                int changed =
                    insert
                        ? tx.update(
                            ChaosKeyspace.TABLE,
                            k,
                            "INSERT INTO events (id, k, val, note) VALUES (?, ?, ?, ?)",
                            id,
                            k,
                            value,
                            name)
                        : tx.update(
                            ChaosKeyspace.TABLE,
                            k,
                            "UPDATE events SET val = ? WHERE id = ?",
                            value,
                            id);
                String shard = tx.shards().get(0);
                Map<String, Object> fence =
                    tx.query(ChaosKeyspace.TABLE, k, FENCE_READ, keyspace.name(), shard).get(0);
                seen[0] = shard;
                seen[1] = tx.mapVersion();
                seen[2] = ((Number) fence.get("epoch")).longValue();
                seen[3] = truth(fence.get("writable"));
                return changed;
              });
      if (n == 0) {
        updatesFoundNoRow.incrementAndGet();
      }
      String shard = (String) seen[0];
      ledger.acknowledged(
          new AckLedger.Write(
              id, value, (Long) seen[1], shard, begin[0], (Long) seen[2], (Boolean) seen[3], name));
      lastAckNanos.merge(shard, begin[0], Math::max);
      acknowledged.incrementAndGet();
      return true;
    } catch (StaleShardMapException
        | ShardSwitchingException
        | CrossShardTransactionException
        | ShardQueryException e) {
      ledger.refused(id, value); // rolled back before any commit
      refused.incrementAndGet();
      noteError(e);
    } catch (RuntimeException e) {
      ledger.unknown(id, value); // a failed commit: it may have been applied
      unknown.incrementAndGet();
      noteError(e);
    }
    return false;
  }

  private void noteError(RuntimeException e) {
    if (firstWriteError == null) {
      firstWriteError = e.toString();
    }
  }

  private static boolean truth(Object v) {
    return v instanceof Boolean b ? b : ((Number) v).intValue() == 1;
  }

  private void read() {
    Random random = new Random(seed * 7_919L + keyspace.lifecycle());
    long next = System.nanoTime();
    long n = 0;
    while (!stop.get()) {
      next = pace(next, readIntervalNanos);
      try {
        if (++n % SCATTER_IDS == 0) {
          scatterRead(random);
        } else {
          long id = ChaosKeyspace.anyLoadedId(random, loadedRows);
          int found =
              reader
                  .query(
                      ChaosKeyspace.TABLE,
                      ChaosKeyspace.keyOf(id),
                      "SELECT id FROM events WHERE id = ?",
                      id)
                  .size();
          if (found == 0) {
            readMisses.incrementAndGet();
          }
        }
        reads.incrementAndGet();
      } catch (RuntimeException e) {
        readErrors.incrementAndGet();
      }
    }
  }

  /** Reads {@link #SCATTER_IDS} loaded rows from every read shard; an id twice is a bug. */
  private void scatterRead(Random random) {
    List<Object> ids = new ArrayList<>();
    StringBuilder in = new StringBuilder();
    for (int i = 0; i < SCATTER_IDS; i++) {
      ids.add(ChaosKeyspace.anyLoadedId(random, loadedRows));
      in.append(i == 0 ? "?" : ", ?");
    }
    Set<Object> seen = new HashSet<>();
    for (Map<String, Object> row :
        reader.scatter("SELECT id FROM events WHERE id IN (" + in + ")", ids.toArray())) {
      if (!seen.add(row.get("id"))) {
        scatterDuplicates.incrementAndGet();
      }
    }
    if (seen.size() < new HashSet<>(ids).size()) {
      readMisses.incrementAndGet();
    }
  }

  /** Waits until {@code next}; returns the time of the one after, never bunching late ones. */
  private static long pace(long next, long interval) {
    long wait = next - System.nanoTime();
    if (wait > 0) {
      LockSupport.parkNanos(wait);
    }
    return Math.max(next + interval, System.nanoTime());
  }
}
