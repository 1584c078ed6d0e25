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

  void matching() {
    matching++;
  }

  void mismatched(DiffSample s) {
    mismatched++;
    sample(s);
  }

  void extraSource(DiffSample s) {
    extraSource++;
    sample(s);
  }

  void extraTarget(DiffSample s) {
    extraTarget++;
    sample(s);
  }

  void repaired(long rows) {
    repaired += rows;
  }

  private void sample(DiffSample s) {
    if (samples.size() < sampleLimit) {
      samples.add(s);
    }
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
