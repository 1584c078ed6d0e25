package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopySpecs;
import io.reshard.copier.StreamCoverage;
import io.reshard.core.placement.SplitFixture;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.rows.RowKey;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSample;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.StreamControl;
import io.reshard.differ.TableDiff;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The differ on a split copied by the copier (static data, so {@link StreamControl#none()}): a
 * clean copy diffs clean; an injected extra row, missing row, changed column ({@code 'café'} vs
 * {@code 'cafe'} in a {@code utf8mb4_general_ci} column) and changed key bytes are each reported
 * with their key; a stopped diff resumes to the same counts; a repair fixes them and the next diff
 * is clean. The tests run in order on one data set.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DiffIT {
  static final Vindex HASH = Vindex.of(VindexType.HASH);
  static final KeyRange LEFT = SplitFixture.TARGET_RANGES.get(0);
  static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"},"
              + " \"xxhash\": {\"type\": \"xxhash\"}},"
              + " \"tables\": {"
              + " \"messages\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]},"
              + " \"names\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}");

  private final SplitFixture fx;
  private final List<Long> leftIds = new ArrayList<>();
  private long extraId;
  private long missingId;
  private long changedId;
  private long foreignId;
  private DiffReport found;

  DiffIT(TestCluster cluster) {
    fx = new SplitFixture(cluster);
  }

  @BeforeAll
  void loadAndCopy() throws Exception {
    fx.everywhere(
        "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
            + " created_at DATETIME(6) NOT NULL,"
            + " body VARCHAR(200) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci) ENGINE=InnoDB",
        "CREATE TABLE names (id BIGINT NOT NULL, name VARCHAR(30) CHARACTER SET utf8mb4 COLLATE"
            + " utf8mb4_general_ci NOT NULL, v INT, PRIMARY KEY (id, name)) ENGINE=InnoDB");
    List<String> messages = new ArrayList<>();
    List<String> names = new ArrayList<>();
    long id = 0;
    for (int i = 0; i < 400; i++) {
      id = next(SplitFixture.SOURCE_RANGE, id + 1);
      String body = i % 7 == 0 ? "café " + i : "message " + i;
      messages.add("(" + id + ", " + (i % 13) + ", '2026-01-01 00:00:00.123456', '" + body + "')");
      if (LEFT.contains(HASH.keyspaceId(id))) {
        leftIds.add(id);
      }
      if (i < 40) {
        names.add("(" + id + ", 'Café', 1)");
        names.add("(" + id + ", 'zoë', 2)");
      }
    }
    fx.loose(
        fx.source,
        "INSERT INTO messages VALUES " + String.join(", ", messages),
        "INSERT INTO names VALUES " + String.join(", ", names));
    Copier.builder(CopySpecs.split(fx, "wf", VSCHEMA, "messages", "names"))
        .config(CopierConfig.builder().initialChunkRows(100).build())
        .coverage(StreamCoverage.staticSource())
        .build()
        .run();
    extraId = next(LEFT, id + 1);
    foreignId = next(SplitFixture.TARGET_RANGES.get(1), 1);
    missingId = leftIds.get(5);
    changedId =
        leftIds.stream()
            .filter(
                x ->
                    messages.stream()
                        .anyMatch(m -> m.startsWith("(" + x + ",") && m.contains("café")))
            .findFirst()
            .orElseThrow();
  }

  static long next(KeyRange range, long from) {
    for (long k = from; ; k++) {
      if (range.contains(HASH.keyspaceId(k))) {
        return k;
      }
    }
  }

  Differ differ(int target, DifferConfig config, DiffListener listener) {
    DiffSpec spec =
        new DiffSpec(
            "wf",
            fx.cluster.database(),
            SplitFixture.endpoint(fx.source),
            new TargetShard(
                SplitFixture.TARGET_RANGES.get(target),
                SplitFixture.endpoint(fx.targets.get(target))),
            List.of("messages", "names"),
            VSCHEMA);
    return new Differ(spec, config, StreamControl.none(), listener);
  }

  @Test
  @Order(1)
  void aCleanCopyDiffsCleanOnBothTargetsAtTheSourcesPosition() throws Exception {
    long total = 0;
    for (int t = 0; t < 2; t++) {
      DiffReport r =
          differ(t, DifferConfig.builder().chunkRows(37).build(), DiffListener.NONE).run();
      assertTrue(r.isClean(), r.toTable());
      TableDiff m = r.table("messages");
      assertEquals(m.compared(), m.matching());
      assertEquals(fx.number(fx.targets.get(t), "SELECT COUNT(*) FROM messages"), m.compared());
      total += m.compared();
      assertEquals(
          fx.rows(fx.source, "SELECT @@gtid_binlog_pos, 1").keySet().iterator().next(),
          r.sourcePosition());
    }
    assertEquals(400, total);
  }

  @Test
  @Order(2)
  void injectedDifferencesAreEachReportedWithTheirKey() throws Exception {
    fx.cluster.execute(
        fx.targets.get(0),
        "INSERT INTO messages VALUES (" + extraId + ", 1, '2026-01-01 00:00:00', 'extra')",
        "INSERT INTO messages VALUES (" + foreignId + ", 1, '2026-01-01 00:00:00', 'not mine')",
        "DELETE FROM messages WHERE id = " + missingId,
        "UPDATE messages SET body = REPLACE(body, 'café', 'cafe') WHERE id = " + changedId,
        "UPDATE names SET name = 'cafe' WHERE id = " + leftIds.get(0) + " AND name = 'Café'");
    assertEquals(
        1,
        fx.number(
            fx.targets.get(0),
            "SELECT COUNT(*) FROM messages WHERE id = " + changedId + " AND body LIKE 'café%'"),
        "the collation still calls the changed body equal");
    found = differ(0, DifferConfig.builder().chunkRows(37).build(), DiffListener.NONE).run();
    TableDiff m = found.table("messages");
    assertEquals(1, m.mismatched(), found.toTable());
    assertEquals(1, m.extraSource(), found.toTable());
    assertEquals(2, m.extraTarget(), found.toTable());
    assertEquals(leftIds.size() + 2, m.compared(), "every source key in range, plus two extras");
    assertTrue(
        m.samples()
            .contains(
                sample(
                    "messages",
                    DiffSample.Kind.MISMATCHED,
                    Map.of("id", "" + changedId),
                    List.of("body"))),
        found.toTable());
    assertTrue(
        m.samples()
            .contains(
                sample(
                    "messages",
                    DiffSample.Kind.EXTRA_SOURCE,
                    Map.of("id", "" + missingId),
                    List.of())),
        found.toTable());
    assertTrue(
        m.samples()
            .contains(
                sample(
                    "messages",
                    DiffSample.Kind.EXTRA_TARGET,
                    Map.of("id", "" + extraId),
                    List.of())),
        found.toTable());
    assertTrue(
        m.samples()
            .contains(
                sample(
                    "messages",
                    DiffSample.Kind.EXTRA_TARGET,
                    Map.of("id", "" + foreignId),
                    List.of())),
        found.toTable());
    TableDiff n = found.table("names");
    assertEquals(1, n.mismatched(), found.toTable());
    assertEquals(0, n.extraSource() + n.extraTarget(), found.toTable());
    assertEquals(
        List.of(
            sample(
                "names",
                DiffSample.Kind.MISMATCHED,
                Map.of("id", "" + leftIds.get(0), "name", "Café"),
                List.of("name"))),
        n.samples());
    assertTrue(found.toJson().contains("\"extra_target\" : 2"), found.toJson());
    assertTrue(differ(1, DifferConfig.defaults(), DiffListener.NONE).run().isClean());
  }

  static DiffSample sample(
      String table, DiffSample.Kind kind, Map<String, String> key, List<String> columns) {
    return new DiffSample(table, kind, key, columns);
  }

  @Test
  @Order(3)
  void oneDiffOfBothTargetsReportsEachTargetAsItsOwnDiffDoes() throws Exception {
    List<String> chunks = new ArrayList<>();
    List<DiffReport> both =
        both(DifferConfig.builder().chunkRows(37).build(), (t, c, k) -> chunks.add(t + c)).runAll();
    assertEquals(2, both.size());
    assertEquals(
        List.of(LEFT.name(), SplitFixture.TARGET_RANGES.get(1).name()),
        both.stream().map(DiffReport::target).toList());
    assertEquals(both.get(0).sourcePosition(), both.get(1).sourcePosition(), "one G for all");
    assertEquals(counts(found), counts(both.get(0)), both.get(0).toTable());
    assertEquals(found.table("messages").samples(), both.get(0).table("messages").samples());
    assertTrue(both.get(1).isClean(), both.get(1).toTable());
    assertEquals(
        400 + 2,
        both.get(0).table("messages").compared() + both.get(1).table("messages").compared(),
        "every source row once (the missing one as extra on source), plus the two extras");
    assertEquals(
        (400 + 36) / 37,
        chunks.stream().filter(c -> c.startsWith("messages")).count(),
        "the source is read once, in chunks of 37 source rows: " + chunks);
  }

  static List<List<Long>> counts(DiffReport r) {
    List<List<Long>> out = new ArrayList<>();
    for (TableDiff t : r.tables()) {
      out.add(
          List.of(t.compared(), t.matching(), t.mismatched(), t.extraSource(), t.extraTarget()));
    }
    return out;
  }

  Differ both(DifferConfig config, DiffListener listener) {
    DiffSpec spec =
        new DiffSpec(
            "wf",
            fx.cluster.database(),
            SplitFixture.endpoint(fx.source),
            List.of(
                new TargetShard(LEFT, SplitFixture.endpoint(fx.targets.get(0))),
                new TargetShard(
                    SplitFixture.TARGET_RANGES.get(1), SplitFixture.endpoint(fx.targets.get(1)))),
            List.of("messages", "names"),
            VSCHEMA);
    return new Differ(spec, config, List.of(StreamControl.none(), StreamControl.none()), listener);
  }

  @Test
  @Order(5)
  void targetsSavedChunksApartResumeEachFromItsOwnKeyToTheSameCounts() throws Exception {
    DifferConfig small = DifferConfig.builder().chunkRows(20).build();
    List<String> full = new ArrayList<>();
    List<DiffReport> want = both(small, (t, c, k) -> full.add(t + c)).runAll();
    // target 0 saved 3 chunks of messages, target 1 only 1: as if a diff had stopped between
    // the targets' saves, and more
    assertThrows(IllegalStateException.class, () -> differ(0, small, stopAt(3)).run());
    assertThrows(IllegalStateException.class, () -> differ(1, small, stopAt(1)).run());
    List<String> resumed = new ArrayList<>();
    List<DiffReport> got =
        both(
                DifferConfig.builder().chunkRows(20).resume(true).build(),
                (t, c, k) -> resumed.add(t + c))
            .runAll();
    for (int t = 0; t < 2; t++) {
      assertEquals(counts(want.get(t)), counts(got.get(t)), got.get(t).toTable());
    }
    assertEquals(
        full.stream().filter(s -> s.startsWith("messages")).count() - 1,
        resumed.stream().filter(s -> s.startsWith("messages")).count(),
        "target 1 alone from its chunk 1 to chunk 3 (2 chunks), then both: " + resumed);
  }

  static DiffListener stopAt(long stop) {
    return (table, chunk, lastKey) -> {
      if (table.equals("messages") && chunk == stop) {
        throw new IllegalStateException("stopped at a named boundary");
      }
    };
  }

  @Test
  @Order(4)
  void aStoppedDiffResumesAfterItsLastSavedChunkToTheSameCounts() throws Exception {
    List<String> seen = new ArrayList<>();
    DiffListener stopAtThirdChunk =
        new DiffListener() {
          @Override
          public void chunkCompared(String table, long chunk, RowKey lastKey) {
            seen.add(table + chunk);
            if (table.equals("messages") && chunk == 3) {
              throw new IllegalStateException("stopped at a named boundary");
            }
          }
        };
    DifferConfig small = DifferConfig.builder().chunkRows(20).build();
    List<String> full = new ArrayList<>();
    differ(0, small, (table, chunk, key) -> full.add(table + chunk)).run();
    assertThrows(IllegalStateException.class, () -> differ(0, small, stopAtThirdChunk).run());
    assertEquals(
        20 * 3 <= leftIds.size() ? 3 : -1,
        fx.number(
            fx.targets.get(0),
            "SELECT 3 FROM _reshard.diff_state WHERE workflow = 'wf' AND table_name = 'messages' AND done = 0"));
    List<String> resumed = new ArrayList<>();
    DiffReport r =
        differ(
                0,
                DifferConfig.builder().chunkRows(20).resume(true).build(),
                new DiffListener() {
                  @Override
                  public void chunkCompared(String table, long chunk, RowKey lastKey) {
                    resumed.add(table + chunk);
                  }
                })
            .run();
    for (String table : List.of("messages", "names")) {
      TableDiff want = found.table(table);
      TableDiff got = r.table(table);
      assertEquals(
          List.of(
              want.compared(),
              want.matching(),
              want.mismatched(),
              want.extraSource(),
              want.extraTarget()),
          List.of(
              got.compared(),
              got.matching(),
              got.mismatched(),
              got.extraSource(),
              got.extraTarget()),
          r.toTable());
    }
    assertEquals(
        full.stream().filter(s -> s.startsWith("messages")).count() - 3,
        resumed.stream().filter(s -> s.startsWith("messages")).count(),
        "resumed after the 3 saved chunks: " + resumed);
    assertEquals(
        full.stream().filter(s -> s.startsWith("names")).count(),
        resumed.stream().filter(s -> s.startsWith("names")).count());
  }

  @Test
  @Order(6)
  void aRepairFixesEveryDifferenceAndTheNextDiffIsClean() throws Exception {
    Differ.RepairResult result =
        differ(0, DifferConfig.builder().chunkRows(37).build(), DiffListener.NONE).repair();
    TableDiff m = result.repaired().table("messages");
    assertEquals(1, m.mismatched());
    assertEquals(4, m.repaired(), "2 rewritten, 2 deleted");
    assertEquals(1, result.repaired().table("names").repaired());
    assertTrue(result.verified().isClean(), result.verified().toTable());
    assertEquals(
        0,
        fx.number(
            fx.targets.get(0),
            "SELECT COUNT(*) FROM messages WHERE id IN (" + extraId + ", " + foreignId + ")"));
    assertEquals(
        fx.rows(fx.source, "SELECT id, HEX(body) FROM messages WHERE id = " + changedId),
        fx.rows(fx.targets.get(0), "SELECT id, HEX(body) FROM messages WHERE id = " + changedId));
  }

  @Test
  @Order(7)
  void aTargetWithMoreExtraRowsThanAChunkIsReadAgainInSmallerRangesAndRepaired() throws Exception {
    // 25 extra rows before every source key and 25 after the last one, all in -80's range: with
    // chunks of 10, the target's reads come back full before the source chunk's end, so the range
    // shrinks to the target's last key and the source is read again from there
    List<String> extra = new ArrayList<>();
    long low = next(LEFT, -1_000_000);
    long high = next(LEFT, extraId + 1);
    for (int i = 0; i < 25; i++) {
      extra.add("(" + low + ", 1, '2026-01-01 00:00:00', 'low')");
      extra.add("(" + high + ", 1, '2026-01-01 00:00:00', 'high')");
      low = next(LEFT, low + 1);
      high = next(LEFT, high + 1);
    }
    assertTrue(low < 0, "the low extras sort before every source key");
    fx.loose(fx.targets.get(0), "INSERT INTO messages VALUES " + String.join(", ", extra));
    List<DiffReport> both =
        both(DifferConfig.builder().chunkRows(10).build(), DiffListener.NONE).runAll();
    TableDiff m = both.get(0).table("messages");
    assertEquals(50, m.extraTarget(), both.get(0).toTable());
    assertEquals(0, m.mismatched() + m.extraSource(), both.get(0).toTable());
    assertEquals(leftIds.size() + 50, m.compared(), both.get(0).toTable());
    assertTrue(both.get(1).isClean(), both.get(1).toTable());

    Differ.RepairResult result =
        differ(0, DifferConfig.builder().chunkRows(10).build(), DiffListener.NONE).repair();
    assertEquals(50, result.repaired().table("messages").repaired());
    assertTrue(result.verified().isClean(), result.verified().toTable());
  }
}
