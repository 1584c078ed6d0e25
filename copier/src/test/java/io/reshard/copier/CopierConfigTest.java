package io.reshard.copier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reshard.core.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CopierConfigTest {
  @Test
  void theKeysDefaultsAreTheBuildersDefaults() {
    assertEquals(CopierConfig.defaults(), CopierConfig.from(Map.of()));
  }

  @Test
  void everyKeyReachesItsComponent() {
    CopierConfig c =
        CopierConfig.from(
            Map.ofEntries(
                Map.entry("copy.chunk.target.ms", "250"),
                Map.entry("copy.chunk.rows", "300"),
                Map.entry("copy.chunk.rows.min", "10"),
                Map.entry("copy.chunk.rows.max", "400"),
                Map.entry("copy.table.parallelism", "4"),
                Map.entry("copy.statement.max.rows", "50"),
                Map.entry("copy.statement.max.bytes", "65536"),
                Map.entry("copy.coverage.timeout.ms", "7000"),
                Map.entry("copy.throttle.recheck.ms", "20"),
                Map.entry("copy.max.chunk.attempts", "9"),
                Map.entry("copy.lock.wait.timeout.ms", "3000")));
    assertEquals(
        new CopierConfig(
            Duration.ofMillis(250),
            300,
            10,
            400,
            4,
            50,
            65536,
            Duration.ofSeconds(7),
            Duration.ofMillis(20),
            9,
            Duration.ofSeconds(3)),
        c);
  }

  @Test
  void everyProblemIsReportedAtOnceAndChunkBoundsAreCrossChecked() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                CopierConfig.from(
                    Map.of(
                        "copy.chunk.rows", "0",
                        "copy.lock.wait.timeout.ms", "500",
                        "copy.chunk.size", "5")));
    assertEquals(
        List.of(
            "copy.chunk.size: unknown key",
            "copy.chunk.rows = '0': must be between 1 and 10000000",
            "copy.lock.wait.timeout.ms = '500': must be between 1000 and 86400000"),
        e.problems());
    e =
        assertThrows(
            ConfigException.class, () -> CopierConfig.from(Map.of("copy.chunk.rows", "50000")));
    assertEquals(
        List.of(
            "copy.chunk.rows (50000) must lie within [copy.chunk.rows.min, copy.chunk.rows.max]"
                + " = [100, 20000]"),
        e.problems());
  }

  @Test
  void boundsAreCrossCheckedEvenWhenAnotherKeyIsWrong() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                CopierConfig.from(
                    Map.of(
                        "copy.chunk.rows.min", "5000",
                        "copy.chunk.rows.max", "100",
                        "copy.lock.wait.timeout.ms", "500")));
    assertEquals(
        List.of(
            "copy.lock.wait.timeout.ms = '500': must be between 1000 and 86400000",
            "copy.chunk.rows.max (100) must be at least copy.chunk.rows.min (5000)"),
        e.problems());
  }
}
