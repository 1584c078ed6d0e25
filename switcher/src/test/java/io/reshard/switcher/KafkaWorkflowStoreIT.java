package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(LocalClusterExtension.class)
class KafkaWorkflowStoreIT {

  @Test
  void theNewestRecordOfEachWorkflowSurvivesANewStoreInstance(TestCluster cluster) {
    String topic = cluster.topicPrefix() + ".workflows";
    Instant t = Instant.parse("2026-11-29T12:00:00Z");
    Workflow a = Workflow.create("a", "chat", List.of("c0-"), List.of("c0-e0", "e0-"), "4-4-1", t);
    Workflow b = Workflow.create("b", "chat", List.of("-40"), List.of("-20", "20-40"), "1-1-9", t);
    try (KafkaWorkflowStore store = KafkaWorkflowStore.open(cluster.bootstrap(), topic)) {
      store.save(a);
      store.save(b);
      store.save(a.transition(WorkflowState.COPYING, t));
      store.save(
          a.transition(WorkflowState.COPYING, t)
              .transition(WorkflowState.RUNNING, t)
              .withDiff(true, t));
    }
    try (KafkaWorkflowStore again = KafkaWorkflowStore.open(cluster.bootstrap(), topic)) {
      Workflow loaded = again.load("a").orElseThrow();
      assertEquals(WorkflowState.RUNNING, loaded.state());
      assertEquals(Boolean.TRUE, loaded.lastDiffClean());
      assertEquals(WorkflowState.CREATED, again.load("b").orElseThrow().state());
      assertEquals(List.of("a", "b"), again.list().stream().map(Workflow::name).toList());
      assertTrue(again.load("missing").isEmpty());
    }
  }
}
