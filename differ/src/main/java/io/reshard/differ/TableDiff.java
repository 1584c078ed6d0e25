package io.reshard.differ;

import java.util.List;

/**
 * The diff of one table.
 *
 * @param table the table
 * @param compared keys seen on either side: matching + mismatched + extraSource + extraTarget
 * @param matching keys on both sides with equal bytes in every column
 * @param mismatched keys on both sides with different bytes in some column
 * @param extraSource keys only on the source (in the target's range)
 * @param extraTarget keys only on the target
 * @param repaired rows the repair rewrote or deleted on the target (0 unless repairing)
 * @param samples up to {@link DifferConfig#sampleLimit()} differing keys
 */
public record TableDiff(
    String table,
    long compared,
    long matching,
    long mismatched,
    long extraSource,
    long extraTarget,
    long repaired,
    List<DiffSample> samples) {

  /** Copies the samples. */
  public TableDiff {
    samples = List.copyOf(samples);
  }

  /** True if nothing differs. */
  public boolean isClean() {
    return mismatched == 0 && extraSource == 0 && extraTarget == 0;
  }
}
