package io.reshard.switcher;

import io.reshard.router.KeyRange;
import java.util.ArrayList;
import java.util.List;

/**
 * The rule for a workflow's ranges (DESIGN 4.9, 6): the sources form one contiguous range, and the
 * targets divide it exactly, without overlap or gap. Each target that breaks the rule on its own
 * gets a reason of its own: one equal to a source's range (a shard map cannot hold two shards of
 * one range, and the source's rows would have nowhere new to go), or one not inside the sources'
 * range. Only when every target lies inside is their partition checked as a whole. Stateless.
 */
final class TargetRanges {
  private TargetRanges() {}

  /**
   * Every reason the ranges are refused, each naming the ranges and what to do.
   *
   * @return empty if the targets partition the sources' range exactly
   */
  static List<String> problems(List<KeyRange> sources, List<KeyRange> targets) {
    KeyRange from;
    try {
      from = KeyRange.mergeAll(sources);
    } catch (IllegalArgumentException e) {
      return List.of(
          "the sources "
              + names(sources)
              + " do not form one contiguous range: "
              + e.getMessage()
              + "; a workflow moves adjacent shards");
    }
    String sourceWord = sources.size() == 1 ? "the source's range " : "the sources' range ";
    List<String> problems = new ArrayList<>();
    for (KeyRange t : targets) {
      if (sources.contains(t)) {
        problems.add(
            "target "
                + t.name()
                + " is the range of source "
                + sources.get(sources.indexOf(t)).name()
                + " itself: a shard map cannot hold two shards of one range; give targets that"
                + " divide "
                + from.name()
                + " (e.g. --targets="
                + example(from)
                + ")");
      } else if (!from.contains(t)) {
        problems.add(
            "target "
                + t.name()
                + " is not inside "
                + sourceWord
                + from.name()
                + ": every target must lie within it");
      }
    }
    if (!problems.isEmpty()) {
      return problems;
    }
    return partitionProblem(from, targets);
  }

  /** The targets, all inside {@code from}, must cover it without overlap or gap. */
  private static List<String> partitionProblem(KeyRange from, List<KeyRange> targets) {
    try {
      KeyRange to = KeyRange.mergeAll(targets);
      if (!from.equals(to)) {
        return List.of(
            "the targets " + names(targets) + " cover " + to.name() + ", not " + from.name());
      }
      return List.of();
    } catch (IllegalArgumentException e) {
      return List.of(
          "the targets "
              + names(targets)
              + " do not form one contiguous range covering "
              + from.name()
              + ": "
              + e.getMessage());
    }
  }

  /** Two halves of {@code range}, as an example of targets, e.g. {@code 80-c0,c0-}. */
  private static String example(KeyRange range) {
    List<KeyRange> halves = range.split(2);
    return halves.get(0).name() + "," + halves.get(1).name();
  }

  private static List<String> names(List<KeyRange> ranges) {
    return ranges.stream().map(KeyRange::name).toList();
  }
}
