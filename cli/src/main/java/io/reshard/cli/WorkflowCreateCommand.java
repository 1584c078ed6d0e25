package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow create NAME}: asks the daemon to create a workflow; with {@code --wait}
 * it then follows the copy until it is done, drawing its progress on standard error.
 */
@Command(
    name = "create",
    mixinStandardHelpOptions = true,
    description = {
      "Create a workflow that moves --source to --targets: checks the tables, creates them on"
          + " the targets, starts the change streams from position P0 and the copy.",
      "Targets go on the cluster's spare servers in order unless --target-servers names them."
          + " With --wait it returns once the copy is done (a progress bar on a terminal)."
    })
final class WorkflowCreateCommand implements Callable<Integer> {
  /** How often {@code --wait} reads the workflow's copy progress; a progress bar's refresh. */
  private static final long POLL_MILLIS = 500;

  @Mixin WorkflowAdmin workflow;

  @Parameters(index = "0", description = "The workflow's name.")
  String name;

  @Option(names = "--keyspace", required = true, description = "The keyspace.")
  String keyspace;

  @Option(names = "--source", required = true, description = "The shard to split, e.g. c0-.")
  String source;

  @Option(
      names = "--targets",
      required = true,
      split = ",",
      description = "The new shards, e.g. --targets=c0-e0,e0- (they must cover the source).")
  List<String> targets;

  @Option(
      names = "--target-servers",
      split = ",",
      description = "The servers of the targets, in order (default: the spares).")
  List<String> targetServers;

  @Option(names = "--wait", description = "Return once the copy is done.")
  boolean await;

  @Override
  public Integer call() throws Exception {
    AdminClient admin = workflow.admin();
    AdminClient.Answer a = admin.act(name, "create", params());
    if (WorkflowAdmin.exitCode(a) == ExitCodes.OK && await) {
      int waited = waitForCopy(admin, name, workflow.err());
      if (waited != ExitCodes.OK) {
        return waited;
      }
    }
    return workflow.report(a, name, admin);
  }

  /** The create action's parameters. */
  private Map<String, String> params() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("keyspace", keyspace);
    p.put("source", source);
    p.put("targets", String.join(",", targets));
    if (targetServers != null) {
      p.put("target_servers", String.join(",", targetServers));
    }
    return p;
  }

  /** Waits until the copy of {@code name} is done, drawing its progress; returns an exit code. */
  static int waitForCopy(AdminClient admin, String name, PrintWriter err)
      throws InterruptedException {
    ProgressBar bar = new ProgressBar(err, ProgressBar.onTerminal());
    while (true) {
      AdminClient.Answer s = admin.get("/workflows/" + name);
      if (s.status() != 200) {
        bar.finish();
        err.println("workflow " + name + ": " + s.message());
        return WorkflowAdmin.exitCode(s);
      }
      JsonNode w = s.body();
      String state = w.path("state").asText();
      if (w.hasNonNull("copy_error")) {
        bar.finish();
        err.println("workflow " + name + ": the copy failed: " + w.get("copy_error").asText());
        return ExitCodes.ERROR;
      }
      showCopy(bar, name, w.path("copy"));
      if (!state.equals("CREATED") && !state.equals("COPYING")) {
        bar.finish();
        return ExitCodes.OK;
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /** Draws a workflow record's {@code copy} progress, if it has one. */
  private static void showCopy(ProgressBar bar, String name, JsonNode copy) {
    if (copy.isMissingNode()) {
      return;
    }
    bar.show(
        "copy " + name,
        copy.path("rows_copied").asLong(),
        copy.path("estimated_rows").asLong(),
        String.format(
            "rows, %,d rows/s%s",
            copy.path("rows_per_s").asLong(),
            copy.hasNonNull("eta_s") ? ", ETA " + copy.get("eta_s").asLong() + " s" : ""));
  }
}
