package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.placement.SplitFixture;
import io.reshard.core.placement.TargetShard;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.StreamControl;
import io.reshard.differ.TableDiff;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardException;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The diff of a merge's target against each of its two sources ({@link DiffSpec#sourceRange}): the
 * target also holds the other source's rows, which each source's diff leaves out; a missing row is
 * reported by its own source's diff only; and a primary key that both sources hold (the target can
 * keep one row of it) stops the diff and the repair with the key named, the target's row left as it
 * was. Static data ({@link StreamControl#none()}); the tests run in order on one data set.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MergeDiffIT {
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final KeyRange A = KeyRange.parse("-80");
  private static final KeyRange B = KeyRange.parse("80-");
  private static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\":"
              + " {\"pairs\": {\"column_vindexes\": [{\"column\": \"k\", \"name\": \"hash\"}]}}}");

  private final TestCluster cluster;
  private final ClusterDescriptor.Server a;
  private final ClusterDescriptor.Server b;
  private final ClusterDescriptor.Server target;

  MergeDiffIT(TestCluster cluster) {
    this.cluster = cluster;
    this.a = cluster.shards().get(0);
    this.b = cluster.shards().get(1);
    this.target = cluster.shards().get(2);
  }

  /** 100 rows on each source, ids 1-100 on -80 and 101-200 on 80-, all of them on the target. */
  @BeforeAll
  void load() throws Exception {
    String table =
        "CREATE TABLE pairs (id BIGINT PRIMARY KEY, k BIGINT NOT NULL, v VARCHAR(20))"
            + " ENGINE=InnoDB";
    List<String> rowsA = new ArrayList<>();
    List<String> rowsB = new ArrayList<>();
    long k = 0;
    for (long id = 1; id <= 200; id++) {
      k = keyIn(id <= 100 ? A : B, k + 1);
      (id <= 100 ? rowsA : rowsB).add("(" + id + ", " + k + ", 'v" + id + "')");
    }
    cluster.execute(a, table, "INSERT INTO pairs VALUES " + String.join(", ", rowsA));
    cluster.execute(b, table, "INSERT INTO pairs VALUES " + String.join(", ", rowsB));
    List<String> all = new ArrayList<>(rowsA);
    all.addAll(rowsB);
    cluster.execute(target, table, "INSERT INTO pairs VALUES " + String.join(", ", all));
  }

  @Test
  @Order(1)
  void eachSourceIsComparedWithItsOwnRowsOfTheTargetOnly() throws Exception {
    TableDiff fromA = differ(a, A).run().table("pairs");
    TableDiff fromB = differ(b, B).run().table("pairs");
    assertTrue(fromA.isClean() && fromB.isClean(), fromA + " / " + fromB);
    assertEquals(100, fromA.matching(), "the other source's 100 rows are left out");
    assertEquals(100, fromB.matching());
    assertEquals(0, fromA.extraTarget());
  }

  @Test
  @Order(2)
  void aRowMissingOnTheTargetIsReportedByItsOwnSourceOnly() throws Exception {
    cluster.execute(target, "DELETE FROM pairs WHERE id = 150");
    TableDiff fromA = differ(a, A).run().table("pairs");
    TableDiff fromB = differ(b, B).run().table("pairs");
    assertTrue(fromA.isClean(), fromA.toString());
    assertEquals(1, fromB.extraSource(), fromB.toString());
    Differ.RepairResult repaired = differ(b, B).repairAll().get(0);
    assertTrue(repaired.verified().isClean(), repaired.verified().toTable());
    assertTrue(differ(a, A).run().isClean(), "repairing one source's rows left the other's alone");
  }

  @Test
  @Order(3)
  void aPrimaryKeyBothSourcesHoldStopsTheDiffAndTheRepairNamingIt() throws Exception {
    cluster.execute(b, "INSERT INTO pairs VALUES (5, " + keyIn(B, 1_000_000) + ", 'also b')");
    ReshardException diff = assertThrows(ReshardException.class, () -> differ(b, B).run());
    assertTrue(diff.getMessage().contains("primary key {id=5}"), diff.getMessage());
    assertTrue(diff.getMessage().contains("held by the source 80-"), diff.getMessage());
    assertTrue(diff.getMessage().contains("make the keys unique"), diff.getMessage());
    assertThrows(ReshardException.class, () -> differ(b, B).repairAll());
    try (Connection c = cluster.connect(target);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT v FROM pairs WHERE id = 5")) {
      assertTrue(rs.next());
      assertEquals("v5", rs.getString(1), "the repair did not overwrite the other source's row");
    }
  }

  private Differ differ(ClusterDescriptor.Server source, KeyRange range) {
    DiffSpec spec =
        new DiffSpec(
            "merge/" + range.name(),
            cluster.database(),
            SplitFixture.endpoint(source),
            List.of(new TargetShard(KeyRange.FULL, SplitFixture.endpoint(target))),
            List.of("pairs"),
            VSCHEMA,
            range);
    return new Differ(
        spec,
        DifferConfig.builder().chunkRows(16).build(),
        List.of(StreamControl.none()),
        DiffListener.NONE);
  }

  private static long keyIn(KeyRange range, long from) {
    for (long k = from; ; k++) {
      if (range.contains(HASH.keyspaceId(k))) {
        return k;
      }
    }
  }
}
