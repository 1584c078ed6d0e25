package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reshard plan}'s usage errors, found before any server is asked (the cluster directory here
 * holds no cluster): each is exit 2 with a message naming the option and what to give.
 */
class PlanCommandTest {
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  private Run plan(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine cli = ReshardCli.newCommandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 5];
    all[0] = "plan";
    all[1] = "--cluster";
    all[2] = dir.toString();
    all[3] = "--keyspace";
    all[4] = "chat";
    System.arraycopy(args, 0, all, 5, args.length);
    int exit = cli.execute(all);
    return new Run(exit, out.toString(), err.toString());
  }

  private static void assertUsage(Run r, String message) {
    assertEquals(ExitCodes.USAGE, r.exit(), r.err());
    assertTrue(r.err().contains(message), r.err());
  }

  @Test
  void fewerThanOneRangeIsRefused() {
    assertUsage(
        plan("--shards", "0"), "--shards 0: the number of target ranges must be at least 1");
    assertUsage(plan("--shards", "-3"), "--shards -3: the number of target ranges");
  }

  @Test
  void bothShardsAndMaxShareAreRefused() {
    Run r = plan("--shards", "8", "--max-share", "0.15");
    assertUsage(r, "mutually exclusive");
    assertTrue(r.err().contains("--shards") && r.err().contains("--max-share"), r.err());
  }

  @Test
  void neitherShardsNorMaxShareIsRefused() {
    Run r = plan();
    assertUsage(r, "Missing required argument");
    assertTrue(r.err().contains("--shards=N | --max-share=P"), r.err());
  }

  @Test
  void aShareOutsideZeroToOneIsRefused() {
    assertUsage(plan("--max-share", "0"), "--max-share 0.0: the largest share of one range");
    assertUsage(plan("--max-share", "1.5"), "must be more than 0 and at most 1 (0.15 = 15%)");
    assertUsage(plan("--max-share", "15%"), "Invalid value for option '--max-share'");
  }

  @Test
  void aSampleOfNoRowsIsRefused() {
    assertUsage(plan("--shards", "2", "--sample", "0"), "--sample 0: read at least 1 row");
  }

  @Test
  void printTargetsWithJsonOutputIsRefusedAsOneJsonDocument() throws Exception {
    Run r = plan("--shards", "2", "--print-targets", "--output", "json");
    assertUsage(r, "--print-targets and --output json both choose what is printed");
    JsonNode doc = new ObjectMapper().readTree(r.out());
    assertEquals(ExitCodes.USAGE, doc.get("exit_code").asInt());
  }

  @Test
  void everyUsageErrorIsOneJsonDocumentUnderOutputJson() throws Exception {
    for (String[] args :
        new String[][] {
          {"--shards", "0", "--output", "json"},
          {"--shards", "2", "--max-share", "0.5", "--output", "json"},
          {"--max-share", "2", "--output", "json"}
        }) {
      Run r = plan(args);
      assertEquals(ExitCodes.USAGE, r.exit(), String.join(" ", args) + "\n" + r.err());
      JsonNode doc = new ObjectMapper().readTree(r.out());
      assertEquals(ExitCodes.USAGE, doc.get("exit_code").asInt(), r.out());
      assertTrue(r.err().contains(doc.get("error").asText().lines().findFirst().orElseThrow()));
    }
  }

  @Test
  void aDirectoryWithoutAClusterIsRefused() {
    Run r = plan("--shards", "2");
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(r.err().contains(dir.toString()), r.err());
  }

  @Test
  void planIsListedBeforeWorkflowInHelp() {
    StringWriter out = new StringWriter();
    picocli.CommandLine cli = ReshardCli.newCommandLine();
    cli.setOut(new PrintWriter(out));
    cli.execute("--help");
    String help = out.toString();
    int plan = help.indexOf("\n  plan ");
    assertTrue(plan > 0 && plan < help.indexOf("\n  workflow "), help);
  }
}
