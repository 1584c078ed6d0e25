package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Missed changes recorded on a workflow hold both switches until a diff is clean. */
class CaptureGapsTest {
  private static final Instant T0 = Instant.parse("2025-01-01T00:00:00Z");

  private static Workflow running() {
    return new Workflow(
        "w",
        "chat",
        List.of("c0-"),
        List.of("c0-e0", "e0-"),
        WorkflowState.RUNNING,
        "1-1-1",
        null,
        true,
        null,
        T0);
  }

  @Test
  void aGapDropsTheCleanDiffAndOnlyACleanDiffClearsIt() {
    Workflow gap = running().withCaptureGap("shard c0-: changes after 1-1-5 were skipped", T0);
    assertNull(gap.lastDiffClean(), "the last clean diff no longer counts");
    assertEquals("shard c0-: changes after 1-1-5 were skipped", gap.captureGap());
    Workflow dirty = gap.withDiff(false, T0);
    assertEquals(gap.captureGap(), dirty.captureGap(), "a diff that found differences keeps it");
    Workflow clean = dirty.withDiff(true, T0);
    assertNull(clean.captureGap());
    assertEquals(Boolean.TRUE, clean.lastDiffClean());
    assertEquals(
        gap.captureGap(), gap.transition(WorkflowState.READS_SWITCHED, T0).captureGap(), "kept");
  }

  @Test
  void theRefusalNamesTheGapAndTheRepairCommandAndIsNotForced() {
    assertNull(CaptureGaps.refusal(running(), "switch writes"));
    Workflow gap = running().withCaptureGap("shard c0-: skipped", T0);
    String why = CaptureGaps.refusal(gap, "switch writes");
    assertTrue(why.contains("shard c0-: skipped"), why);
    assertTrue(why.contains("`reshard workflow diff w --repair`"), why);
    assertTrue(why.contains("--force does not pass over this"), why);
  }

  @Test
  void theGapTravelsInTheStoredRecord() throws Exception {
    Workflow gap = running().withCaptureGap("shard c0-: skipped", T0);
    String json = KafkaWorkflowStore.JSON.writeValueAsString(gap);
    assertTrue(json.contains("\"capture_gap\":\"shard c0-: skipped\""), json);
    assertEquals(gap, KafkaWorkflowStore.JSON.readValue(json, Workflow.class));
  }
}
