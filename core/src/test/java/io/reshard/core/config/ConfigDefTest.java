package io.reshard.core.config;

import static io.reshard.core.config.ConfigKey.Type.BOOLEAN;
import static io.reshard.core.config.ConfigKey.Type.INT;
import static io.reshard.core.config.ConfigKey.Type.LONG;
import static io.reshard.core.config.ConfigKey.Type.PASSWORD;
import static io.reshard.core.config.ConfigKey.Type.STRING;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigDefTest {
  private static final ConfigDef DEF =
      new ConfigDef(
          List.of(
              new ConfigKey("host", STRING, null, Validators.nonBlank(), "The host."),
              new ConfigKey("port", INT, "3306", Validators.intRange(1, 65535), "The port."),
              new ConfigKey("wait.ms", LONG, "200", Validators.longRange(0, 1000), "A wait (ms)."),
              new ConfigKey("on", BOOLEAN, "true", Validators.bool(), "Switched on."),
              new ConfigKey("password", PASSWORD, "", Validators.emptyOrAtLeast(8), "Secret."),
              new ConfigKey("min", INT, "1", Validators.intRange(0, 100), "Least."),
              new ConfigKey("max", INT, "10", Validators.intRange(0, 100), "Most.")),
          v ->
              v.has("min") && v.has("max") && v.getInt("min") > v.getInt("max")
                  ? List.of("min must not exceed max")
                  : List.of());

  @Test
  void defaultsApplyAndValuesAreStrippedAndTyped() {
    ConfigValues v = DEF.parse(Map.of("host", "  h1 ", "wait.ms", "5", "password", " p@ss word "));
    assertEquals("h1", v.get("host"));
    assertEquals(3306, v.getInt("port"));
    assertEquals(Duration.ofMillis(5), v.getMillis("wait.ms"));
    assertEquals(5L, v.getLong("wait.ms"));
    assertTrue(v.getBoolean("on"));
    assertEquals(" p@ss word ", v.password("password"), "a secret is taken as given");
  }

  @Test
  void everyProblemIsReportedAtOnceInKeyOrder() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                DEF.parse(
                    Map.of(
                        "port", "70000",
                        "wait.ms", "soon",
                        "on", "yes",
                        "password", "short-1",
                        "zzz", "1",
                        "aaa", "2")));
    assertEquals(
        List.of(
            "aaa: unknown key",
            "zzz: unknown key",
            "host: required (The host.)",
            "port = '70000': must be between 1 and 65535",
            "wait.ms = 'soon': is not an integer",
            "on = 'yes': must be one of [true, false]",
            "password: must be empty (mutating calls off) or at least 8 characters"),
        e.problems());
    assertTrue(e.getMessage().startsWith("invalid configuration (7 problems):\n  - aaa"));
    assertFalse(e.getMessage().contains("short-1"), "a secret's value is never echoed");
  }

  @Test
  void aLenientParseNamesKeysWithThePrefixAndResolvesSecrets() {
    List<String> problems = new ArrayList<>();
    ConfigValues v =
        DEF.parse(
            Map.of("port", "x", "password", "${env:NOPE}", "other", "ignored"),
            "shards.3.",
            (key, text, p) -> {
              p.accept(key + ": cannot resolve");
              return null;
            },
            problems);
    assertEquals(
        List.of(
            "shards.3.host: required (The host.)",
            "shards.3.port = 'x': is not an integer",
            "shards.3.password: cannot resolve"),
        problems);
    assertFalse(v.has("port"));
    assertTrue(v.has("wait.ms"));
    assertThrows(IllegalArgumentException.class, () -> v.get("port"));
  }

  @Test
  void crossChecksRunWithTheOtherProblemsOnTheKeysThatAreFine() {
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> DEF.parse(Map.of("host", "h", "min", "50", "max", "5")));
    assertEquals(List.of("min must not exceed max"), e.problems());
    List<String> problems = new ArrayList<>();
    DEF.parse(Map.of("min", "50", "max", "5"), "", ConfigDef.SecretResolver.AS_GIVEN, problems);
    assertEquals(
        List.of("host: required (The host.)", "min must not exceed max"),
        problems,
        "every problem at once");
    problems.clear();
    DEF.parse(
        Map.of("host", "h", "min", "500", "max", "5"),
        "",
        ConfigDef.SecretResolver.AS_GIVEN,
        problems);
    assertEquals(
        List.of("min = '500': must be between 0 and 100"),
        problems,
        "a wrong bound is not compared");
  }

  @Test
  void secretsAreReadOnlyAsSecretsAndHiddenInToString() {
    ConfigValues v = DEF.parse(Map.of("host", "h", "password", "hunter2-long"));
    assertThrows(IllegalArgumentException.class, () -> v.get("password"));
    assertThrows(IllegalArgumentException.class, () -> v.password("host"));
    assertThrows(IllegalArgumentException.class, () -> v.get("nope"));
    assertFalse(v.toString().contains("hunter2"), v.toString());
    assertTrue(v.toString().contains("password = [hidden]"), v.toString());
    assertTrue(
        DEF.parse(Map.of("host", "h")).toString().contains("password = [not set]"), "empty secret");
  }

  @Test
  void keysAreUniqueAndFoundByName() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new ConfigDef(
                List.of(
                    new ConfigKey("a", STRING, "", Validators.any(), "A."),
                    new ConfigKey("a", INT, "1", Validators.any(), "A again."))));
    assertTrue(DEF.contains("port"));
    assertFalse(DEF.contains("nope"));
    assertEquals(INT, DEF.find("port").orElseThrow().type());
    assertEquals(List.of("x"), DEF.unknownKeys(Map.of("x", "1", "port", "2")));
  }

  @Test
  void theReferenceTableHasOneRowPerKey() {
    String doc = DEF.documentation();
    assertTrue(doc.startsWith("| key | type | default | meaning |\n|---|---|---|---|\n"), doc);
    assertTrue(doc.contains("| `host` | string | required | The host. |\n"), doc);
    assertTrue(doc.contains("| `port` | int | `3306` | The port. |\n"), doc);
    assertTrue(doc.contains("| `on` | boolean | `true` | Switched on. |\n"), doc);
    assertTrue(doc.contains("| `password` | password | (empty) | Secret. |\n"), doc);
    assertTrue(DEF.tableRows("p[].").startsWith("| `p[].host` |"));
    assertEquals(2 + DEF.keys().size(), doc.lines().count());
  }
}
