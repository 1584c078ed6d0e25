package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

class WorkflowStateTest {
  private static final Instant T0 = Instant.parse("2026-11-29T12:00:00Z");

  /** An in-memory store: the fake the engine tests run against. */
  static final class MemoryStore implements WorkflowStore {
    final Map<String, Workflow> records = new ConcurrentHashMap<>();
    final List<Workflow> saved = new ArrayList<>();

    @Override
    public synchronized void save(Workflow w) {
      records.put(w.name(), w);
      saved.add(w);
    }

    @Override
    public Optional<Workflow> load(String name) {
      return Optional.ofNullable(records.get(name));
    }

    @Override
    public List<Workflow> list() {
      return List.copyOf(records.values());
    }
  }

  @Test
  void theForwardRunbookIsLegalStepByStep() {
    Workflow w =
        Workflow.create("split-c0", "chat", List.of("c0-"), List.of("c0-e0", "e0-"), "4-4-100", T0);
    for (WorkflowState s :
        List.of(
            WorkflowState.COPYING,
            WorkflowState.RUNNING,
            WorkflowState.READS_SWITCHED,
            WorkflowState.SWITCHING_WRITES,
            WorkflowState.WRITES_SWITCHED,
            WorkflowState.REVERSING,
            WorkflowState.RUNNING,
            WorkflowState.SWITCHING_WRITES,
            WorkflowState.WRITES_SWITCHED,
            WorkflowState.COMPLETED)) {
      w = w.transition(s, T0);
      assertEquals(s, w.state());
    }
    assertTrue(w.state().isTerminal());
  }

  @Test
  void cancelIsRefusedOnceWritesHaveMoved() {
    for (WorkflowState s : WorkflowState.values()) {
      assertEquals(
          !s.writesHaveMoved() && !s.isTerminal() && s != WorkflowState.SWITCHING_WRITES,
          s.canMoveTo(WorkflowState.CANCELLED),
          s.name());
    }
    Workflow switched =
        new Workflow(
            "w",
            "chat",
            List.of("-"),
            List.of("-80", "80-"),
            WorkflowState.WRITES_SWITCHED,
            "1-1-5",
            "1-1-9",
            true,
            null,
            T0);
    IllegalTransitionException e =
        assertThrows(
            IllegalTransitionException.class,
            () -> switched.transition(WorkflowState.CANCELLED, T0));
    assertTrue(
        e.getMessage().contains("cannot change from WRITES_SWITCHED to CANCELLED"), e.getMessage());
    assertTrue(
        e.getMessage().contains("it is switched: the targets serve reads and writes"),
        e.getMessage());
    assertTrue(
        e.getMessage().contains("next: complete (retires the sources), or reverse-traffic"),
        e.getMessage());
  }

  @Test
  void aSwitchThatTimesOutGoesBackWhereItStarted() {
    assertTrue(WorkflowState.SWITCHING_WRITES.canMoveTo(WorkflowState.RUNNING));
    assertTrue(WorkflowState.SWITCHING_WRITES.canMoveTo(WorkflowState.READS_SWITCHED));
    assertFalse(WorkflowState.SWITCHING_WRITES.canMoveTo(WorkflowState.CANCELLED));
  }

  @Test
  void terminalStatesGoNowhere() {
    for (WorkflowState to : WorkflowState.values()) {
      assertFalse(WorkflowState.COMPLETED.canMoveTo(to));
      assertFalse(WorkflowState.CANCELLED.canMoveTo(to));
    }
  }

  @Test
  void theEnginePersistsThenPublishesAndRefusesIllegalMovesWithoutPersisting() {
    MemoryStore store = new MemoryStore();
    Instant now = Instant.parse("2026-11-29T13:00:00Z");
    WorkflowEngine engine = new WorkflowEngine(store, Clock.fixed(now, ZoneOffset.UTC));
    List<Workflow> published = new ArrayList<>();
    engine.addListener(published::add);
    Workflow w = Workflow.create("w", "chat", List.of("c0-"), List.of("c0-e0", "e0-"), "4-4-1", T0);
    Workflow copying = engine.transition(w, WorkflowState.COPYING, "streams cover P0");
    assertEquals(WorkflowState.COPYING, store.load("w").orElseThrow().state());
    assertEquals(now, copying.updatedAt());
    assertEquals(List.of(copying), published);
    assertThrows(
        IllegalTransitionException.class,
        () -> engine.transition(copying, WorkflowState.WRITES_SWITCHED, "x"));
    assertEquals(1, store.saved.size(), "an illegal move persists nothing");
    assertEquals(1, published.size(), "and publishes nothing");
  }

  @Test
  void recordsRoundTripThroughJson() throws Exception {
    Workflow w =
        new Workflow(
            "w",
            "chat",
            List.of("c0-"),
            List.of("c0-e0", "e0-"),
            WorkflowState.WRITES_SWITCHED,
            "4-4-1",
            "4-4-77",
            true,
            "boom",
            T0);
    String json = KafkaWorkflowStore.JSON.writeValueAsString(w);
    assertTrue(json.contains("\"journal_position\":\"4-4-77\""), json);
    assertTrue(json.contains("\"state\":\"WRITES_SWITCHED\""), json);
    assertEquals(w, KafkaWorkflowStore.JSON.readValue(json, Workflow.class));
  }
}
