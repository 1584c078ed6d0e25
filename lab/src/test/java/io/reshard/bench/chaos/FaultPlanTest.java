package io.reshard.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FaultPlanTest {
  private static final List<FaultKind> ALL = List.of(FaultKind.values());

  @Test
  void theSameSeedGivesTheSamePlanAndAnotherSeedAnother() {
    FaultPlan a = FaultPlan.draw(42, 100, ALL, 0.6, 2000);
    FaultPlan b = FaultPlan.draw(42, 100, ALL, 0.6, 2000);
    FaultPlan c = FaultPlan.draw(43, 100, ALL, 0.6, 2000);
    assertEquals(a, b);
    assertNotEquals(a, c);
  }

  @Test
  void exactlyTheFaultsAskedForNumberedInOrderOverTheLifecyclesItNames() {
    FaultPlan p = FaultPlan.draw(7, 37, ALL, 0.5, 1000);
    assertEquals(37, p.faults().size());
    for (int i = 0; i < p.faults().size(); i++) {
      FaultPlan.PlannedFault f = p.faults().get(i);
      assertEquals(i + 1, f.index());
      assertTrue(f.delayMillis() >= 0 && f.delayMillis() <= 1000, f.describe());
      if (i > 0) {
        FaultPlan.PlannedFault before = p.faults().get(i - 1);
        assertTrue(
            f.lifecycle() > before.lifecycle()
                || (f.lifecycle() == before.lifecycle()
                    && f.step().ordinal() > before.step().ordinal()),
            "one fault per step, in step order: " + before.describe() + " then " + f.describe());
      }
    }
    assertEquals(p.faults().get(36).lifecycle(), p.lifecycles());
  }

  @Test
  void everyKindIsDealtOncePerDeck() {
    FaultPlan p = FaultPlan.draw(3, 60, ALL, 0.7, 500);
    Map<FaultKind, Long> counts = new EnumMap<>(FaultKind.class);
    p.faults().forEach(f -> counts.merge(f.kind(), 1L, Long::sum));
    for (FaultKind k : FaultKind.values()) {
      assertEquals(10L, counts.get(k), k + " in " + counts);
    }
  }

  @Test
  void onlyTheChosenKindsAndEachHitsItsProcess() {
    List<FaultKind> some = List.of(FaultKind.SERVER_PAUSE, FaultKind.TARGET_KILL);
    FaultPlan p = FaultPlan.draw(11, 40, some, 1.0, 0);
    for (FaultPlan.PlannedFault f : p.faults()) {
      assertTrue(some.contains(f.kind()), f.describe());
      assertEquals(0, f.delayMillis());
      if (f.kind() == FaultKind.TARGET_KILL) {
        assertTrue(
            Set.of(FaultPlan.Target.FIRST_TARGET, FaultPlan.Target.SECOND_TARGET)
                .contains(f.target()),
            f.describe());
      } else {
        assertFalse(
            Set.of(FaultPlan.Target.DAEMON, FaultPlan.Target.BROKER).contains(f.target()),
            f.describe());
      }
    }
    assertEquals(
        Set.of(
            FaultPlan.Target.SOURCE, FaultPlan.Target.FIRST_TARGET, FaultPlan.Target.SECOND_TARGET),
        p.faults().stream()
            .filter(f -> f.kind() == FaultKind.SERVER_PAUSE)
            .map(FaultPlan.PlannedFault::target)
            .collect(Collectors.toSet()),
        "a pause hits the source or either target");
  }

  @Test
  void createAndCopyNeverBothGetAFaultSoTheCopyFaultLandsInTheCopy() {
    FaultPlan p = FaultPlan.draw(5, 90, ALL, 1.0, 2000);
    for (int l = 1; l <= p.lifecycles(); l++) {
      assertTrue(p.at(l, LifecycleStep.COPY).isPresent() || l == p.lifecycles());
      assertTrue(p.at(l, LifecycleStep.CREATE).isEmpty(), "lifecycle " + l);
    }
    assertEquals(9, p.faults().stream().filter(f -> f.lifecycle() == 1).count());
  }

  @Test
  void badArgumentsAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> FaultPlan.draw(1, 0, ALL, 0.5, 0));
    assertThrows(IllegalArgumentException.class, () -> FaultPlan.draw(1, 5, List.of(), 0.5, 0));
    assertThrows(IllegalArgumentException.class, () -> FaultPlan.draw(1, 5, ALL, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> FaultPlan.draw(1, 5, ALL, 1.5, 0));
    assertThrows(IllegalArgumentException.class, () -> FaultPlan.draw(1, 5, ALL, 0.5, -1));
    assertThrows(
        IllegalArgumentException.class,
        () -> FaultPlan.draw(1, 5, List.of(FaultKind.DAEMON_KILL, FaultKind.DAEMON_KILL), 0.5, 0));
  }
}
