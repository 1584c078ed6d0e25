package io.reshard.router;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Scatter reads: one query per shard of the read partition, run in parallel on a fixed pool, then
 * merged. Thread-safe.
 */
final class Scatter implements AutoCloseable {
  private final Router router;
  private final ExecutorService pool;

  Scatter(Router router, int threads) {
    this.router = router;
    AtomicInteger n = new AtomicInteger();
    this.pool =
        Executors.newFixedThreadPool(
            threads,
            r -> {
              Thread t =
                  new Thread(r, "reshard-scatter-" + router.keyspace() + "-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
  }

  /** Every read shard's rows, concatenated in shard order. */
  List<Map<String, Object>> all(ShardMap map, String sql, Object... params) {
    List<Map<String, Object>> rows = new ArrayList<>();
    for (List<Map<String, Object>> part : perShard(map, sql, params)) {
      rows.addAll(part);
    }
    return rows;
  }

  /** The first {@code limit} rows of every shard's rows by {@code order}. */
  List<Map<String, Object>> ordered(
      ShardMap map,
      String sql,
      Comparator<Map<String, Object>> order,
      int limit,
      Object... params) {
    List<Map<String, Object>> rows = all(map, sql, params);
    rows.sort(order);
    return new ArrayList<>(rows.subList(0, Math.min(limit, rows.size())));
  }

  /** The sum of the first column of every shard's first row. */
  long count(ShardMap map, String sql, Object... params) {
    long sum = 0;
    for (List<Map<String, Object>> part : perShard(map, sql, params)) {
      if (!part.isEmpty()) {
        Object v = part.get(0).values().iterator().next();
        sum += v == null ? 0 : ((Number) v).longValue();
      }
    }
    return sum;
  }

  private List<List<Map<String, Object>>> perShard(ShardMap map, String sql, Object... params) {
    List<Shard> shards = map.shards().stream().filter(Shard::servesReads).toList();
    router.metrics().read("scatter", shards.size());
    List<Future<List<Map<String, Object>>>> futures = new ArrayList<>();
    for (Shard s : shards) {
      futures.add(pool.submit(() -> router.onShard(s, sql, params)));
    }
    List<List<Map<String, Object>>> parts = new ArrayList<>();
    for (Future<List<Map<String, Object>>> f : futures) {
      try {
        parts.add(f.get());
      } catch (ExecutionException e) {
        futures.forEach(other -> other.cancel(true));
        if (e.getCause() instanceof RuntimeException re) {
          throw re;
        }
        throw new ReshardException("scatter query failed: " + e.getCause(), e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ReshardException("interrupted during a scatter query", e);
      }
    }
    return parts;
  }

  @Override
  public void close() {
    pool.shutdownNow();
  }
}
