package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.copier.CopyProgress.TableProgress;
import io.reshard.copier.CopyProgress.TableState;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The progress of a copy of several sources, shown as one. */
class CopyProgressTest {

  @Test
  void oneSourcesProgressIsItself() {
    CopyProgress p = progress(table("a", TableState.DONE, 10, 10));
    assertSame(p, CopyProgress.combine("m", List.of(p)));
  }

  @Test
  void rowsAndEstimatesAreSummedPerTableAndTheTableIsDoneOnlyWhenEverySourcesPartIs() {
    CopyProgress first =
        progress(table("a", TableState.DONE, 100, 100), table("b", TableState.COPYING, 5, 50));
    CopyProgress second =
        progress(table("a", TableState.PENDING, 0, 80), table("b", TableState.PENDING, 0, 40));
    CopyProgress both = CopyProgress.combine("m", List.of(first, second));
    assertEquals("m", both.workflow());
    assertEquals(List.of("a", "b"), both.tables().stream().map(TableProgress::table).toList());
    assertEquals(TableState.COPYING, both.tables().get(0).state(), "one part done, one to come");
    assertEquals(180, both.tables().get(0).estimatedRows());
    assertEquals(105, both.rowsCopied());
    assertEquals(270, both.estimatedRows());
    assertFalse(both.done());
    assertTrue(both.fraction() > 0.38 && both.fraction() < 0.39, "105 of 270: " + both.fraction());

    CopyProgress secondDone =
        progress(table("a", TableState.DONE, 80, 80), table("b", TableState.DONE, 40, 40));
    CopyProgress firstDone =
        progress(table("a", TableState.DONE, 100, 100), table("b", TableState.DONE, 50, 50));
    CopyProgress all = CopyProgress.combine("m", List.of(firstDone, secondDone));
    assertTrue(all.done());
    assertEquals(TableState.DONE, all.tables().get(1).state());
    assertEquals(1.0, all.fraction());
  }

  private static TableProgress table(String name, TableState state, long copied, long estimated) {
    return new TableProgress(name, state, copied, estimated, 0, Optional.empty(), 1000);
  }

  private static CopyProgress progress(TableProgress... tables) {
    return CopyProgress.of("m/x", List.of(tables), 0, Duration.ofSeconds(1));
  }
}
