package io.reshard.differ.compare;

import io.reshard.differ.DiffSample;
import io.reshard.differ.TableDiff;
import java.util.ArrayList;
import java.util.List;

/** A table's running counts and samples during a diff. Not thread-safe: one per table diff. */
public final class Tally {
  private final String table;
  private final int sampleLimit;
  private long matching;
  private long mismatched;
  private long extraSource;
  private long extraTarget;
  private long repaired;
  private final List<DiffSample> samples = new ArrayList<>();

  /**
   * Continues from stored counts ({@code from} may be null to start at zero).
   *
   * @param sampleLimit samples kept at most
   */
  public Tally(String table, int sampleLimit, TableDiff from) {
    this.table = table;
    this.sampleLimit = sampleLimit;
    if (from != null) {
      matching = from.matching();
      mismatched = from.mismatched();
      extraSource = from.extraSource();
      extraTarget = from.extraTarget();
      repaired = from.repaired();
      samples.addAll(from.samples().subList(0, Math.min(sampleLimit, from.samples().size())));
    }
  }

  /** Adds one target chunk's counts, and its samples while fewer than the limit are kept. */
  void add(ChunkMatcher.Outcome o) {
    matching += o.matching();
    mismatched += o.mismatched();
    extraSource += o.extraSource();
    extraTarget += o.extraTarget();
    for (DiffSample s : o.samples()) {
      if (samples.size() < sampleLimit) {
        samples.add(s);
      }
    }
  }

  void repaired(long rows) {
    repaired += rows;
  }

  /** The counts so far. */
  public TableDiff snapshot() {
    return new TableDiff(
        table,
        matching + mismatched + extraSource + extraTarget,
        matching,
        mismatched,
        extraSource,
        extraTarget,
        repaired,
        samples);
  }
}
