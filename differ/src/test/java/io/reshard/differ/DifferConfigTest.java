package io.reshard.differ;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reshard.core.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DifferConfigTest {
  @Test
  void theKeysDefaultsAreTheBuildersDefaults() {
    assertEquals(DifferConfig.defaults(), DifferConfig.from(Map.of()));
  }

  @Test
  void everyKeyReachesItsComponent() {
    assertEquals(
        new DifferConfig(500, 3, false, Duration.ofSeconds(9), ServerFlavor.MYSQL8),
        DifferConfig.from(
            Map.of(
                "diff.chunk.rows", "500",
                "diff.sample.keys", "3",
                "diff.catch.up.timeout.ms", "9000",
                "diff.server.flavor", "mysql8")));
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                DifferConfig.from(
                    Map.of(
                        "diff.chunk.rows", "-1",
                        "diff.catch.up.timeout.ms", "soon",
                        "diff.server.flavor", "MySQL")));
    assertEquals(
        List.of(
            "diff.chunk.rows = '-1': must be between 1 and 10000000",
            "diff.catch.up.timeout.ms = 'soon': is not an integer",
            "diff.server.flavor = 'MySQL': must be one of [auto, mariadb, mysql8]"),
        e.problems());
  }
}
