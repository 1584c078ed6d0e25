package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A verb asked of a workflow in a state it does not apply to is refused before anything is touched
 * (the phases get no streams and no publisher here), saying in words what the workflow is doing and
 * which verb comes next, never the state's enum name.
 */
class StateRefusalsTest {
  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");
  private static final WorkflowSpec SPEC = WorkflowRecordTest.spec("-", "-80", "80-");
  private static final WorkflowEngine ENGINE =
      new WorkflowEngine(new WorkflowStateTest.MemoryStore(), Clock.fixed(T0, ZoneOffset.UTC));

  @Test
  void reverseTrafficOfARunningWorkflowSaysItIsCopiedAndToSwitchFirst() {
    String m =
        refusal(
            () -> new ReverseTrafficPhase(SPEC, null, ENGINE, null).run(at(WorkflowState.RUNNING)));
    assertTrue(m.startsWith("reverse-traffic refused for workflow w: it is copied"), m);
    assertTrue(m.contains("next: diff, then switch-traffic --reads or --writes; or cancel"), m);
    assertNoStateNames(m);
  }

  @Test
  void completeBeforeTheWriteSwitchNamesTheSwitchAsNext() {
    String m =
        refusal(
            () ->
                new CompletePhase(SPEC, null, ENGINE, null)
                    .run(at(WorkflowState.READS_SWITCHED), false));
    assertTrue(m.contains("it is serving reads from the targets"), m);
    assertTrue(m.contains("next: switch-traffic --writes"), m);
    assertNoStateNames(m);
  }

  @Test
  void cancelAfterTheWriteSwitchNamesReverseTraffic() {
    String m =
        refusal(
            () -> new CancelPhase(SPEC, null, ENGINE, null).run(at(WorkflowState.WRITES_SWITCHED)));
    assertTrue(
        m.contains("after a write switch a workflow is cancelled only once reverse-traffic"), m);
    assertTrue(m.contains("next: complete (retires the sources), or reverse-traffic"), m);
    assertNoStateNames(m);
  }

  @Test
  void switchReadsWhileCopyingSaysToWaitForTheCopy() {
    String m =
        refusal(
            () -> new SwitchReadsPhase(SPEC, null, ENGINE, null).run(at(WorkflowState.COPYING)));
    assertTrue(m.contains("it is copying the sources' rows to the targets"), m);
    assertTrue(m.contains("next: wait until the copy is done"), m);
    assertNoStateNames(m);
  }

  @Test
  void everyStateHasWordsAndANextStep() {
    for (WorkflowState s : WorkflowState.values()) {
      assertFalse(s.inWords().isBlank(), s.name());
      assertFalse(s.nextInWords().isBlank(), s.name());
      assertNoStateNames(s.refusal("verb", "w", null));
    }
  }

  private interface Step {
    void run() throws Exception;
  }

  private static String refusal(Step step) {
    return assertThrows(SwitchRefusedException.class, step::run).getMessage();
  }

  private static void assertNoStateNames(String m) {
    for (WorkflowState s : WorkflowState.values()) {
      assertFalse(m.contains(s.name()), "the enum name " + s.name() + " in: " + m);
    }
  }

  private static Workflow at(WorkflowState s) {
    return new Workflow(
        "w", "chat", List.of("-"), List.of("-80", "80-"), s, "1-1-5", null, true, null, T0);
  }
}
