package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.HandOver;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkflowHandOverTest {
  private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  @Test
  void aSwitchRecordsItsGiversThenItsTakersOnceAndTheRecordKeepsThem() throws Exception {
    Workflow w =
        Workflow.create("split", "ks", List.of("c0-"), List.of("c0-e0", "e0-"), "0-1-5", T0);
    assertEquals(List.of(), w.handOvers());
    assertEquals(w, w.withHandOverTaken(Map.of("c0-e0", "0-2-1")), "nothing to take yet");

    Workflow given = w.withHandOver(HandOver.given(T0, Map.of("c0-", "0-1-100")));
    assertFalse(given.handOvers().get(0).taken());
    Workflow taken = given.withHandOverTaken(Map.of("c0-e0", "0-2-40", "e0-", "0-3-40"));
    assertEquals(Map.of("c0-e0", "0-2-40", "e0-", "0-3-40"), taken.handOvers().get(0).to());
    // a restarted switch reads the targets' positions again; the first ones stay
    assertEquals(taken, taken.withHandOverTaken(Map.of("c0-e0", "0-2-99", "e0-", "0-3-99")));

    Workflow reversed =
        taken
            .withForward(2, Map.of("c0-", "0-1-130"), T0.plusSeconds(60))
            .withHandOver(
                HandOver.given(T0.plusSeconds(60), Map.of("c0-e0", "0-2-70", "e0-", "0-3-75"))
                    .takenBy(Map.of("c0-", "0-1-130")));
    assertEquals(2, reversed.handOvers().size(), "a new generation keeps the old hand-overs");

    byte[] json = KafkaWorkflowStore.JSON.writeValueAsBytes(reversed);
    Workflow back = KafkaWorkflowStore.JSON.readValue(json, Workflow.class);
    assertEquals(reversed.handOvers(), back.handOvers());
    assertTrue(new String(json, java.nio.charset.StandardCharsets.UTF_8).contains("\"handovers\""));
    Workflow old =
        KafkaWorkflowStore.JSON.readValue(
            "{\"name\":\"w\",\"keyspace\":\"ks\",\"sources\":[\"-\"],\"targets\":[\"-80\",\"80-\"],"
                + "\"state\":\"RUNNING\"}",
            Workflow.class);
    assertEquals(List.of(), old.handOvers(), "records written before hand-overs were kept");
  }
}
