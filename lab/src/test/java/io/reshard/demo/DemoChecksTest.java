package io.reshard.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DemoChecksTest {

  private static EndState clean() {
    EndState e = new EndState();
    e.expectedIds = 1000;
    e.idsFoundOnce = 1000;
    e.credits = 5000;
    return e;
  }

  private static Map<String, Object> split(long writerErrors) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("writer_errors", writerErrors);
    m.put("reader_misses", 0L);
    m.put("reader_duplicates", 0L);
    m.put("diff_mismatches", 0L);
    return m;
  }

  private static final Transfers.Result MULTI = new Transfers.Result(200, 4, 3, 6000, 5970, 30, 0);
  private static final Transfers.Result SINGLE =
      new Transfers.Result(200, 0, 0, 5970, 5970, 0, 100);

  @Test
  void aCleanRunPassesEveryCheckAndSaysTheLessons() {
    DemoChecks c = DemoChecks.of(clean(), 5000, split(0), MULTI, SINGLE);
    assertTrue(c.passed(), c.table());
    assertEquals(11, c.all().size());
    String table = c.table();
    assertTrue(table.contains("30 (3 crashes × 10)"), table);
    assertTrue(table.contains(DemoChecks.MULTI_LESSON), table);
    assertTrue(table.contains(DemoChecks.SINGLE_LESSON), table);
    assertEquals("PASS", c.json().get(0).get("result"));
  }

  @Test
  void everyWrongFigureFailsItsOwnCheck() {
    EndState e = clean();
    e.idsFoundOnce = 999;
    e.idsMissing = 1;
    Transfers.Result multiLostMore = new Transfers.Result(200, 4, 3, 6000, 5960, 40, 0);
    Transfers.Result singleLost = new Transfers.Result(200, 0, 0, 5970, 5960, 10, 100);
    DemoChecks c = DemoChecks.of(e, 4990, split(2), multiLostMore, singleLost);
    assertFalse(c.passed());
    List<String> failed = new ArrayList<>();
    for (DemoChecks.Check k : c.all()) {
      if (!k.pass()) {
        failed.add(k.name());
      }
    }
    assertEquals(
        List.of(
            "every expected row found exactly once",
            "credits after the split equal those before it",
            "application writes failed during the split",
            "multi mode: credits lost to crashes between commits",
            "single mode: cross-shard transfers refused, nothing lost"),
        failed);
    assertTrue(c.table().lines().anyMatch(l -> l.contains("2 failed") && l.endsWith("FAIL")));
  }

  @Test
  void theHtmlReportDrawsBothChartsWithTheMarks() {
    List<long[]> samples = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      samples.add(new long[] {i * 10_000_000L, (i == 200 ? 900 : 2) * 1_000_000L});
    }
    Map<String, Long> marks = new LinkedHashMap<>();
    marks.put("copy", 500_000_000L);
    marks.put("writes switched", 2_000_000_000L);
    List<Map<String, Object>> skew =
        List.of(
            Map.of("shards", 2, "busiest_share", 0.55), Map.of("shards", 4, "busiest_share", 0.3));
    String html =
        DemoHtml.page(
            DemoChecks.of(clean(), 5000, split(0), MULTI, SINGLE),
            Map.of("copy", "1.0 s"),
            samples,
            marks,
            skew);
    assertTrue(html.contains("reshard demo: passed"), html);
    assertTrue(html.contains(">writes switched</text>"), html);
    assertTrue(html.contains(">900 ms</text>"), "a stall above the scale says its value");
    assertEquals(2, html.split("<rect ", -1).length - 1);
    assertTrue(html.contains(">55.0%</text>"), html);
  }
}
