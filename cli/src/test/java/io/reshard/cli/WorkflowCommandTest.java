package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The workflow commands' exit codes, durations and usage errors (no daemon needed). */
class WorkflowCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  private static AdminClient.Answer answer(int status, String outcome) throws Exception {
    return new AdminClient.Answer(
        status, JSON.readTree("{\"outcome\":\"" + outcome + "\",\"message\":\"m\"}"));
  }

  @Test
  void outcomesMapToTheDocumentedExitCodes() throws Exception {
    assertEquals(ExitCodes.OK, WorkflowAdmin.exitCode(answer(200, "DONE")));
    assertEquals(ExitCodes.REFUSED, WorkflowAdmin.exitCode(answer(409, "REFUSED")));
    assertEquals(ExitCodes.CUTOVER_ABORTED, WorkflowAdmin.exitCode(answer(409, "ABORTED")));
    assertEquals(ExitCodes.RETRY_LATER, WorkflowAdmin.exitCode(answer(503, "RETRY_LATER")));
    assertEquals(ExitCodes.USAGE, WorkflowAdmin.exitCode(answer(400, "BAD_REQUEST")));
    assertEquals(ExitCodes.REFUSED, WorkflowAdmin.exitCode(answer(404, "NOT_FOUND")));
    assertEquals(
        ExitCodes.REFUSED,
        WorkflowAdmin.exitCode(new AdminClient.Answer(401, JSON.readTree("{\"error\":\"x\"}"))));
  }

  @Test
  void workflowNamesAreUrlEncodedInAdminPaths() {
    assertEquals("/workflows/split1", AdminClient.workflowPath("split1"));
    assertEquals("/workflows/caf%C3%A9%20a%2Fb%3F", AdminClient.workflowPath("café a/b?"));
    assertEquals("/workflows/", AdminClient.workflowPath(""));
    java.net.URI uri =
        java.net.URI.create("http://127.0.0.1:1").resolve(AdminClient.workflowPath("café a/b?"));
    assertEquals("/workflows/caf%C3%A9%20a%2Fb%3F", uri.getRawPath(), "one path segment");
    assertEquals("/workflows/café a/b?", uri.getPath(), "decoded back");
    assertEquals(null, uri.getQuery());
  }

  @Test
  void aCompletedWorkflowNoDaemonHostsSaysWhatItDidNotUnknown() throws Exception {
    String out =
        status(
            "{\"name\":\"split1\",\"keyspace\":\"chat\",\"state\":\"COMPLETED\","
                + "\"sources\":[\"c0-\"],\"targets\":[\"c0-e0\",\"e0-\"],"
                + "\"journal_position\":\"4-4-120\",\"reverse_position\":null,"
                + "\"last_diff_clean\":true,\"last_error\":null,\"hosted\":false}");
    assertTrue(out.contains("copy done:      true (the workflow is complete)"), out);
    assertTrue(out.contains("max lag:        none (its streams have ended)"), out);
    assertTrue(out.contains("writes switched at source position 4-4-120"), out);
    assertTrue(!out.contains("unknown"), out);
  }

  @Test
  void aCaptureThatIsNotRunningIsShownWithWhy() throws Exception {
    String out =
        status(
            "{\"name\":\"split1\",\"keyspace\":\"chat\",\"state\":\"COPYING\","
                + "\"sources\":[\"c0-\"],\"targets\":[\"c0-e0\",\"e0-\"],\"hosted\":true,"
                + "\"captures\":[{\"shard\":\"c0-\",\"state\":\"RETRYING\","
                + "\"detail\":\"cannot reach the source\"}]}");
    assertTrue(out.contains("  capture c0-:  RETRYING, cannot reach the source"), out);
    assertTrue(
        out.contains("max lag:        unknown (the capture of c0- is not running"),
        "no 0 ms while the source is not read: " + out);
    String quiet =
        status(
            "{\"name\":\"split1\",\"keyspace\":\"chat\",\"state\":\"COPYING\","
                + "\"sources\":[\"c0-\"],\"targets\":[\"c0-e0\",\"e0-\"],\"hosted\":true,"
                + "\"captures\":[{\"shard\":\"c0-\",\"state\":\"RUNNING\"}]}");
    assertTrue(!quiet.contains("capture c0-"), "a running capture is not news");
  }

  @Test
  void everyCommandAHintNamesGetsTheTargetSoItCanBePasted() {
    String c = "--cluster /tmp/c1";
    assertEquals(
        "Next: `reshard workflow diff --cluster /tmp/c1 split1`, then `reshard workflow"
            + " switch-traffic --cluster /tmp/c1 split1 --reads`",
        WorkflowAdmin.withTarget(
            "Next: `reshard workflow diff split1`, then `reshard workflow switch-traffic split1"
                + " --reads`",
            c));
    assertEquals(
        "run `reshard workflow resume --cluster /tmp/c1 split1 --skip-capture-stop`",
        WorkflowAdmin.withTarget("run `reshard workflow resume split1 --skip-capture-stop`", c));
    assertEquals(
        "already `reshard workflow status --cluster /tmp/x split1`",
        WorkflowAdmin.withTarget("already `reshard workflow status --cluster /tmp/x split1`", c));
    assertEquals(
        "run `reshard keyspace init --cluster /tmp/c1` for it",
        WorkflowAdmin.withTarget("run `reshard keyspace init` for it", c));
    assertEquals("nothing to run", WorkflowAdmin.withTarget("nothing to run", c));
  }

  @Test
  void afterTheWriteSwitchTheMaxLagIsTheReverseStreams() throws Exception {
    String out =
        status(
            "{\"name\":\"split1\",\"keyspace\":\"chat\",\"state\":\"WRITES_SWITCHED\","
                + "\"sources\":[\"c0-\"],\"targets\":[\"c0-e0\",\"e0-\"],\"max_lag_ms\":0,"
                + "\"streams\":[{\"direction\":\"reverse\",\"source\":\"c0-e0,e0-\","
                + "\"target\":\"c0-\",\"state\":\"RUNNING\",\"lag_ms\":112,\"position\":{}}],"
                + "\"hosted\":true}");
    assertTrue(out.contains("max lag:        112 ms"), out);
  }

  @Test
  void aStoppedStreamMakesTheLagUnknownNotZero() throws Exception {
    String out =
        status(
            "{\"name\":\"split1\",\"keyspace\":\"chat\",\"state\":\"RUNNING\","
                + "\"sources\":[\"-\"],\"targets\":[\"-80\",\"80-\"],\"max_lag_ms\":0,"
                + "\"streams\":[{\"direction\":\"forward\",\"source\":\"-\",\"target\":\"-80\","
                + "\"state\":\"ERROR\",\"lag_ms\":0,\"position\":{}},"
                + "{\"direction\":\"forward\",\"source\":\"-\",\"target\":\"80-\","
                + "\"state\":\"RUNNING\",\"lag_ms\":0,\"position\":{}}],"
                + "\"hosted\":true}");
    assertTrue(out.contains("max lag:        unknown (1 stream stopped)"), out);
    assertTrue(!out.contains("max lag:        0 ms"), out);
  }

  @Test
  void timeoutsReadAsDurations() {
    CommandLine.Model.CommandSpec spec =
        new CommandLine(new WorkflowStatusCommand()).getCommandSpec();
    assertEquals(Duration.ofSeconds(30), WorkflowSwitchTrafficCommand.parseDuration(spec, "30s"));
    assertEquals(Duration.ofMillis(500), WorkflowSwitchTrafficCommand.parseDuration(spec, "500ms"));
    assertEquals(Duration.ofMinutes(2), WorkflowSwitchTrafficCommand.parseDuration(spec, "2m"));
    assertEquals(Duration.ofSeconds(5), WorkflowSwitchTrafficCommand.parseDuration(spec, "PT5S"));
    for (String bad : new String[] {"0s", "-1s", "soon", ""}) {
      try {
        WorkflowSwitchTrafficCommand.parseDuration(spec, bad);
        throw new AssertionError(bad + " was accepted");
      } catch (CommandLine.ParameterException e) {
        assertTrue(e.getMessage().contains("--timeout"), e.getMessage());
      }
    }
  }

  @Test
  void switchTrafficNeedsReadsOrWritesAndOneClusterSource() {
    StringWriter err = new StringWriter();
    CommandLine cli = ReshardCli.newCommandLine();
    cli.setErr(new PrintWriter(err));
    cli.setOut(new PrintWriter(new StringWriter()));
    assertEquals(
        ExitCodes.USAGE, cli.execute("workflow", "switch-traffic", "--cluster", "/tmp/x", "w"));
    assertEquals(
        ExitCodes.USAGE,
        cli.execute(
            "workflow",
            "switch-traffic",
            "--cluster",
            "/tmp/x",
            "--config",
            "c.yaml",
            "w",
            "--reads"));
    assertEquals(
        ExitCodes.USAGE,
        cli.execute("workflow", "status", "--cluster", "/tmp/x", "--output", "yaml", "w"));
  }

  /** What {@code workflow status} prints for the record {@code json}. */
  private static String status(String json) throws Exception {
    StringWriter text = new StringWriter();
    WorkflowStatusCommand.printStatus(new PrintWriter(text, true), JSON.readTree(json));
    return text.toString();
  }
}
