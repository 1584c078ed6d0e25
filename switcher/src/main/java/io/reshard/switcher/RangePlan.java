package io.reshard.switcher;

import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A proposal of contiguous target ranges for a key range, from {@link RangePlanner}: each range
 * with the rows the sample puts in it, the keyspace ids too hot to share a range, and the same
 * sample measured on the even split ({@link KeyRange#split}) for comparison.
 *
 * @param range the key range the targets cover: the keyspace ({@code -}) or the sources' union
 * @param targets the proposed ranges in order, contiguous, covering {@code range}
 * @param even the even split of {@code range} into as many ranges, measured on the same sample
 * @param hotKeys the ksids whose rows alone are more than an even share ({@code total / n}), in
 *     ksid order: no range can split one, so they bound how even any plan can be
 * @param totalRows the rows the sample stands for
 */
public record RangePlan(
    KeyRange range,
    List<Target> targets,
    List<Target> even,
    List<HotKey> hotKeys,
    double totalRows) {

  /**
   * One range and its expected load.
   *
   * @param range the key range
   * @param rows the rows the sample puts in it (estimated when sampled)
   * @param share {@code rows / totalRows}, 0 to 1
   * @param keyspaceIds the distinct ksids of the sample in it
   */
  public record Target(KeyRange range, double rows, double share, int keyspaceIds) {}

  /**
   * A keyspace id holding more than an even share of the rows.
   *
   * @param ksid the keyspace id
   * @param rows its rows (estimated when sampled)
   * @param share {@code rows / totalRows}
   * @param example a sharding key that maps to it, e.g. {@code messages.channel_id=7}; may be null
   */
  public record HotKey(KeyspaceId ksid, double rows, double share, String example) {}

  /** Copies the lists. */
  public RangePlan {
    targets = List.copyOf(targets);
    even = List.copyOf(even);
    hotKeys = List.copyOf(hotKeys);
  }

  /** The proposed range with the most rows (the first of equals). */
  public Target busiest() {
    return busiestOf(targets);
  }

  /** The even split's range with the most rows on the same sample (the first of equals). */
  public Target evenBusiest() {
    return busiestOf(even);
  }

  /** The proposed ranges as {@code workflow create --targets} takes them: {@code -3a,3a-91,91-}. */
  public String targetsList() {
    return targets.stream().map(t -> t.range().name()).collect(Collectors.joining(","));
  }

  private static Target busiestOf(List<Target> ranges) {
    // Stream.max keeps the first of equal elements (BinaryOperator.maxBy)
    return ranges.stream().max(Comparator.comparingDouble(Target::rows)).orElseThrow();
  }
}
