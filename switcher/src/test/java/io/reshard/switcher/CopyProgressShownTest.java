package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.reshard.copier.CopyProgress;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** What a workflow's status shows of a copy that was started again after a failure. */
class CopyProgressShownTest {
  private static CopyProgress progress(long rows, long estimate, double rate, boolean done) {
    return new CopyProgress(
        "w",
        List.of(),
        rows,
        estimate,
        rate,
        rate > 0 ? Optional.of(Duration.ofSeconds(5)) : Optional.empty(),
        done);
  }

  @Test
  void aRunThatHasNotCountedYetShowsTheEarlierRowsWithoutARate() {
    CopyProgress before = progress(347_700, 600_000, 48_000, false);
    CopyProgress shown = WorkflowRunner.shown(progress(0, 0, 0, false), before);
    assertEquals(347_700, shown.rowsCopied());
    assertEquals(600_000, shown.estimatedRows());
    assertEquals(0, shown.rowsPerSecond(), "nothing is copied meanwhile");
    assertEquals(Optional.empty(), shown.eta());
  }

  @Test
  void aRunDoneWithoutCopyingKeepsTheEarlierRate() {
    CopyProgress before = progress(600_000, 600_000, 48_000, false);
    CopyProgress shown = WorkflowRunner.shown(progress(600_000, 600_000, 0, true), before);
    assertEquals(48_000, shown.rowsPerSecond());
    assertEquals(true, shown.done());
  }

  @Test
  void aRunOfItsOwnOrAFirstRunIsShownAsItIs() {
    CopyProgress counting = progress(1_000, 600_000, 12_000, false);
    assertSame(counting, WorkflowRunner.shown(counting, progress(347_700, 600_000, 48_000, false)));
    CopyProgress first = progress(0, 0, 0, false);
    assertSame(first, WorkflowRunner.shown(first, null));
  }
}
