package io.reshard.differ;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DiffReportTest {
  static DiffReport report() {
    Map<String, String> key = new LinkedHashMap<>();
    key.put("a", "7");
    key.put("b", "café");
    return new DiffReport(
        "wf1",
        "c0-e0",
        "4-4-1200",
        List.of(
            new TableDiff(
                "messages",
                100,
                97,
                1,
                1,
                1,
                0,
                List.of(
                    new DiffSample(
                        "messages", DiffSample.Kind.MISMATCHED, key, List.of("body", "b")),
                    new DiffSample(
                        "messages", DiffSample.Kind.EXTRA_SOURCE, Map.of("a", "9"), List.of()),
                    new DiffSample(
                        "messages",
                        DiffSample.Kind.EXTRA_TARGET,
                        Map.of("a", "0x00ff"),
                        List.of()))),
            new TableDiff("accounts", 5, 5, 0, 0, 0, 0, List.of())));
  }

  @Test
  void theJsonHasSnakeCaseCountsAndSamples() throws Exception {
    JsonNode root = new ObjectMapper().readTree(report().toJson());
    assertEquals("wf1", root.path("workflow").asText());
    assertEquals("c0-e0", root.path("target").asText());
    assertEquals("4-4-1200", root.path("source_position").asText());
    assertFalse(root.path("clean").asBoolean());
    JsonNode messages = root.path("tables").get(0);
    assertEquals(100, messages.path("compared").asLong());
    assertEquals(97, messages.path("matching").asLong());
    assertEquals(1, messages.path("mismatched").asLong());
    assertEquals(1, messages.path("extra_source").asLong());
    assertEquals(1, messages.path("extra_target").asLong());
    JsonNode sample = messages.path("samples").get(0);
    assertEquals("mismatched", sample.path("kind").asText());
    assertEquals("café", sample.path("key").path("b").asText());
    assertEquals("body", sample.path("columns").get(0).asText());
    assertEquals("extra_target", messages.path("samples").get(2).path("kind").asText());
    assertTrue(root.path("tables").get(1).path("samples").isEmpty());
  }

  @Test
  void theTableIsAlignedAndListsSamples() {
    String expected =
        "diff wf1, target c0-e0, source position 4-4-1200: 3 differences\n"
            + "table       compared    matching  mismatched  extra_source  extra_target\n"
            + "messages         100          97           1             1             1\n"
            + "accounts           5           5           0             0             0\n"
            + "samples:\n"
            + "  messages  mismatched    a=7,b=café  columns: body, b\n"
            + "  messages  extra_source  a=9\n"
            + "  messages  extra_target  a=0x00ff\n";
    assertEquals(expected, report().toTable());
  }

  @Test
  void aCleanReportSaysSo() {
    DiffReport clean =
        new DiffReport(
            "wf", "e0-", "4-4-1", List.of(new TableDiff("t", 3, 3, 0, 0, 0, 0, List.of())));
    assertTrue(clean.isClean());
    assertTrue(clean.toTable().startsWith("diff wf, target e0-, source position 4-4-1: clean\n"));
    assertTrue(clean.toJson().contains("\"clean\" : true"), clean.toJson());
  }

  @Test
  void storedSamplesRoundTrip() {
    List<DiffSample> samples = report().tables().get(0).samples();
    assertEquals(samples, DiffProgress.samples("messages", DiffProgress.samplesJson(samples)));
  }
}
