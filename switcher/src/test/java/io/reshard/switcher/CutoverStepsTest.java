package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class CutoverStepsTest {

  @Test
  void stepsAreKeptInOrderAndTheWindowRunsFromTheFenceToThePublish() throws Exception {
    CutoverSteps steps = new CutoverSteps();
    steps.begin();
    Thread.sleep(5);
    steps.mark("prepare connections");
    steps.start();
    Thread.sleep(5);
    steps.mark("fence");
    steps.mark("publish");
    Thread.sleep(5);
    steps.mark("after: stop streams");
    assertEquals(
        List.of("prepare connections", "fence", "publish", "after: stop streams"),
        List.copyOf(steps.durations().keySet()));
    Duration window = steps.fencedWindow();
    assertTrue(window.toMillis() >= 5, "window " + window);
    assertTrue(
        window.compareTo(steps.durations().get("fence").plus(steps.durations().get("publish")))
            >= 0);
    assertEquals(
        steps.endNanos("publish") - steps.endNanos("fence"),
        steps.durations().get("publish").toNanos());
    assertEquals(0, steps.endNanos("read G"), "a step that did not run");
  }

  @Test
  void aStepRunTwiceIsSummed() {
    CutoverSteps steps = new CutoverSteps();
    steps.start();
    steps.mark("open targets");
    steps.mark("open targets");
    assertEquals(1, steps.durations().size());
    assertEquals(Duration.ZERO, new CutoverSteps().fencedWindow());
  }
}
