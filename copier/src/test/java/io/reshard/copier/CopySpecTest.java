package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.placement.TargetShard;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.VSchema;
import java.util.List;
import org.junit.jupiter.api.Test;

class CopySpecTest {
  static final JdbcEndpoint E = new JdbcEndpoint("jdbc:mariadb://127.0.0.1:1/", "root", "");
  static final VSchema V =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
              + " \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}");

  static CopySpec spec(String source, String... targets) {
    return new CopySpec(
        "wf",
        "ks",
        E,
        KeyRange.parse(source),
        java.util.Arrays.stream(targets).map(t -> new TargetShard(KeyRange.parse(t), E)).toList(),
        List.of("t"),
        V,
        "4-4-100");
  }

  @Test
  void aSplitIsSortedAndRoutesByRange() {
    CopySpec s = spec("c0-", "e0-", "c0-e0");
    assertEquals(List.of("c0-e0", "e0-"), s.targets().stream().map(TargetShard::name).toList());
    assertEquals(0, s.targetIndexOf(KeyspaceId.fromHex("c1")));
    assertEquals(1, s.targetIndexOf(KeyspaceId.fromHex("e0")));
    assertEquals(-1, s.targetIndexOf(KeyspaceId.fromHex("10")));
  }

  @Test
  void aMergeTargetMayReachBeyondTheSource() {
    assertEquals(1, spec("40-80", "-80").targets().size());
  }

  @Test
  void overlappingTargetsAreRefused() {
    CopyRefusedException e =
        assertThrows(CopyRefusedException.class, () -> spec("c0-", "c0-f0", "e0-"));
    assertTrue(e.getMessage().contains("c0-f0 and e0- overlap"), e.getMessage());
  }

  @Test
  void aGapIsRefused() {
    CopyRefusedException e =
        assertThrows(CopyRefusedException.class, () -> spec("c0-", "c0-d0", "e0-"));
    assertTrue(e.getMessage().contains("leave a gap"), e.getMessage());
  }

  @Test
  void targetsThatMissPartOfTheSourceAreRefused() {
    CopyRefusedException e = assertThrows(CopyRefusedException.class, () -> spec("c0-", "c0-e0"));
    assertTrue(e.getMessage().contains("not all of source range c0-"), e.getMessage());
  }

  @Test
  void aTargetOutsideTheSourceIsRefused() {
    CopyRefusedException e =
        assertThrows(CopyRefusedException.class, () -> spec("c0-", "80-c0", "c0-"));
    assertTrue(e.getMessage().contains("does not overlap"), e.getMessage());
  }

  @Test
  void invalidConfigListsEveryProblem() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CopierConfig.builder().minChunkRows(0).tableParallelism(0).build());
    assertTrue(e.getMessage().contains("minChunkRows"), e.getMessage());
    assertTrue(e.getMessage().contains("tableParallelism"), e.getMessage());
  }
}
