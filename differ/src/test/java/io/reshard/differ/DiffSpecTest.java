package io.reshard.differ;

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

class DiffSpecTest {
  static final JdbcEndpoint E = new JdbcEndpoint("jdbc:mariadb://127.0.0.1:1/", "u", "");
  static final VSchema V = VSchema.parse("{\"sharded\": true, \"vindexes\": {}, \"tables\": {}}");

  static TargetShard target(String range) {
    return new TargetShard(KeyRange.parse(range), E);
  }

  static DiffSpec spec(List<TargetShard> targets) {
    return new DiffSpec("wf", "ks", E, targets, List.of("t"), V);
  }

  @Test
  void targetsKeepTheirOrderAndRouteByRange() {
    DiffSpec s = spec(List.of(target("80-"), target("-80")));
    assertEquals(List.of("80-", "-80"), s.targetNames());
    assertEquals(0, s.targetIndexOf(KeyspaceId.fromHex("c0")));
    assertEquals(1, s.targetIndexOf(KeyspaceId.fromHex("10")));
  }

  @Test
  void aTargetListMayLeaveRowsToNoTarget() {
    DiffSpec s = spec(List.of(target("40-80")));
    assertEquals(-1, s.targetIndexOf(KeyspaceId.fromHex("c0")));
    assertEquals("40-80", s.target().name());
  }

  @Test
  void overlappingTargetsAreRefused() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> spec(List.of(target("-80"), target("40-"))));
    assertTrue(e.getMessage().contains("overlap"), e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> spec(List.of()));
  }

  @Test
  void theOneTargetAccessorRefusesASpecWithSeveral() {
    DiffSpec s = spec(List.of(target("-80"), target("80-")));
    assertThrows(IllegalStateException.class, s::target);
    assertThrows(
        IllegalArgumentException.class,
        () -> new Differ(s, DifferConfig.defaults(), StreamControl.none(), DiffListener.NONE));
  }
}
