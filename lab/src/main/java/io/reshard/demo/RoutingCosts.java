package io.reshard.demo;

import io.reshard.bench.LatencyRecorder;
import io.reshard.router.Router;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Random;
import java.util.function.IntConsumer;

/**
 * What each kind of read costs through router-lib: 8 client threads for a fixed time per query type
 * after a warm-up; shard queries per read, p50, p99 and QPS.
 */
final class RoutingCosts {
  private final Router router;
  private final long[] channelOf;
  private final Duration duration;

  RoutingCosts(Router router, long[] channelOf, Duration duration) {
    this.router = router;
    this.channelOf = channelOf;
    this.duration = duration;
  }

  Map<String, Object> run() throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    Random r = new Random(3);
    Comparator<Map<String, Object>> newest =
        Comparator.comparing(ChatKeyspace::createdAt).reversed();
    out.put(
        "by_id_with_channel",
        measure(
            1,
            i -> {
              long id = 1 + r.nextInt(channelOf.length);
              router.query(
                  "messages",
                  channelOf[(int) id - 1],
                  "SELECT * FROM messages WHERE channel_id = ? AND id = ?",
                  channelOf[(int) id - 1],
                  id);
            }));
    out.put(
        "by_id_via_lookup",
        measure(
            2,
            i -> {
              long id = 1 + r.nextInt(channelOf.length);
              router.queryByLookup("messages", "id", id, "SELECT * FROM messages WHERE id = ?", id);
            }));
    out.put(
        "by_id_scatter",
        measure(
            4,
            i -> {
              long id = 1 + r.nextInt(channelOf.length);
              router.scatter("SELECT * FROM messages WHERE id = ?", id);
            }));
    out.put(
        "latest_50_by_channel",
        measure(
            1,
            i -> {
              long ch = channelOf[r.nextInt(channelOf.length)];
              router.query(
                  "messages",
                  ch,
                  "SELECT * FROM messages WHERE channel_id = ? ORDER BY created_at DESC LIMIT 50",
                  ch);
            }));
    out.put(
        "latest_50_by_user",
        measure(
            4,
            i -> {
              long user = 1 + r.nextInt(ChatKeyspace.USERS);
              router.scatterOrdered(
                  "SELECT * FROM messages WHERE user_id = ? ORDER BY created_at DESC LIMIT 50",
                  newest,
                  50,
                  user);
            }));
    return out;
  }

  private Map<String, Object> measure(int shardQueries, IntConsumer op) throws Exception {
    LatencyRecorder.runFor(8, duration.dividedBy(3), op); // warm-up
    long t0 = System.nanoTime();
    LatencyRecorder all = LatencyRecorder.runFor(8, duration, op);
    double secs = (System.nanoTime() - t0) / 1e9;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("shard_queries", shardQueries);
    m.put("p50_ms", round(all.quantileMillis(0.5)));
    m.put("p99_ms", round(all.quantileMillis(0.99)));
    m.put("qps", Math.round(all.count() / secs));
    return m;
  }

  static double round(double v) {
    return Math.round(v * 1000) / 1000.0;
  }
}
