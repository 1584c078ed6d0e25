package io.reshard.differ.compare;

import io.reshard.copier.rows.ColumnDef;
import io.reshard.copier.rows.Row;
import io.reshard.copier.rows.RowKey;
import io.reshard.copier.rows.TableSchema;
import io.reshard.differ.DiffSample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Compares one target's rows of a chunk, as they are read, with the source's rows of the same key
 * range that belong to that target (the server delimited the range on both sides). Rows are paired
 * by their collation equality key ({@link KeyedRow}), so {@code 'Café'} on one side meets {@code
 * 'cafe'} on the other where the collation calls them equal; paired rows are then compared byte for
 * byte in every column, the key columns included, so that pair is reported as mismatched.
 *
 * <p>No client-side ordering of keys is needed: both sides come in the server's key order, so while
 * the next target row has the same equality key as the next source row (the usual case) the two are
 * compared at once, on the thread that has just decoded the target row, and the target row is not
 * kept. From the first target row that breaks that order, the rest of the target's rows are kept
 * and paired with the rest of the source's through a map when the chunk ends ({@link #finish}).
 *
 * <p>Not thread-safe: one per target chunk, used by one thread (the reader of that target's chunk);
 * its {@link Outcome} may then be handed to another thread.
 */
public final class ChunkMatcher implements Consumer<KeyedRow> {

  /**
   * What the chunk's repair must do on the target.
   *
   * @param replace source rows to write (mismatched and missing rows)
   * @param delete target keys to delete (rows the source does not have)
   */
  public record Fixes(List<Row> replace, List<RowKey> delete) {}

  /**
   * One target's chunk, compared.
   *
   * @param targetRows the rows the target returned for the chunk
   * @param lastTargetRow the last of them in key order, or null if none
   * @param matching pairs with identical bytes
   * @param mismatched pairs whose bytes differ
   * @param extraSource source rows the target does not have
   * @param extraTarget target rows the source does not have
   * @param samples the first differences found, in the order found, at most the sample limit
   * @param fixes what a repair would do
   */
  public record Outcome(
      long targetRows,
      Row lastTargetRow,
      long matching,
      long mismatched,
      long extraSource,
      long extraTarget,
      List<DiffSample> samples,
      Fixes fixes) {}

  private final TableSchema table;
  private final List<KeyedRow> source;
  private final int sampleLimit;
  private final List<DiffSample> samples = new ArrayList<>();
  private final List<Row> replace = new ArrayList<>();
  private final List<RowKey> delete = new ArrayList<>();

  /** Source rows paired in order so far. */
  private int paired;

  /** Target rows after the first one out of step with the source, or null while in step. */
  private List<KeyedRow> outOfStep;

  private long targetRows;
  private KeyedRow lastTarget;
  private long matching;
  private long mismatched;
  private long extraSource;
  private long extraTarget;

  /**
   * @param source the source's rows of the chunk that belong to the target's range, in key order
   * @param sampleLimit samples kept at most
   */
  public ChunkMatcher(TableSchema table, List<KeyedRow> source, int sampleLimit) {
    this.table = table;
    this.source = source;
    this.sampleLimit = sampleLimit;
  }

  /** Compares every row of {@code target} (in key order) with {@code source}, in one call. */
  public static Outcome match(
      TableSchema table, List<KeyedRow> source, List<KeyedRow> target, int sampleLimit) {
    ChunkMatcher m = new ChunkMatcher(table, source, sampleLimit);
    target.forEach(m);
    return m.finish();
  }

  /** Takes the target's next row, in key order. */
  @Override
  public void accept(KeyedRow target) {
    targetRows++;
    lastTarget = target;
    if (outOfStep == null && paired < source.size() && source.get(paired).sameKey(target)) {
      compare(source.get(paired), target);
      paired++;
      return;
    }
    if (outOfStep == null) {
      outOfStep = new ArrayList<>();
    }
    outOfStep.add(target);
  }

  /** Pairs what was out of step, after the target's last row; call once. */
  public Outcome finish() {
    if (paired < source.size() || outOfStep != null) {
      pairByKey(outOfStep == null ? List.of() : outOfStep);
    }
    return new Outcome(
        targetRows,
        lastTarget == null ? null : lastTarget.row(),
        matching,
        mismatched,
        extraSource,
        extraTarget,
        samples,
        new Fixes(replace, delete));
  }

  private void pairByKey(List<KeyedRow> target) {
    Map<Object, KeyedRow> targetByKey = new LinkedHashMap<>();
    for (KeyedRow t : target) {
      targetByKey.put(t.mapKey(), t);
    }
    for (KeyedRow s : source.subList(paired, source.size())) {
      KeyedRow there = targetByKey.remove(s.mapKey());
      if (there == null) {
        Row row = s.row();
        extraSource++;
        sample(row, DiffSample.Kind.EXTRA_SOURCE, List.of());
        replace.add(row);
        continue;
      }
      compare(s, there);
    }
    for (KeyedRow extra : targetByKey.values()) {
      Row row = extra.row();
      extraTarget++;
      sample(row, DiffSample.Kind.EXTRA_TARGET, List.of());
      delete.add(table.keyOf(row));
    }
  }

  /** Counts a pair of rows with the same key; a differing source row goes to the replacements. */
  private void compare(KeyedRow source, KeyedRow target) {
    if (source.sameValues(target)) {
      matching++;
      return;
    }
    Row row = source.row();
    mismatched++;
    sample(row, DiffSample.Kind.MISMATCHED, differingColumns(table, row, target.row()));
    replace.add(row);
  }

  private void sample(Row row, DiffSample.Kind kind, List<String> columns) {
    if (samples.size() < sampleLimit) {
      samples.add(
          new DiffSample(
              table.table(), kind, table.keyOf(row).describe(table.keyNames()), columns));
    }
  }

  /** The names of the columns whose bytes differ (NULL differs from every value). */
  static List<String> differingColumns(TableSchema table, Row a, Row b) {
    List<String> out = new ArrayList<>();
    List<ColumnDef> columns = table.copyColumns();
    for (int i = 0; i < columns.size(); i++) {
      if (!Arrays.equals(a.value(i), b.value(i))) {
        out.add(columns.get(i).name());
      }
    }
    return out;
  }
}
