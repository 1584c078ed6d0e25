package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The keyspace and workflow name rules. */
class NameRulesTest {

  @Test
  void asciiIdentifiersNameKeyspaces() {
    for (String ok :
        new String[] {"chat", "commerce", "t_workflowcliit_3", "_x", "A1", "k".repeat(64)}) {
      assertEquals(Optional.empty(), NameRules.keyspaceProblem(ok), ok);
    }
  }

  @Test
  void aKeyspaceNameWithAnAccentIsRefusedNamingTheCharacter() {
    String problem = NameRules.keyspaceProblem("café").orElseThrow();
    assertTrue(problem.startsWith("keyspace name \"café\" has 'é' (U+00E9): "), problem);
    assertTrue(problem.contains("1 to 64 ASCII letters, digits and '_'"), problem);
  }

  @Test
  void otherBadKeyspaceNamesAreRefused() {
    for (String bad : new String[] {"", "1chat", "chat.eu", "chat-eu", "a/b", "k".repeat(65)}) {
      assertTrue(NameRules.keyspaceProblem(bad).isPresent(), bad);
    }
    assertTrue(NameRules.keyspaceProblem("chat.eu").orElseThrow().contains("has '.'"));
    assertTrue(NameRules.keyspaceProblem("").orElseThrow().contains("is empty"));
    assertTrue(NameRules.keyspaceProblem("k".repeat(65)).orElseThrow().contains("65 characters"));
    assertTrue(NameRules.keyspaceProblem(null).isPresent());
  }

  @Test
  void workflowNamesAllowDotsAndDashesButNotEmptyOrAccented() {
    for (String ok : new String[] {"split1", "split-c0.2", "a_b"}) {
      assertEquals(Optional.empty(), NameRules.workflowProblem(ok), ok);
    }
    assertEquals(
        "workflow name \"\" is empty: use 1 to 64 ASCII letters, digits, '.', '_' and '-',"
            + " starting with a letter or digit",
        NameRules.workflowProblem("").orElseThrow());
    assertTrue(NameRules.workflowProblem("-x").isPresent());
    assertTrue(NameRules.workflowProblem("scission-é").orElseThrow().contains("has 'é'"));
  }
}
