package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reshard.core.config.ConfigException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ApplyConfigTest {
  @Test
  void theKeysDefaultsAreTodaysConstants() {
    ApplyConfig.Settings d = ApplyConfig.Settings.from(Map.of());
    assertEquals(ApplyConfig.Settings.defaults(), d);
    assertEquals(2000, d.maxRowsPerCommit());
    assertEquals(Duration.ofMillis(20), d.pollTimeout());
  }

  @Test
  void keysAreReadAndCheckedTogether() {
    assertEquals(
        new ApplyConfig.Settings(10, Duration.ofMillis(100)),
        ApplyConfig.Settings.from(
            Map.of("apply.max.rows.per.commit", "10", "apply.poll.timeout.ms", "100")));
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ApplyConfig.Settings.from(
                    Map.of("apply.max.rows.per.commit", "0", "apply.poll.timeout.ms", "0")));
    assertEquals(
        List.of(
            "apply.max.rows.per.commit = '0': must be between 1 and 1000000",
            "apply.poll.timeout.ms = '0': must be between 1 and 60000"),
        e.problems());
  }
}
