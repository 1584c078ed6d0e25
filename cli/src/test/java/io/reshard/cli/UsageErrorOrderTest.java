package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reshard.cli.OutputJsonTest.Run;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An unknown option is reported before the missing required options picocli finds first: the
 * misspelt option is most often the "missing" one, and fixing it is the operator's first step.
 */
class UsageErrorOrderTest {
  @TempDir Path tmp;

  @Test
  void aMisspeltRequiredOptionIsReportedAsUnknownWithTheRightSpellingThenWhatIsMissing() {
    Run r =
        OutputJsonTest.run(
            "workflow",
            "create",
            "--cluster",
            tmp.toString(),
            "--keyspace",
            "chat",
            "--sorce=-",
            "--targets=-80,80-",
            "split");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    assertTrue(r.err().startsWith("Unknown option: '--sorce=-'"), r.err());
    assertTrue(r.err().contains("--source"), "picocli's suggestion: " + r.err());
    assertTrue(r.err().contains("then: Missing required option"), r.err());
  }

  @Test
  void anUnknownFlagBesideAMissingOneComesFirstInTheJsonDocumentToo() throws Exception {
    Run r =
        OutputJsonTest.run(
            "workflow", "create", "--cluster", tmp.toString(), "--bogus", "--output", "json", "w");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    assertTrue(r.err().startsWith("Unknown option: '--bogus'"), r.err());
    JsonNode doc = OutputJsonTest.failureDocument(r);
    assertTrue(doc.get("error").asText().startsWith("Unknown option: '--bogus'"), doc.toString());
  }

  @Test
  void aMissingOptionAloneIsReportedAsBefore() {
    Run r = OutputJsonTest.run("workflow", "create", "--cluster", tmp.toString(), "split");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    assertTrue(r.err().startsWith("Missing required option"), r.err());
  }
}
