package io.reshard.router;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Key ranges that partition the keyspace: contiguous, non-overlapping and together covering {@code
 * -} (DESIGN 4.1), so every ksid is in exactly one of them. The read shards and the write shards of
 * a {@link ShardMap} each form one; so must the target shards of a workflow.
 *
 * <p>Immutable and thread-safe. {@link #rangeFor} is a binary search, O(log n).
 */
public final class KeyRangePartition {
  private final List<KeyRange> ranges;

  private KeyRangePartition(List<KeyRange> ranges) {
    this.ranges = ranges;
  }

  /**
   * Checks that {@code ranges}, in any order, partition the keyspace.
   *
   * @throws KeyRangePartitionException naming every gap and overlap, if they do not
   */
  public static KeyRangePartition of(Collection<KeyRange> ranges) {
    List<KeyRange> sorted = ranges.stream().sorted().toList();
    List<KeyRange> gaps = new ArrayList<>();
    List<KeyRangePartitionException.Overlap> overlaps = new ArrayList<>();
    // One pass in start order. `reach` is the range reaching furthest so far; its end is the first
    // ksid not yet covered (null before the first range: nothing is covered, from the minimum).
    KeyRange reach = null;
    for (KeyRange r : sorted) {
      byte[] covered = reach == null ? new byte[0] : reach.rawEnd();
      if (reach != null && covered.length == 0) {
        overlaps.add(new KeyRangePartitionException.Overlap(r, reach, r));
        continue;
      }
      int c = KeyspaceId.compareNormalized(r.rawStart(), covered);
      if (c > 0) {
        gaps.add(KeyRange.unchecked(covered, r.rawStart()));
      } else if (c < 0) {
        byte[] overlapEnd = KeyRange.compareEnds(r.rawEnd(), covered) < 0 ? r.rawEnd() : covered;
        overlaps.add(
            new KeyRangePartitionException.Overlap(
                KeyRange.unchecked(r.rawStart(), overlapEnd), reach, r));
      }
      if (reach == null || KeyRange.compareEnds(r.rawEnd(), covered) > 0) {
        reach = r;
      }
    }
    if (reach == null || reach.rawEnd().length > 0) {
      gaps.add(KeyRange.unchecked(reach == null ? new byte[0] : reach.rawEnd(), new byte[0]));
    }
    if (!gaps.isEmpty() || !overlaps.isEmpty()) {
      throw new KeyRangePartitionException(sorted, gaps, overlaps);
    }
    return new KeyRangePartition(sorted);
  }

  /**
   * Parses comma-separated shard names ({@code -40,40-80,80-c0,c0-}; spaces around names allowed)
   * and checks that they partition the keyspace.
   *
   * @throws IllegalArgumentException naming the bad name, or a {@link KeyRangePartitionException}
   *     naming every gap and overlap
   */
  public static KeyRangePartition parse(String commaSeparatedNames) {
    List<KeyRange> ranges =
        Arrays.stream(commaSeparatedNames.split(",", -1))
            .map(String::strip)
            .map(KeyRange::parse)
            .toList();
    return of(ranges);
  }

  /** Returns the ranges in order, from the one holding the minimum to the one reaching the end. */
  public List<KeyRange> ranges() {
    return ranges;
  }

  /** Returns the number of ranges. */
  public int size() {
    return ranges.size();
  }

  /** Returns the one range that contains {@code ksid}. */
  public KeyRange rangeFor(KeyspaceId ksid) {
    // The last range whose start is <= ksid; the first range starts at the minimum, so one exists.
    int lo = 0;
    int hi = ranges.size() - 1;
    byte[] k = ksid.rawBytes();
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (KeyspaceId.compareNormalized(ranges.get(mid).rawStart(), k) <= 0) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return ranges.get(lo);
  }

  /** True if both partitions have equal ranges. */
  @Override
  public boolean equals(Object other) {
    return other instanceof KeyRangePartition p && ranges.equals(p.ranges);
  }

  @Override
  public int hashCode() {
    return ranges.hashCode();
  }

  /** Returns the names, comma-separated, in order: {@code -40,40-80,80-}. */
  @Override
  public String toString() {
    return ranges.stream().map(KeyRange::name).collect(Collectors.joining(","));
  }
}
