package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.reshard.core.schema.SchemaObject;
import io.reshard.router.VSchema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a restarted daemon reads back: the record's resume fields, and the range check. */
class WorkflowRecordTest {
  private static final ObjectMapper JSON = new ObjectMapper().registerModule(new JavaTimeModule());
  private static final Instant T = Instant.parse("2026-11-29T10:00:00Z");

  @Test
  void everyResumeFieldSurvivesTheJsonRoundTrip() throws Exception {
    Workflow w =
        Workflow.create("w", "chat", List.of("c0-"), List.of("c0-e0", "e0-"), "4-4-10", T)
            .withServers(Map.of("c0-", "db4", "c0-e0", "db5", "e0-", "db6"), T)
            .withForward(2, Map.of("c0-", "4-4-99"), T)
            .withJournal("4-4-120", T)
            .withReverseStart(Map.of("c0-e0", "5-5-3", "e0-", "6-6-7"), T)
            .withReversePosition("{c0-e0=5-5-9}", T);
    Workflow back = JSON.readValue(JSON.writeValueAsBytes(w), Workflow.class);
    assertEquals(w, back);
    assertEquals(2, back.generation());
    assertEquals("db5", back.servers().get("c0-e0"));
    assertEquals("6-6-7", back.reverseStart().get("e0-"));
  }

  @Test
  void theTriggerChoiceAndDefinitionsSurviveTheStoredRecord() throws Exception {
    SchemaObject t =
        new SchemaObject(
            SchemaObject.Kind.TRIGGER,
            "stamp",
            "messages",
            "root@localhost",
            "STRICT_TRANS_TABLES",
            "utf8mb4",
            "utf8mb4_general_ci",
            "CREATE DEFINER=`root`@`localhost` TRIGGER stamp BEFORE INSERT ON messages FOR EACH ROW"
                + " SET NEW.body = CONCAT(NEW.body, '+')",
            null);
    SchemaObjects o =
        new SchemaObjects(
            TriggerMode.FOLLOW_WRITES,
            List.of(t),
            List.of("view recent"),
            List.of("view named uses table customers"));
    Workflow w =
        Workflow.create("w", "chat", List.of("c0-"), List.of("c0-e0", "e0-"), "4-4-10", T)
            .withSchemaObjects(o, T)
            .withForward(2, Map.of("c0-", "4-4-99"), T)
            .withJournal("4-4-120", T);
    byte[] stored = KafkaWorkflowStore.JSON.writeValueAsBytes(w);
    assertTrue(new String(stored).contains("\"triggers\":\"follow-writes\""), new String(stored));
    Workflow back = KafkaWorkflowStore.JSON.readValue(stored, Workflow.class);
    assertEquals(w, back);
    assertEquals(o, back.schemaObjects());
    assertTrue(back.schemaObjects().warning().contains("view named uses table customers"));
    assertEquals(
        "--triggers must be refuse or follow-writes, not 'follow'",
        assertThrows(IllegalArgumentException.class, () -> TriggerMode.parse("follow"))
            .getMessage());
    assertEquals(TriggerMode.REFUSE, TriggerMode.parse(null));
  }

  @Test
  void aRecordWrittenBeforeTheResumeFieldsReadsAsGenerationOne() throws Exception {
    String old =
        "{\"name\":\"w\",\"keyspace\":\"chat\",\"sources\":[\"c0-\"],\"targets\":[\"c0-e0\",\"e0-\"],"
            + "\"state\":\"RUNNING\",\"p0\":\"4-4-1\",\"updated_at\":\"2026-11-29T10:00:00Z\"}";
    Workflow w = JSON.readValue(old, Workflow.class);
    assertEquals(1, w.generation());
    assertTrue(w.servers().isEmpty());
    assertNull(w.reverseStart());
    assertEquals(SchemaObjects.NONE, w.schemaObjects(), "triggers refused, nothing carried");
  }

  @Test
  void aNewForwardGenerationForgetsThePreviousSwitch() {
    Workflow w =
        Workflow.create("w", "chat", List.of("c0-"), List.of("c0-e0", "e0-"), "4-4-10", T)
            .withJournal("4-4-120", T)
            .withReverseStart(Map.of("c0-e0", "5-5-3"), T)
            .withForward(2, Map.of("c0-", "4-4-130"), T);
    assertNull(w.journalPosition());
    assertNull(w.reverseStart());
    assertEquals(Map.of("c0-", "4-4-130"), w.forwardStart());
  }

  @Test
  void targetsMustPartitionTheSourceExactly() {
    assertTrue(CreatePhase.rangeProblems(spec("c0-", "c0-e0", "e0-")).isEmpty());
    assertTrue(
        CreatePhase.rangeProblems(spec("c0-", "c0-e0", "f0-")).get(0).contains("contiguous"));
    assertTrue(CreatePhase.rangeProblems(spec("c0-", "c0-e0", "e0-f0")).get(0).contains("cover"));
    assertTrue(
        CreatePhase.rangeProblems(spec("80-c0", "80-e0")).get(0).contains("not inside"),
        "a target reaching outside the source has a reason of its own");
    assertTrue(
        CreatePhase.rangeProblems(spec("80-", "80-")).get(0).contains("range of source 80-"),
        "a target equal to the source has a reason of its own");
  }

  /** A spec of workflow {@code w} of keyspace {@code chat}, one server per shard, for tests. */
  static WorkflowSpec spec(String source, String... targets) {
    return new WorkflowSpec(
        "w",
        "chat",
        VSchema.parse("{\"sharded\": true, \"vindexes\": {}, \"tables\": {}}"),
        List.of(server(source)),
        java.util.Arrays.stream(targets).map(WorkflowRecordTest::server).toList(),
        "127.0.0.1:9092",
        "reshard",
        "reshard.shardmaps",
        Duration.ofSeconds(5),
        Duration.ofSeconds(2),
        Duration.ofSeconds(30));
  }

  private static ShardServer server(String shard) {
    return new ShardServer(shard, "db", "127.0.0.1", 3306, "root", "", 1);
  }
}
