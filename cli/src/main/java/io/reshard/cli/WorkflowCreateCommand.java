package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.reshard.switcher.TriggerMode;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.TypeConversionException;

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

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Option(names = "--keyspace", required = true, description = "The keyspace.")
  String keyspace;

  @Option(
      names = "--source",
      required = true,
      split = ",",
      description =
          "The shard to split, e.g. c0-, or several adjacent shards to merge or re-partition,"
              + " e.g. --source=-40,40-80.")
  List<String> source;

  @Option(
      names = "--targets",
      required = true,
      split = ",",
      description =
          "The new shards, e.g. --targets=c0-e0,e0- (together they must cover the sources'"
              + " range exactly, e.g. --targets=-80 for the merge above).")
  List<String> targets;

  @Option(
      names = "--target-servers",
      split = ",",
      description = "The servers of the targets, in order (default: the spares).")
  List<String> targetServers;

  @Option(
      names = "--auto-increment",
      paramLabel = "leave|sequence",
      description =
          "What to do with a moved table that has an AUTO_INCREMENT column: sequence (the default)"
              + " refuses one whose vschema names no sequence; leave means the application assigns"
              + " the ids.")
  String autoIncrement;

  @Option(
      names = "--triggers",
      paramLabel = "refuse|follow-writes",
      converter = TriggerChoice.class,
      description =
          "What to do with triggers on moved tables: refuse (the default: create names them and"
              + " writes nothing) or follow-writes (each trigger lives only where writes are"
              + " owned: moved to the targets when writes switch, back on reverse traffic).")
  String triggers;

  @Option(
      names = "--wait",
      description =
          "Return once the copy is done. Ctrl-C stops the waiting only (exit 130): the copy goes"
              + " on in the daemon.")
  boolean await;

  /** {@code --triggers}: checked while the command line is parsed, by the daemon's own rule. */
  static final class TriggerChoice implements ITypeConverter<String> {
    @Override
    public String convert(String value) {
      try {
        return TriggerMode.parse(value).option();
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  @Override
  public Integer call() throws Exception {
    AdminClient admin = workflow.admin();
    String watch = "; watch it with " + workflow.statusHint(name);
    AdminClient.Answer a;
    try (InterruptNotice notice = workflow.notice("the create goes on in the daemon" + watch)) {
      a = admin.act(name, "create", params());
      if (WorkflowAdmin.exitCode(a) == ExitCodes.OK && await) {
        notice.update("the copy goes on in the daemon" + watch);
        workflow
            .err()
            .println(
                "workflow create: "
                    + name
                    + " created; waiting for its copy (Ctrl-C stops the waiting, not the copy)");
        workflow.err().flush();
        int waited = waitForCopy(admin);
        if (waited != ExitCodes.OK) {
          return waited;
        }
        return workflow.report(a, name, admin, copied(admin));
      }
    }
    return workflow.report(a, name, admin);
  }

  /** What {@code --wait} says at its end: the copy's figures, the state and the next step. */
  private String copied(AdminClient admin) throws InterruptedException {
    JsonNode w = admin.workflow(name).body();
    JsonNode copy = w.path("copy");
    String figures =
        copy.isMissingNode()
            ? "copy done"
            : String.format(
                "copy done: %s at %,d rows/s",
                PlanReport.count(copy.path("rows_copied").asLong(), "row"),
                copy.path("rows_per_s").asLong());
    return "workflow "
        + name
        + ": "
        + figures
        + "; state "
        + w.path("state").asText("unknown")
        + "; the streams keep the targets caught up. Next: `reshard workflow diff "
        + name
        + "`, then `reshard workflow switch-traffic "
        + name
        + " --reads`";
  }

  /** The create action's parameters. */
  private Map<String, String> params() {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("keyspace", keyspace);
    p.put("source", String.join(",", source));
    p.put("targets", String.join(",", targets));
    if (targetServers != null) {
      p.put("target_servers", String.join(",", targetServers));
    }
    if (autoIncrement != null) {
      p.put("auto_increment", autoIncrement);
    }
    if (triggers != null) {
      p.put("triggers", triggers);
    }
    return p;
  }

  /**
   * Waits until the copy is done, drawing its progress; returns an exit code. A copy that stopped
   * on a failure the daemon heals by itself (a server or the broker that went away: {@code
   * copy_heals}) is waited for; one that waits for the operator ends the wait with {@link
   * ExitCodes#ERROR} and the daemon's reason, as a {@link FailureDocument} with {@code --output
   * json}.
   */
  private int waitForCopy(AdminClient admin) throws InterruptedException {
    ProgressBar bar = new ProgressBar(workflow.err(), ProgressBar.onTerminal());
    while (true) {
      AdminClient.Answer s = admin.workflow(name);
      if (s.status() != 200) {
        bar.finish();
        return workflow.failed("workflow create", s);
      }
      JsonNode w = s.body();
      if (w.hasNonNull("copy_error") && !w.path("copy_heals").asBoolean(false)) {
        bar.finish();
        return copyFailed(w.get("copy_error").asText());
      }
      String state = w.path("state").asText();
      boolean over = !state.equals("CREATED") && !state.equals("COPYING");
      // the last figures are drawn even off a terminal, where lines are a few seconds apart
      showCopy(bar, name, w.path("copy"), over || w.path("copy").path("done").asBoolean(false));
      if (over) {
        bar.finish();
        return ExitCodes.OK;
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  private int copyFailed(String reason) {
    String message =
        "the copy of workflow "
            + name
            + " failed: "
            + reason
            + ". The workflow stays in the daemon: see "
            + workflow.statusHint(name)
            + "; once the cause is fixed `reshard workflow resume` goes on with the copy from where"
            + " it stopped, and `reshard workflow cancel` abandons it";
    workflow.err().println("workflow create: " + message);
    workflow.err().flush();
    if (workflow.json()) {
      FailureDocument.print(workflow.out(), message, ExitCodes.ERROR);
    }
    return ExitCodes.ERROR;
  }

  /** Draws a workflow record's {@code copy} progress, if it has one. */
  private static void showCopy(ProgressBar bar, String name, JsonNode copy, boolean last) {
    if (copy.isMissingNode()) {
      return;
    }
    bar.show(
        last,
        "copy " + name,
        copy.path("rows_copied").asLong(),
        copy.path("estimated_rows").asLong(),
        String.format(
            "rows, %,d rows/s%s",
            copy.path("rows_per_s").asLong(),
            copy.path("done").asBoolean(false)
                ? ", done"
                : copy.hasNonNull("eta_s") ? ", ETA " + copy.get("eta_s").asLong() + " s" : ""));
  }
}
