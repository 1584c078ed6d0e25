package io.reshard.differ.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.reshard.core.rows.Row;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.differ.DiffSample;
import io.reshard.differ.TableDiff;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ChunkMatcherTest {
  static final ColumnDef NAME =
      TableSchemaReader.column(
          "name",
          "varchar",
          "varchar(10)",
          "utf8mb4",
          "utf8mb4_general_ci",
          10,
          40,
          0,
          0,
          0,
          true,
          false);
  static final ColumnDef V =
      TableSchemaReader.column(
          "v",
          "varchar",
          "varchar(10)",
          "utf8mb4",
          "utf8mb4_general_ci",
          10,
          40,
          0,
          0,
          0,
          true,
          false);
  static final TableSchema T = new TableSchema("ks", "t", List.of(NAME, V), List.of("name"));

  /** A row keyed as the collation would: here, by the lower-cased name without accents. */
  static KeyedRow row(String name, String v) {
    String folded = name.toLowerCase().replace("é", "e");
    return new KeyedRow(
        new Row(new byte[][] {bytes(name), v == null ? null : bytes(v)}), bytes(folded));
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void rowsArePairedByCollationAndComparedByBytes() {
    Tally tally = new Tally("t", 10, null);
    ChunkMatcher.Fixes fixes =
        ChunkMatcher.match(
            T,
            List.of(row("a", "1"), row("café", "2"), row("x", "3"), row("n", null)),
            List.of(row("a", "1"), row("CAFE", "2"), row("y", "9"), row("n", "")),
            tally);
    TableDiff d = tally.snapshot();
    assertEquals(5, d.compared());
    assertEquals(1, d.matching());
    assertEquals(2, d.mismatched()); // café/CAFE on the key bytes, n on NULL vs ''
    assertEquals(1, d.extraSource());
    assertEquals(1, d.extraTarget());
    assertEquals(
        List.of(
            new DiffSample(
                "t", DiffSample.Kind.MISMATCHED, Map.of("name", "café"), List.of("name")),
            new DiffSample("t", DiffSample.Kind.EXTRA_SOURCE, Map.of("name", "x"), List.of()),
            new DiffSample("t", DiffSample.Kind.MISMATCHED, Map.of("name", "n"), List.of("v")),
            new DiffSample("t", DiffSample.Kind.EXTRA_TARGET, Map.of("name", "y"), List.of())),
        d.samples());
    assertEquals(3, fixes.replace().size());
    assertEquals(1, fixes.delete().size());
    assertEquals("y", new String(fixes.delete().get(0).value(0), StandardCharsets.UTF_8));
  }

  @Test
  void samplesStopAtTheLimitButCountsGoOn() {
    Tally tally = new Tally("t", 1, null);
    ChunkMatcher.match(T, List.of(row("a", "1"), row("b", "1")), List.of(), tally);
    assertEquals(2, tally.snapshot().extraSource());
    assertEquals(1, tally.snapshot().samples().size());
  }

  @Test
  void aResumedTallyContinuesFromStoredCounts() {
    Tally tally = new Tally("t", 5, new TableDiff("t", 10, 8, 1, 1, 0, 0, List.of()));
    ChunkMatcher.match(T, List.of(row("a", "1")), List.of(row("a", "1")), tally);
    assertEquals(11, tally.snapshot().compared());
    assertEquals(9, tally.snapshot().matching());
  }
}
