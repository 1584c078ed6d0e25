package io.reshard.router;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A set of key ranges is not a partition of the keyspace: some ksids are in no range (a gap) or in
 * several (an overlap). The message lists the ranges given and every gap and overlap, e.g. {@code
 * key ranges -40,30-80,c0- are not a partition of the keyspace: overlap 30-40 (between -40 and
 * 30-80); gap 80-c0}.
 *
 * <p>An {@link IllegalArgumentException}, since the ranges were supplied by the caller: a shard
 * map, the target shards of a workflow, a {@code --shards} option.
 */
public class KeyRangePartitionException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /**
   * Two ranges that share some ksids.
   *
   * @param overlap the ksids in both ranges
   * @param first the range that starts first (or the earlier one of two equal starts)
   * @param second the other range
   */
  public record Overlap(KeyRange overlap, KeyRange first, KeyRange second) {
    @Override
    public String toString() {
      return "overlap " + overlap + " (between " + first + " and " + second + ")";
    }
  }

  private final transient List<KeyRange> ranges;
  private final transient List<KeyRange> gaps;
  private final transient List<Overlap> overlaps;

  /**
   * @param ranges the ranges checked, in start order
   * @param gaps the ksid ranges covered by no range, in order
   * @param overlaps the pairs of ranges that overlap, in order
   */
  public KeyRangePartitionException(
      List<KeyRange> ranges, List<KeyRange> gaps, List<Overlap> overlaps) {
    super(message(ranges, gaps, overlaps));
    this.ranges = List.copyOf(ranges);
    this.gaps = List.copyOf(gaps);
    this.overlaps = List.copyOf(overlaps);
  }

  /** Returns the ranges checked, in start order. */
  public List<KeyRange> ranges() {
    return ranges;
  }

  /** Returns the ksid ranges that no range covers, in order; {@code -} if no range was given. */
  public List<KeyRange> gaps() {
    return gaps;
  }

  /** Returns the overlapping pairs, in order. */
  public List<Overlap> overlaps() {
    return overlaps;
  }

  private static String message(
      List<KeyRange> ranges, List<KeyRange> gaps, List<Overlap> overlaps) {
    if (ranges.isEmpty()) {
      return "no key ranges given, so none covers the keyspace: gap -";
    }
    record Problem(KeyRange at, String text) {}
    List<Problem> problems = new ArrayList<>();
    overlaps.forEach(o -> problems.add(new Problem(o.overlap(), o.toString())));
    gaps.forEach(g -> problems.add(new Problem(g, "gap " + g)));
    problems.sort(Comparator.comparing(Problem::at));
    return "key ranges "
        + ranges.stream().map(KeyRange::name).collect(Collectors.joining(","))
        + " are not a partition of the keyspace: "
        + problems.stream().map(Problem::text).collect(Collectors.joining("; "));
  }
}
