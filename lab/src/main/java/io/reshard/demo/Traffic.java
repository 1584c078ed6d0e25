package io.reshard.demo;

import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.Vindex;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application during the online split: a writer that inserts messages (lookup row first),
 * updates messages anywhere and deletes some of the messages it inserted itself; a reader that
 * looks loaded messages up through the lookup vindex (nobody deletes those, so a miss is a bug) and
 * reads the latest messages of users by scatter (an id twice is a bug). The writer knows exactly
 * which ids must exist at the end. Thread-safe counters; one writer and one reader thread.
 */
final class Traffic {
  enum Phase {
    BEFORE,
    DURING,
    AFTER
  }

  final Router router;
  final long[] loadedChannel;
  final Vindex hash;
  final KeyRange moving = KeyRange.parse("c0-");
  final Map<Long, Long> inserted =
      new ConcurrentHashMap<>(); // id -> channel, the writer's own live rows
  final Set<Long> deleted = ConcurrentHashMap.newKeySet();
  final AtomicBoolean stop = new AtomicBoolean();
  final AtomicLong writerOps = new AtomicLong();
  final AtomicLong writerErrors = new AtomicLong();
  final AtomicLong readerLookups = new AtomicLong();
  final AtomicLong readerMisses = new AtomicLong();
  final AtomicLong readerDuplicates = new AtomicLong();
  final AtomicLong readerErrors = new AtomicLong();
  final Map<Phase, List<Long>> insertNanos = new ConcurrentHashMap<>();

  /** Every insert as {start, latency}, nanoseconds since {@link #startNanos}, for the chart. */
  final List<long[]> insertSamples = Collections.synchronizedList(new ArrayList<>());

  /** What happened when (copy, switches), nanoseconds since {@link #startNanos}, in order. */
  final Map<String, Long> marks = Collections.synchronizedMap(new LinkedHashMap<>());

  final long startNanos = System.nanoTime();
  volatile Phase phase = Phase.BEFORE;
  volatile String firstError;
  private final AtomicLong lastMovingAck = new AtomicLong();
  private final AtomicLong longestGap = new AtomicLong();
  private volatile boolean measureGap;
  private long nextId;

  Traffic(Router router, long[] loadedChannel, Vindex hash) {
    this.router = router;
    this.loadedChannel = loadedChannel;
    this.hash = hash;
    this.nextId = loadedChannel.length + 1L;
    for (Phase p : Phase.values()) {
      insertNanos.put(p, Collections.synchronizedList(new ArrayList<>()));
    }
  }

  void write(long seed) {
    Random r = new Random(seed);
    ChatKeyspace.Channels channels = new ChatKeyspace.Channels();
    List<Long> own = new ArrayList<>();
    while (!stop.get()) {
      try {
        int op = r.nextInt(10);
        if (op < 5 || own.isEmpty()) {
          long id = nextId++;
          long ch = channels.next(r);
          Map<String, Object> row = new LinkedHashMap<>();
          row.put("id", id);
          row.put("channel_id", ch);
          row.put("user_id", 1 + r.nextInt(ChatKeyspace.USERS));
          row.put("created_at", Timestamp.from(Instant.now()));
          row.put("body", "live message " + id);
          long t0 = System.nanoTime();
          router.insert("messages", row);
          long latency = System.nanoTime() - t0;
          insertNanos.get(phase).add(latency);
          insertSamples.add(new long[] {t0 - startNanos, latency});
          inserted.put(id, ch);
          own.add(id);
          ack(ch);
        } else if (op < 9) {
          long id = 1 + r.nextInt(loadedChannel.length);
          long ch = loadedChannel[(int) id - 1];
          router.inTransaction(
              tx ->
                  tx.update(
                      "messages",
                      ch,
                      "UPDATE messages SET body = CONCAT('edited ', id) WHERE id = ?",
                      id));
          ack(ch);
        } else {
          long id = own.remove(r.nextInt(own.size()));
          long ch = inserted.remove(id);
          Map<String, Object> key = new LinkedHashMap<>();
          key.put("id", id);
          key.put("channel_id", ch);
          router.delete("messages", key);
          deleted.add(id);
          ack(ch);
        }
        writerOps.incrementAndGet();
      } catch (RuntimeException e) {
        writerErrors.incrementAndGet();
        if (firstError == null) {
          firstError = "writer: " + e;
        }
      }
    }
  }

  void read(long seed) {
    Random r = new Random(seed);
    Comparator<Map<String, Object>> newest =
        Comparator.comparing(ChatKeyspace::createdAt).reversed();
    while (!stop.get()) {
      try {
        long id = 1 + r.nextInt(loadedChannel.length);
        int found =
            router
                .queryByLookup("messages", "id", id, "SELECT id FROM messages WHERE id = ?", id)
                .size();
        readerLookups.incrementAndGet();
        if (found == 0) {
          readerMisses.incrementAndGet();
        } else if (found > 1) {
          readerDuplicates.incrementAndGet();
        }
        if (r.nextInt(4) == 0) {
          long user = 1 + r.nextInt(ChatKeyspace.USERS);
          List<Map<String, Object>> rows =
              router.scatterOrdered(
                  "SELECT id, created_at FROM messages WHERE user_id = ? ORDER BY created_at DESC LIMIT 50",
                  newest,
                  50,
                  user);
          Set<Object> ids = new HashSet<>();
          for (Map<String, Object> m : rows) {
            if (!ids.add(m.get("id"))) {
              readerDuplicates.incrementAndGet();
            }
          }
        }
      } catch (RuntimeException e) {
        readerErrors.incrementAndGet();
        if (firstError == null) {
          firstError = "reader: " + e;
        }
      }
    }
  }

  /** Records that {@code what} happens now, for the chart. */
  void mark(String what) {
    marks.put(what, System.nanoTime() - startNanos);
  }

  /** Starts measuring the longest gap between acknowledged writes to the moving range. */
  void measureCutover() {
    lastMovingAck.set(0);
    longestGap.set(0);
    measureGap = true;
  }

  long cutoverPauseMillis() {
    measureGap = false;
    return longestGap.get() / 1_000_000;
  }

  private void ack(long ch) {
    if (measureGap && moving.contains(hash.keyspaceId(ch))) {
      long now = System.nanoTime();
      long prev = lastMovingAck.getAndSet(now);
      if (prev != 0) {
        longestGap.accumulateAndGet(now - prev, Math::max);
      }
    }
  }

  /** The median insert latency of a phase, in ms (NaN if none). */
  double insertP50Millis(Phase p) {
    List<Long> l;
    synchronized (insertNanos.get(p)) {
      l = new ArrayList<>(insertNanos.get(p));
    }
    if (l.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(l);
    return l.get(l.size() / 2) / 1e6;
  }
}
