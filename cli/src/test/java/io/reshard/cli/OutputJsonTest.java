package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code --output json} gives exactly one JSON document, {@code {"error", "exit_code"}}, on
 * standard output for every failure that needs no running cluster: usage errors found while parsing
 * and those a command raises, bad workflow names (refused before any request), and failures raised
 * as exceptions.
 */
class OutputJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  /** One in-process run: exit code, standard output, standard error. */
  record Run(int exitCode, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = ReshardCli.newCommandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  /**
   * The one JSON document on {@code r}'s standard output, checked to be a failure document with
   * {@code r}'s exit code and an error that standard error shows too.
   */
  static JsonNode failureDocument(Run r) throws Exception {
    List<JsonNode> docs = new ArrayList<>();
    try (MappingIterator<JsonNode> it = JSON.readerFor(JsonNode.class).readValues(r.out())) {
      it.forEachRemaining(docs::add);
    }
    assertEquals(
        1, docs.size(), "one JSON document on stdout:\n" + r.out() + "\nstderr:\n" + r.err());
    JsonNode doc = docs.get(0);
    assertEquals(r.exitCode(), doc.path("exit_code").asInt(-1), doc.toString());
    String error = doc.path("error").asText("");
    assertFalse(error.isBlank(), doc.toString());
    assertTrue(r.err().contains(error.lines().findFirst().orElseThrow()), r.err());
    return doc;
  }

  /** A cluster directory whose servers are all down: reaching its daemon is refused (exit 3). */
  private Path stoppedCluster() {
    new ClusterDescriptor(
            List.of(
                new ClusterDescriptor.Server(
                    "db1", "shard", "127.0.0.1", 23306, "/tmp/s1", "root", 1, 0, "/tmp/d1")),
            new ClusterDescriptor.Broker("127.0.0.1:29092", 29092, 29093, 0))
        .write(tmp);
    return tmp;
  }

  @Test
  void everyUsageErrorIsOneDocumentWithExitTwo() throws Exception {
    String dir = tmp.toString();
    List<String[]> usageErrors =
        List.of(
            new String[] {
              "workflow", "status", "--cluster", dir, "--output", "json", "--bogus", "w"
            },
            new String[] {"workflow", "status", "--cluster", dir, "--output=json"},
            new String[] {"workflow", "create", "--cluster", dir, "--output", "json", "w"},
            new String[] {
              "workflow",
              "switch-traffic",
              "--cluster",
              dir,
              "--output",
              "json",
              "--reads",
              "--timeout",
              "soon",
              "w"
            },
            new String[] {"workflow", "stauts", "--cluster", dir, "--output", "json", "w"},
            new String[] {"shardmap", "show", "--cluster", dir, "--output", "json"},
            new String[] {"keyspace", "init", "--cluster", dir, "--output", "json"},
            new String[] {"daemon", "--output", "json"},
            new String[] {
              "daemon", "--cluster", dir, "--check", "--admin-port", "x", "--output=json"
            });
    for (String[] args : usageErrors) {
      Run r = run(args);
      assertEquals(ExitCodes.USAGE, r.exitCode(), String.join(" ", args) + "\n" + r.err());
      failureDocument(r);
    }
  }

  @Test
  void aUsageErrorSaysWhatIsWrongAndWhereTheHelpIsNotTheWholeHelp() throws Exception {
    Run missing = run("workflow", "create", "--cluster", tmp.toString(), "split");
    assertEquals(ExitCodes.USAGE, missing.exitCode(), missing.err());
    assertTrue(missing.err().contains("Missing required option"), missing.err());
    assertTrue(
        missing.err().contains("See `reshard workflow create --help` for its options"),
        missing.err());
    assertTrue(!missing.err().contains("Usage:"), "no page of help after it: " + missing.err());
    Run typo = run("workflow", "stauts", "--cluster", tmp.toString(), "w");
    assertEquals(ExitCodes.USAGE, typo.exitCode(), typo.err());
    assertTrue(
        typo.err().startsWith("`reshard workflow` has no command stauts; its commands are "),
        typo.err());
    assertTrue(typo.err().contains("Did you mean"), "picocli's suggestion: " + typo.err());
    assertTrue(typo.err().contains("status"), typo.err());
    assertTrue(!typo.err().contains("Unmatched arguments"), typo.err());
  }

  @Test
  void aVSchemaFileThatDoesNotExistIsAUsageErrorThatSaysSo() throws Exception {
    String missing = tmp.resolve("nofile.json").toString();
    for (String verb : List.of("init", "set-vschema")) {
      List<String> args =
          new ArrayList<>(
              List.of(
                  "keyspace",
                  verb,
                  "--cluster",
                  tmp.toString(),
                  "--keyspace",
                  "chat",
                  "--vschema",
                  missing,
                  "--output",
                  "json"));
      if (verb.equals("init")) {
        args.add("--shards=-80,80-");
      }
      Run r = run(args.toArray(String[]::new));
      assertEquals(ExitCodes.USAGE, r.exitCode(), verb + ": " + r.err());
      String error = failureDocument(r).get("error").asText();
      assertTrue(error.contains(missing + ": no such file"), verb + ": " + error);
    }
  }

  @Test
  void aUsageErrorWithoutOutputJsonLeavesStandardOutputEmpty() {
    Run r = run("workflow", "status", "--cluster", tmp.toString(), "--bogus", "w");
    assertEquals(ExitCodes.USAGE, r.exitCode());
    assertEquals("", r.out());
    assertTrue(r.err().contains("Unknown option: '--bogus'"), r.err());
    Run yaml = run("workflow", "status", "--cluster", tmp.toString(), "--output", "yaml", "w");
    assertEquals(ExitCodes.USAGE, yaml.exitCode());
    assertEquals("", yaml.out(), "json was not asked for");
  }

  @Test
  void aNameThatCannotBeAWorkflowsIsAUsageErrorBeforeAnyRequest() throws Exception {
    String dir = stoppedCluster().toString();
    for (String name : List.of("", "a/b", "two words", "café", "-x", "x".repeat(65))) {
      for (String verb : List.of("create", "status", "diff", "cancel")) {
        List<String> args = new ArrayList<>(List.of("workflow", verb, "--cluster", dir));
        if (verb.equals("create")) {
          args.addAll(List.of("--keyspace", "ks", "--source", "80-", "--targets=80-c0,c0-"));
        }
        args.addAll(List.of("--output", "json", "--", name)); // "--": "-x" is no option
        Run r = run(args.toArray(String[]::new));
        // had it reached for the daemon, the stopped cluster would refuse it with exit 3
        assertEquals(ExitCodes.USAGE, r.exitCode(), verb + " '" + name + "': " + r.err());
        assertTrue(
            r.err().contains("use 1 to 64 ASCII letters, digits, '.', '_' and '-'"),
            verb + " '" + name + "': " + r.err());
        assertFalse(r.err().contains("not running"), r.err());
        assertTrue(failureDocument(r).get("error").asText().contains("workflow name"), r.out());
      }
    }
    Run valid = run("workflow", "status", "--cluster", dir, "split-1.b_2");
    assertEquals(ExitCodes.REFUSED, valid.exitCode(), "a valid name goes on to the daemon");
    assertTrue(valid.err().contains("is not running"), valid.err());
  }

  @Test
  void aFailureRaisedAsAnExceptionIsOneDocumentWithItsExitCode() throws Exception {
    Path none = tmp.resolve("no-cluster");
    Run r = run("workflow", "status", "--cluster", none.toString(), "w", "--output", "json");
    assertEquals(ExitCodes.REFUSED, r.exitCode(), r.err());
    assertTrue(failureDocument(r).get("error").asText().contains("there is no cluster in"));

    Path cfg = tmp.resolve("d.yaml");
    Files.writeString(
        cfg,
        "kafka.bootstrap.servers: 127.0.0.1:1\nshards: [{keyspace: ks, shard: '-', host: h,"
            + " user: u, server.id: 3}]\n");
    Run noToken = run("workflow", "list", "--config", cfg.toString(), "--output", "json");
    assertEquals(ExitCodes.REFUSED, noToken.exitCode(), noToken.err());
    assertTrue(failureDocument(noToken).get("error").asText().contains("no admin.token"));

    Run stopped =
        run("workflow", "list", "--cluster", stoppedCluster().toString(), "--output", "json");
    assertEquals(ExitCodes.REFUSED, stopped.exitCode(), stopped.err());
    assertTrue(failureDocument(stopped).get("error").asText().contains("is not running"));
  }

  @Test
  void helpListsEveryExitCodeWithInterruptedAt130() {
    Run r = run("--help");
    assertEquals(ExitCodes.OK, r.exitCode());
    assertTrue(r.out().contains("130  interrupted (Ctrl-C) while waiting"), r.out());
    assertTrue(r.out().contains("  6  retry later"), r.out());
  }
}
