package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopyProgress;
import io.reshard.copier.CopySpecs;
import io.reshard.copier.StreamCoverage;
import io.reshard.core.placement.SplitFixture;
import io.reshard.core.placement.TargetShard;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.StreamControl;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Kill -9 of the copier mid-copy, then resume: no duplicate, no gap, diff clean. The copier runs in
 * a child JVM ({@link CopyChildMain}) that is killed with SIGKILL after some chunks; the copy is
 * resumed in this JVM from the targets' saved keys. A second test makes the targets' saved keys
 * differ (as a kill between two target commits leaves them) and checks that the copy resumes from
 * the smaller one.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CopyKillResumeIT {
  static final Vindex HASH = Vindex.of(VindexType.HASH);
  static final String VSCHEMA_JSON =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
          + " \"tables\": {\"messages\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]},"
          + " \"uneven\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}";
  static final VSchema VSCHEMA = VSchema.parse(VSCHEMA_JSON);
  static final int ROWS = 30_000;
  static final String EXACT =
      "SELECT id, channel_id, user_id, HEX(CAST(created_at AS CHAR)), HEX(body) FROM %s";

  private final SplitFixture fx;

  CopyKillResumeIT(TestCluster cluster) throws Exception {
    fx = new SplitFixture(cluster);
    for (String table : List.of("messages", "uneven")) {
      fx.everywhere(
          "CREATE TABLE "
              + table
              + " (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL, user_id BIGINT NOT NULL,"
              + " created_at DATETIME(6) NOT NULL, body VARCHAR(200)) ENGINE=InnoDB");
      load(table);
    }
  }

  /** Rows with ids in the source range, loaded with INSERT ... SELECT from a sequence. */
  private void load(String table) throws Exception {
    List<String> values = new ArrayList<>();
    long id = 0;
    for (int i = 0; i < ROWS; i++) {
      do {
        id++;
      } while (!SplitFixture.SOURCE_RANGE.contains(HASH.keyspaceId(id)));
      values.add(
          "("
              + id
              + ", "
              + (i % 97)
              + ", "
              + (i % 31)
              + ", '2026-01-01 00:00:00' + INTERVAL "
              + i
              + " SECOND, 'message "
              + i
              + " café ünïcödé'"
              + ")");
      if (values.size() == 2000 || i == ROWS - 1) {
        fx.cluster.execute(
            fx.source, "INSERT INTO " + table + " VALUES " + String.join(", ", values));
        values.clear();
      }
    }
  }

  @Test
  void aCopyKilledMidwayResumesWithNoDuplicateNoGapAndACleanDiff() throws Exception {
    Path err = Files.createTempFile("copy-child", ".log");
    List<String> cmd =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            CopyChildMain.class.getName(),
            fx.cluster.database(),
            "killed",
            "messages",
            VSCHEMA_JSON,
            "250",
            hostPort(fx.source),
            hostPort(fx.targets.get(0)),
            hostPort(fx.targets.get(1)));
    Process child = new ProcessBuilder(cmd).redirectError(err.toFile()).start();
    int chunks = 0;
    try (BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null && chunks < 20) {
        if (line.startsWith("chunk ")) {
          chunks++;
        }
      }
      child.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no rollback by the JVM
      assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    }
    assertEquals(
        20,
        chunks,
        "the child copied chunks before it was killed; its stderr: " + Files.readString(err));
    assertEquals(137, child.exitValue(), "killed by SIGKILL");
    long copiedBefore = 0;
    for (ClusterDescriptor.Server t : fx.targets) {
      assertEquals(
          0, fx.number(t, "SELECT done FROM _reshard.copy_state WHERE workflow = 'killed'"));
      copiedBefore += fx.number(t, "SELECT COUNT(*) FROM messages");
    }
    assertTrue(
        copiedBefore >= 20 * 250 && copiedBefore < ROWS, "copied before the kill: " + copiedBefore);

    CopyProgress resumed =
        Copier.builder(CopySpecs.split(fx, "killed", VSCHEMA, "messages"))
            .config(CopierConfig.builder().initialChunkRows(250).build())
            .coverage(StreamCoverage.staticSource())
            .build()
            .run();
    assertTrue(resumed.done());
    assertNoDuplicateNoGapAndCleanDiffs("messages", "killed");
  }

  @Test
  void aResumeStartsFromTheSmallestKeySavedOnTheTargets() throws Exception {
    Copier.builder(CopySpecs.split(fx, "uneven", VSCHEMA, "uneven"))
        .config(CopierConfig.builder().initialChunkRows(500).build())
        .coverage(StreamCoverage.staticSource())
        .build()
        .run();
    // As a kill between the two targets' commits leaves it: target 0 is behind (its last key is
    // the 10,000th row, later rows are gone), target 1 is ahead and says done.
    long behindKey = fx.number(fx.source, "SELECT id FROM uneven ORDER BY id LIMIT 1 OFFSET 9999");
    ClusterDescriptor.Server behind = fx.targets.get(0);
    fx.cluster.execute(
        behind,
        "DELETE FROM uneven WHERE id > " + behindKey,
        "UPDATE _reshard.copy_state SET done = 0, lastpk = '{\"columns\":[\"id\"],\"hex\":[\""
            + java.util.HexFormat.of()
                .formatHex(Long.toString(behindKey).getBytes(StandardCharsets.US_ASCII))
            + "\"]}' WHERE workflow = 'uneven'");
    long aheadBefore = fx.number(fx.targets.get(1), "SELECT COUNT(*) FROM uneven");
    Copier.builder(CopySpecs.split(fx, "uneven", VSCHEMA, "uneven"))
        .config(CopierConfig.builder().initialChunkRows(500).build())
        .coverage(StreamCoverage.staticSource())
        .build()
        .run();
    assertEquals(aheadBefore, fx.number(fx.targets.get(1), "SELECT COUNT(*) FROM uneven"));
    assertTrue(
        fx.number(
                fx.targets.get(1),
                "SELECT rows_copied FROM _reshard.copy_state WHERE workflow = 'uneven'")
            > aheadBefore,
        "the target that was ahead received the overlap again, harmlessly");
    assertNoDuplicateNoGapAndCleanDiffs("uneven", "uneven");
  }

  private void assertNoDuplicateNoGapAndCleanDiffs(String table, String workflow) throws Exception {
    int[] found =
        fx.assertPlacedExactly(
            String.format(EXACT, table),
            id -> SplitFixture.targetOf(HASH.keyspaceId(Long.parseLong(id))));
    assertEquals(ROWS, found[0] + found[1]);
    for (int t = 0; t < 2; t++) {
      assertEquals(
          1,
          fx.number(
              fx.targets.get(t),
              "SELECT done FROM _reshard.copy_state WHERE workflow = '" + workflow + "'"));
      DiffSpec spec =
          new DiffSpec(
              workflow,
              fx.cluster.database(),
              SplitFixture.endpoint(fx.source),
              new TargetShard(
                  SplitFixture.TARGET_RANGES.get(t), SplitFixture.endpoint(fx.targets.get(t))),
              List.of(table),
              VSCHEMA);
      DiffReport r =
          new Differ(spec, DifferConfig.defaults(), StreamControl.none(), DiffListener.NONE).run();
      assertTrue(r.isClean(), r.toTable());
      assertEquals(found[t], r.table(table).matching());
    }
  }

  private static String hostPort(ClusterDescriptor.Server s) {
    return s.host() + ":" + s.port();
  }
}
