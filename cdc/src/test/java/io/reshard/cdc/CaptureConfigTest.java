package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.config.ConfigKey;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CaptureConfigTest {
  private static Map<String, String> minimal() {
    return new HashMap<>(
        Map.of(
            "source.host", "127.0.0.1",
            "source.user", "cdc",
            "source.server.id", "900",
            "keyspace", "commerce",
            "shard", "-80",
            "kafka.bootstrap.servers", "127.0.0.1:9092",
            "topic.prefix", "prod"));
  }

  @Test
  void defaultsAndDerivedNames() {
    CaptureConfig c = CaptureConfig.from(minimal());
    assertEquals(3306, c.sourcePort());
    assertEquals("commerce", c.database());
    assertEquals("prod.commerce.-80", c.changeTopic());
    assertEquals("prod.reshard-capture-offsets", c.offsetsTopic());
    assertEquals("reshard-capture.prod.commerce.-80", c.transactionalId());
    assertEquals(5000, c.batchMaxRows());
    assertEquals(8 << 20, c.batchMaxBytes());
    assertEquals(Duration.ofSeconds(5), c.heartbeatInterval());
    assertEquals(CaptureConfig.START_CURRENT, c.startPosition());
    assertEquals(Set.of("commerce", "_reshard"), c.capturedDatabases());
  }

  @Test
  void shardNamesAreLowerCased() {
    Map<String, String> m = minimal();
    m.put("shard", "80-C0");
    assertEquals("80-c0", CaptureConfig.from(m).shard());
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    Map<String, String> m = minimal();
    m.remove("source.host");
    m.put("source.port", "70000");
    m.put("shard", "x-y");
    m.put("batch.max.rows", "zero");
    m.put("start.position", "1-1");
    m.put("no.such.key", "1");
    CaptureConfigException e =
        assertThrows(CaptureConfigException.class, () -> CaptureConfig.from(m));
    assertEquals(6, e.problems().size(), e.getMessage());
    assertTrue(e.getMessage().contains("source.host: required"), e.getMessage());
    assertTrue(e.getMessage().contains("no.such.key: unknown key"), e.getMessage());
    assertTrue(e.getMessage().contains("source.port = '70000'"), e.getMessage());
  }

  @Test
  void producerKeysPassThroughWithoutThePrefix() {
    Map<String, String> m = minimal();
    m.put("kafka.producer.max.request.size", "2000000");
    assertEquals("2000000", CaptureConfig.from(m).producerOverrides().get("max.request.size"));
  }

  @Test
  void startPositionAcceptsBothGtidFormats() {
    Map<String, String> m = minimal();
    m.put("start.position", "0-1-5,3-3-9");
    assertEquals("0-1-5,3-3-9", CaptureConfig.from(m).startPosition());
    m.put("start.position", "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5");
    CaptureConfig.from(m);
  }

  @Test
  void theDocsPageHoldsTheGeneratedTable() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "cdc-capture.md"));
    int start = page.indexOf("<!-- keys:start -->\n");
    int end = page.indexOf("<!-- keys:end -->");
    assertTrue(start >= 0 && end > start, "docs/cdc-capture.md has the keys markers");
    assertEquals(
        CaptureConfig.DEF.documentation(),
        page.substring(start + "<!-- keys:start -->\n".length(), end),
        "regenerate the table in docs/cdc-capture.md from CaptureConfig.DEF.documentation()");
  }

  @Test
  void everyKeyIsDocumented() {
    for (ConfigKey k : CaptureConfig.KEYS) {
      assertTrue(k.doc().length() > 10, k.name());
    }
  }
}
