package io.reshard.bench.chaos;

import io.reshard.router.KeyspaceId;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Every shard map version of one keyspace that the chaos run saw, and when it first saw each
 * ({@link System#nanoTime()}), as the harness's own subscription received them: the clock against
 * which the stale-owner check ({@link #staleOwner}) judges each acknowledged write. Thread-safe.
 */
final class MapTimeline {
  private final Map<Long, ShardMap> versions = new TreeMap<>();
  private final List<long[]> arrivals = new ArrayList<>(); // {nanos, version}, in arrival order

  /** Records {@code map} as seen at {@code nanos}; a version seen before keeps its first time. */
  synchronized void seen(ShardMap map, long nanos) {
    if (versions.putIfAbsent(map.version(), map) == null) {
      arrivals.add(new long[] {nanos, map.version()});
    }
  }

  /** The map of version {@code version}, if it was seen. */
  synchronized Optional<ShardMap> version(long version) {
    return Optional.ofNullable(versions.get(version));
  }

  /** The newest version seen strictly before {@code nanos}, or 0 if none. */
  synchronized long newestSeenBefore(long nanos) {
    long newest = 0;
    for (long[] a : arrivals) {
      if (a[0] - nanos < 0) {
        newest = Math.max(newest, a[1]);
      }
    }
    return newest;
  }

  /** How many versions were seen. */
  synchronized int size() {
    return versions.size();
  }

  /**
   * Why an acknowledged write counts as accepted by a stale owner, or empty if it does not.
   *
   * <p>Two ways: the fence row the write's own transaction read just before its commit (under the
   * share lock the router took) did not let it write — not writable, or another epoch than the map
   * the write was routed by gives the shard; or, when the write's attempt began, this timeline had
   * already seen a newer map in which another shard, or the same shard at another epoch, owns the
   * row's keyspace id. The switcher fences the old owner before it publishes the map that moves
   * ownership, so a correct system refuses every such write; no write of a correct system is
   * flagged (an attempt that began after the new map was seen also checked the fence after it).
   *
   * @param w the write
   * @param ksid the keyspace id of its row
   */
  Optional<String> staleOwner(AckLedger.Write w, KeyspaceId ksid) {
    Optional<ShardMap> used = version(w.mapVersion());
    if (used.isEmpty()) {
      return Optional.of(
          "write of id " + w.id() + " routed by map version " + w.mapVersion() + ", never seen");
    }
    Optional<Shard> shard =
        used.get().shards().stream().filter(s -> s.name().equals(w.shard())).findFirst();
    if (shard.isEmpty()) {
      return Optional.of(
          "write of id " + w.id() + " on shard " + w.shard() + ", absent from its map version");
    }
    long epoch = shard.get().epoch();
    if (!w.fenceWritable() || w.fenceEpoch() != epoch) {
      return Optional.of(
          String.format(
              "write of id %d committed on %s while its fence row said epoch %d writable %s"
                  + " (map version %d gives epoch %d)",
              w.id(), w.shard(), w.fenceEpoch(), w.fenceWritable(), w.mapVersion(), epoch));
    }
    long newest = newestSeenBefore(w.beginNanos());
    if (newest > w.mapVersion()) {
      Shard owner = version(newest).orElseThrow().writeShardFor(ksid);
      if (!owner.name().equals(w.shard()) || owner.epoch() != epoch) {
        return Optional.of(
            String.format(
                "write of id %d accepted by %s (epoch %d, map version %d) although map version %d,"
                    + " seen before the write began, gives it to %s (epoch %d)",
                w.id(), w.shard(), epoch, w.mapVersion(), newest, owner.name(), owner.epoch()));
      }
    }
    return Optional.empty();
  }
}
