package io.reshard.router;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import org.apache.datasketches.frequencies.ErrorType;
import org.apache.datasketches.frequencies.ItemsSketch;

/**
 * What a router counts, bound to a Micrometer registry: queries per shard ({@code
 * reshard.router.shard.queries}, tag {@code shard}), reads by kind ({@code reshard.router.reads},
 * tag {@code kind} = targeted, lookup or scatter; the scatter rate is scatter / all), the fan-out
 * per read ({@code reshard.router.fanout}: shard queries per read), writes refused by a fence
 * ({@code reshard.router.writes.refused}, tags shard and reason), and writes that waited for a
 * cutover ({@code reshard.router.writes.buffered}).
 *
 * <p>The hottest sharding keys are kept in a frequent-items sketch (Apache DataSketches {@code
 * ItemsSketch}, Misra-Gries with a bounded map of {@value #SKETCH_MAP_SIZE} entries), so memory
 * stays fixed however many keys there are. Thread-safe.
 */
public final class RouterMetrics {

  /** Size of the sketch's map: a power of two; it tracks keys above ~3.5/size of all traffic. */
  static final int SKETCH_MAP_SIZE = 256;

  private final MeterRegistry registry;
  private final String keyspace;
  private final DistributionSummary fanout;
  private final ItemsSketch<String> hotKeys = new ItemsSketch<>(SKETCH_MAP_SIZE);

  RouterMetrics(MeterRegistry registry, String keyspace) {
    this.registry = registry;
    this.keyspace = keyspace;
    this.fanout =
        DistributionSummary.builder("reshard.router.fanout")
            .description("shard queries per read")
            .tag("keyspace", keyspace)
            .register(registry);
  }

  void shardQuery(String shard) {
    counter("reshard.router.shard.queries", "shard", shard).increment();
  }

  void read(String kind, int shardQueries) {
    counter("reshard.router.reads", "kind", kind).increment();
    fanout.record(shardQueries);
  }

  void writeRefused(String shard, String reason) {
    Counter.builder("reshard.router.writes.refused")
        .tag("keyspace", keyspace)
        .tag("shard", shard)
        .tag("reason", reason)
        .register(registry)
        .increment();
  }

  void writeBuffered() {
    Counter.builder("reshard.router.writes.buffered")
        .tag("keyspace", keyspace)
        .register(registry)
        .increment();
  }

  void key(String table, Object shardingKey) {
    String item = table + ":" + shardingKey;
    synchronized (hotKeys) {
      hotKeys.update(item);
    }
  }

  /** Reads of a kind so far: {@code targeted}, {@code lookup} or {@code scatter}. */
  public double reads(String kind) {
    Counter c =
        registry.find("reshard.router.reads").tags("keyspace", keyspace, "kind", kind).counter();
    return c == null ? 0 : c.count();
  }

  /** Queries sent to {@code shard} so far (reads, writes and fence checks). */
  public double shardQueries(String shard) {
    Counter c =
        registry
            .find("reshard.router.shard.queries")
            .tags("keyspace", keyspace, "shard", shard)
            .counter();
    return c == null ? 0 : c.count();
  }

  /** The mean number of shard queries per read. */
  public double meanFanout() {
    return fanout.mean();
  }

  /**
   * The most frequent {@code table:key} pairs, most frequent first, with their estimated counts
   * (upper bounds; no false negatives above the sketch's error threshold).
   */
  public List<HotKey> hottestKeys(int n) {
    List<HotKey> result = new ArrayList<>();
    synchronized (hotKeys) {
      for (ItemsSketch.Row<String> row : hotKeys.getFrequentItems(ErrorType.NO_FALSE_NEGATIVES)) {
        if (result.size() == n) {
          break;
        }
        result.add(new HotKey(row.getItem(), row.getEstimate()));
      }
    }
    return result;
  }

  /**
   * One hot sharding key.
   *
   * @param key {@code table:value}
   * @param estimate its estimated number of uses
   */
  public record HotKey(String key, long estimate) {}

  private Counter counter(String name, String tag, String value) {
    return Counter.builder(name).tag("keyspace", keyspace).tag(tag, value).register(registry);
  }
}
