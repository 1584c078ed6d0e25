package io.reshard.demo;

import io.reshard.router.KeyRange;
import io.reshard.router.Vindex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How uneven hash sharding by channel is, from the real per-channel message counts: the busiest
 * shard's share of all messages when the keyspace has 2, 4, ... 128 equal shards, and the same at
 * 128 shards if the busiest channel's messages were spread over 16 sub-keys (a bucketed key).
 */
final class Skew {
  private Skew() {}

  static List<Map<String, Object>> of(long[] channelOf, Vindex hash) {
    Map<Long, Long> perChannel = new LinkedHashMap<>();
    for (long ch : channelOf) {
      perChannel.merge(ch, 1L, Long::sum);
    }
    long busiest =
        perChannel.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    List<Map<String, Object>> out = new ArrayList<>();
    for (int n = 2; n <= 128; n *= 2) {
      out.add(row(n, busiestShare(perChannel, hash, n, busiest, 1), false));
    }
    out.add(row(128, busiestShare(perChannel, hash, 128, busiest, 16), true));
    return out;
  }

  private static double busiestShare(
      Map<Long, Long> perChannel, Vindex hash, int shards, long busiest, int buckets) {
    List<KeyRange> ranges = KeyRange.evenShards(shards);
    long[] load = new long[shards];
    long total = 0;
    for (Map.Entry<Long, Long> e : perChannel.entrySet()) {
      int parts = e.getKey() == busiest ? buckets : 1;
      for (int b = 0; b < parts; b++) {
        // a bucketed channel's sub-key: the channel id and the bucket, as one integer
        long key = parts == 1 ? e.getKey() : e.getKey() * 1000 + b;
        long share = e.getValue() / parts + (b < e.getValue() % parts ? 1 : 0);
        load[indexOf(ranges, hash.keyspaceId(key))] += share;
        total += share;
      }
    }
    long max = 0;
    for (long l : load) {
      max = Math.max(max, l);
    }
    return (double) max / total;
  }

  private static int indexOf(List<KeyRange> ranges, io.reshard.router.KeyspaceId ksid) {
    for (int i = 0; i < ranges.size(); i++) {
      if (ranges.get(i).contains(ksid)) {
        return i;
      }
    }
    throw new IllegalStateException("no range holds " + ksid);
  }

  private static Map<String, Object> row(int shards, double share, boolean bucketed) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("shards", shards);
    m.put("busiest_share", Math.round(share * 10000) / 10000.0);
    if (bucketed) {
      m.put("busiest_channel_buckets", 16);
    }
    return m;
  }
}
