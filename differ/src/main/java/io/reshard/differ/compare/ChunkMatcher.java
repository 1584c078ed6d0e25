package io.reshard.differ.compare;

import io.reshard.core.rows.Row;
import io.reshard.core.rows.RowKey;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.differ.DiffSample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Compares the rows of one chunk: the source's and the target's rows with primary keys in the same
 * key range, which the server delimited. Rows are paired by their collation equality key ({@link
 * KeyedRow}), so {@code 'Café'} on one side meets {@code 'cafe'} on the other where the collation
 * calls them equal; paired rows are then compared byte for byte in every column, the key columns
 * included, so that pair is reported as mismatched. No client-side ordering of keys is needed:
 * while the i-th rows of both sides have the same equality key (the usual case, both sides being in
 * the server's key order) they are paired directly, and only the rest goes through a map.
 *
 * <p>Stateless and thread-safe.
 */
public final class ChunkMatcher {
  private ChunkMatcher() {}

  /**
   * What the chunk's repair must do on the target.
   *
   * @param replace source rows to write (mismatched and missing rows)
   * @param delete target keys to delete (rows the source does not have)
   */
  public record Fixes(List<Row> replace, List<RowKey> delete) {}

  /**
   * Compares one chunk and counts into {@code tally}.
   *
   * @param source the source's rows of the chunk that belong to the target's range
   * @param target the target's rows of the chunk
   * @return what a repair would do
   */
  public static Fixes match(
      TableSchema table, List<KeyedRow> source, List<KeyedRow> target, Tally tally) {
    List<Row> replace = new ArrayList<>();
    List<RowKey> delete = new ArrayList<>();
    // Both sides come in the server's key order, so in the common case the i-th source row and
    // the i-th target row have the same key: pair them without a map while that holds.
    int aligned = 0;
    int common = Math.min(source.size(), target.size());
    while (aligned < common && source.get(aligned).sameKey(target.get(aligned))) {
      compare(table, source.get(aligned).row(), target.get(aligned).row(), tally, replace);
      aligned++;
    }
    if (aligned == source.size() && aligned == target.size()) {
      return new Fixes(replace, delete);
    }
    Map<Object, Row> targetByKey = new LinkedHashMap<>();
    for (KeyedRow t : target.subList(aligned, target.size())) {
      targetByKey.put(t.mapKey(), t.row());
    }
    for (KeyedRow s : source.subList(aligned, source.size())) {
      Row there = targetByKey.remove(s.mapKey());
      if (there == null) {
        tally.extraSource(sample(table, s.row(), DiffSample.Kind.EXTRA_SOURCE, List.of()));
        replace.add(s.row());
        continue;
      }
      compare(table, s.row(), there, tally, replace);
    }
    for (Row extra : targetByKey.values()) {
      tally.extraTarget(sample(table, extra, DiffSample.Kind.EXTRA_TARGET, List.of()));
      delete.add(table.keyOf(extra));
    }
    return new Fixes(replace, delete);
  }

  /** Counts a pair of rows with the same key; a differing source row goes to {@code replace}. */
  private static void compare(
      TableSchema table, Row source, Row target, Tally tally, List<Row> replace) {
    if (sameBytes(source, target)) {
      tally.matching();
      return;
    }
    tally.mismatched(
        sample(table, source, DiffSample.Kind.MISMATCHED, differingColumns(table, source, target)));
    replace.add(source);
  }

  private static boolean sameBytes(Row a, Row b) {
    int n = a.size();
    if (n != b.size()) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (!Arrays.equals(a.value(i), b.value(i))) {
        return false;
      }
    }
    return true;
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

  private static DiffSample sample(
      TableSchema table, Row row, DiffSample.Kind kind, List<String> columns) {
    return new DiffSample(
        table.table(), kind, table.keyOf(row).describe(table.primaryKey()), columns);
  }
}
