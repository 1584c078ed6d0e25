package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code reshard workflow ...}: the operator's commands for one reshard, performed by the daemon
 * (its admin endpoint). Each returns when its step has finished or been rolled back; the exit code
 * says which ({@link ExitCodes}). With {@code --output json} exactly one JSON document goes to
 * standard output; progress and messages go to standard error.
 */
@Command(
    name = "workflow",
    mixinStandardHelpOptions = true,
    description = {
      "Run a reshard: create, copy, diff, switch traffic, reverse it, complete or cancel.",
      "The daemon runs the workflows; with --cluster DIR it is started in the background if it"
          + " does not run. With --config FILE the daemon of that configuration must run."
    },
    footer = ExitCodes.HELP_TEXT,
    subcommands = {
      WorkflowCommand.Create.class,
      WorkflowCommand.ListCommand.class,
      WorkflowCommand.Status.class,
      WorkflowCommand.Diff.class,
      WorkflowCommand.SwitchTraffic.class,
      WorkflowCommand.ReverseTraffic.class,
      WorkflowCommand.Complete.class,
      WorkflowCommand.Cancel.class,
      WorkflowCommand.Resume.class
    })
final class WorkflowCommand {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WorkflowCommand() {}

  /** What every workflow subcommand shares. */
  abstract static class Base implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Mixin ClusterTarget target;

    PrintWriter out() {
      return spec.commandLine().getOut();
    }

    PrintWriter err() {
      return spec.commandLine().getErr();
    }

    AdminClient admin() throws InterruptedException {
      return target.admin(err());
    }

    /** Prints a failed read's error (as JSON with {@code --output json}); returns its code. */
    int failed(String what, AdminClient.Answer a) {
      int code = exitCode(a);
      err().println(what + ": " + a.message());
      if (target.json()) {
        out().println(JSON.createObjectNode().put("error", a.message()).put("exit_code", code));
      }
      out().flush();
      err().flush();
      return code;
    }

    /** Performs {@code action} on workflow {@code name}, prints the answer, returns its code. */
    int perform(String name, String action, Map<String, String> params)
        throws InterruptedException {
      AdminClient admin = admin();
      return report(admin.act(name, action, params), name, admin);
    }

    /** Prints an action's answer and returns its exit code. */
    int report(AdminClient.Answer a, String workflow, AdminClient admin)
        throws InterruptedException {
      int code = exitCode(a);
      if (target.json()) {
        ObjectNode doc = a.body().isObject() ? (ObjectNode) a.body() : JSON.createObjectNode();
        AdminClient.Answer now = admin.get("/workflows/" + workflow);
        if (now.status() == 200) {
          doc.set("workflow_status", now.body());
        }
        doc.put("exit_code", code);
        out().println(doc.toString());
      } else if (code == ExitCodes.OK) {
        out().println(a.message());
      } else {
        err().println(a.message());
      }
      out().flush();
      err().flush();
      return code;
    }
  }

  /** The exit code of an answer. */
  static int exitCode(AdminClient.Answer a) {
    String outcome = a.outcome();
    if (outcome != null) {
      return switch (outcome) {
        case "DONE", "ACCEPTED" -> ExitCodes.OK;
        case "BAD_REQUEST" -> ExitCodes.USAGE;
        case "ABORTED" -> ExitCodes.CUTOVER_ABORTED;
        case "RETRY_LATER" -> ExitCodes.RETRY_LATER;
        default -> ExitCodes.REFUSED;
      };
    }
    return switch (a.status()) {
      case 200, 202 -> ExitCodes.OK;
      case 400 -> ExitCodes.USAGE;
      case 401, 403, 404, 409 -> ExitCodes.REFUSED;
      case 503 -> ExitCodes.RETRY_LATER;
      default -> ExitCodes.ERROR;
    };
  }

  /** {@code workflow create}. */
  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description = {
        "Create a workflow that moves --source to --targets: checks the tables, creates them on"
            + " the targets, starts the change streams from position P0 and the copy.",
        "Targets go on the cluster's spare servers in order unless --target-servers names them."
            + " With --wait it returns once the copy is done (a progress bar on a terminal)."
      })
  static final class Create extends Base {
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
      AdminClient admin = admin();
      Map<String, String> p = new LinkedHashMap<>();
      p.put("keyspace", keyspace);
      p.put("source", source);
      p.put("targets", String.join(",", targets));
      if (targetServers != null) {
        p.put("target_servers", String.join(",", targetServers));
      }
      AdminClient.Answer a = admin.act(name, "create", p);
      if (exitCode(a) == ExitCodes.OK && await) {
        int waited = waitForCopy(admin, name, err());
        if (waited != ExitCodes.OK) {
          return waited;
        }
      }
      return report(a, name, admin);
    }
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
        return exitCode(s);
      }
      JsonNode w = s.body();
      String state = w.path("state").asText();
      if (w.hasNonNull("copy_error")) {
        bar.finish();
        err.println("workflow " + name + ": the copy failed: " + w.get("copy_error").asText());
        return ExitCodes.ERROR;
      }
      JsonNode copy = w.path("copy");
      if (!copy.isMissingNode()) {
        bar.show(
            "copy " + name,
            copy.path("rows_copied").asLong(),
            copy.path("estimated_rows").asLong(),
            String.format(
                "rows, %,d rows/s%s",
                copy.path("rows_per_s").asLong(),
                copy.hasNonNull("eta_s") ? ", ETA " + copy.get("eta_s").asLong() + " s" : ""));
      }
      if (!state.equals("CREATED") && !state.equals("COPYING")) {
        bar.finish();
        return ExitCodes.OK;
      }
      Thread.sleep(500);
    }
  }

  /** {@code workflow list}. */
  @Command(name = "list", mixinStandardHelpOptions = true, description = "Every workflow.")
  static final class ListCommand extends Base {
    @Override
    public Integer call() throws Exception {
      AdminClient.Answer a = admin().get("/workflows");
      if (a.status() != 200) {
        return failed("workflow list", a);
      }
      if (target.json()) {
        out().println(a.body().toString());
      } else {
        out()
            .printf(
                "%-20s %-10s %-18s %-8s %s%n", "name", "keyspace", "state", "source", "targets");
        for (JsonNode w : a.body()) {
          out()
              .printf(
                  "%-20s %-10s %-18s %-8s %s%n",
                  w.path("name").asText(),
                  w.path("keyspace").asText(),
                  w.path("state").asText(),
                  String.join(",", texts(w.path("sources"))),
                  String.join(",", texts(w.path("targets"))));
        }
      }
      out().flush();
      return ExitCodes.OK;
    }
  }

  /** {@code workflow status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description = "A workflow's state, copy progress, lag and streams.")
  static final class Status extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    @Override
    public Integer call() throws Exception {
      AdminClient.Answer a = admin().get("/workflows/" + name);
      if (a.status() != 200) {
        return failed("workflow status", a);
      }
      JsonNode w = a.body();
      if (target.json()) {
        out().println(w.toString());
      } else {
        printStatus(out(), w);
      }
      out().flush();
      return ExitCodes.OK;
    }
  }

  static void printStatus(PrintWriter out, JsonNode w) {
    out.println(
        "workflow "
            + w.path("name").asText()
            + " ("
            + w.path("keyspace").asText()
            + " "
            + String.join(",", texts(w.path("sources")))
            + " -> "
            + String.join(",", texts(w.path("targets")))
            + "): "
            + w.path("state").asText());
    out.println("  copy done:      " + w.path("copy_done").asText("unknown"));
    JsonNode copy = w.path("copy");
    if (!copy.isMissingNode()) {
      out.printf(
          "  copy:           %,d of ~%,d rows, %,d rows/s%n",
          copy.path("rows_copied").asLong(),
          copy.path("estimated_rows").asLong(),
          copy.path("rows_per_s").asLong());
    }
    out.println(
        "  max lag:        "
            + (w.has("max_lag_ms") ? w.get("max_lag_ms").asLong() + " ms" : "unknown"));
    out.println(
        "  last diff:      "
            + (w.hasNonNull("last_diff_clean")
                ? (w.get("last_diff_clean").asBoolean() ? "clean" : "found differences")
                : "none"));
    out.println(
        "  last error:     "
            + (w.hasNonNull("last_error") ? w.get("last_error").asText() : "none"));
    for (JsonNode s : w.path("streams")) {
      out.println(
          "  stream "
              + s.path("direction").asText()
              + " "
              + s.path("source").asText()
              + " -> "
              + s.path("target").asText()
              + ": "
              + s.path("state").asText()
              + ", lag "
              + s.path("lag_ms").asLong()
              + " ms, at "
              + s.path("position").toString());
    }
    if (!w.path("hosted").asBoolean(true)) {
      out.println("  (not running in the daemon)");
    }
  }

  /** {@code workflow diff}. */
  @Command(
      name = "diff",
      mixinStandardHelpOptions = true,
      description =
          "Compare the targets with the source at one consistent position; exit 4 if anything"
              + " differs.")
  static final class Diff extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    @Option(
        names = "--repair",
        description =
            "Write the source's rows over mismatched and missing target rows and delete the"
                + " targets' extra rows (at one consistent position, the streams paused), then"
                + " diff again; exit 4 if that diff is not clean.")
    boolean repair;

    @Override
    public Integer call() throws Exception {
      AdminClient admin = admin();
      CompletableFuture<AdminClient.Answer> call =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return admin.act(name, "diff", repair ? Map.of("repair", "true") : Map.of());
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new CommandFailure(ExitCodes.ERROR, "interrupted");
                }
              });
      ProgressBar bar = new ProgressBar(err(), ProgressBar.onTerminal());
      AdminClient.Answer a = null;
      long chunksSeen = 0;
      while (a == null) {
        try {
          a = call.get(500, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
          JsonNode w = admin.get("/workflows/" + name).body();
          String running = w.path("diff_running").asText("");
          if (!running.isEmpty()) {
            chunksSeen++;
            bar.show("diff " + name, chunksSeen, 0, running);
          }
        } catch (java.util.concurrent.ExecutionException e) {
          throw e.getCause() instanceof RuntimeException r ? r : new RuntimeException(e);
        }
      }
      bar.finish();
      int code = exitCode(a);
      JsonNode data = a.body().path("data");
      if (code == ExitCodes.OK
          && data.path("clean").isBoolean()
          && !data.get("clean").asBoolean()) {
        code = ExitCodes.VERIFICATION_FAILED;
      }
      if (target.json()) {
        ObjectNode doc = data.isObject() ? (ObjectNode) data : JSON.createObjectNode();
        doc.put("workflow", name);
        if (code != ExitCodes.OK && code != ExitCodes.VERIFICATION_FAILED) {
          doc.put("error", a.message());
        }
        out().println(doc.toString());
      } else if (code == ExitCodes.OK || code == ExitCodes.VERIFICATION_FAILED) {
        out().println(a.message());
      } else {
        err().println("workflow diff: " + a.message());
      }
      out().flush();
      err().flush();
      return code;
    }
  }

  /** {@code workflow switch-traffic}. */
  @Command(
      name = "switch-traffic",
      mixinStandardHelpOptions = true,
      description = {
        "Switch reads, or writes, of the moved range to the targets.",
        "--writes fences the source, waits (at most --timeout) until the targets have applied its"
            + " last position, writes the journal record, starts reverse streams and publishes the"
            + " next shard map. Refused (exit 3) while copying, with a stream in error, with lag"
            + " above workflow.max.lag.ms, or without a clean diff (unless --force). A timeout rolls"
            + " back (exit 5): the source is writable again and the map unchanged."
      })
  static final class SwitchTraffic extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    static final class Which {
      @Option(names = "--reads", required = true, description = "Switch reads.")
      boolean reads;

      @Option(names = "--writes", required = true, description = "Switch writes.")
      boolean writes;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Which which;

    @Option(
        names = "--timeout",
        description = "How long to wait for the targets to catch up, e.g. 30s, 500ms, 2m.")
    String timeout;

    @Option(names = "--dry-run", description = "Print what would happen; change nothing.")
    boolean dryRun;

    @Option(names = "--force", description = "Switch writes without a clean diff.")
    boolean force;

    @Override
    public Integer call() throws Exception {
      Map<String, String> p = new LinkedHashMap<>();
      if (timeout != null) {
        p.put("timeout_ms", Long.toString(parseDuration(spec, timeout).toMillis()));
      }
      if (which.reads) {
        if (dryRun) {
          out().println("dry run: the next shard map would have the targets serve reads");
          out().flush();
          return ExitCodes.OK;
        }
        AdminClient admin = admin();
        return report(admin.act(name, "switch-reads", p), name, admin);
      }
      p.put("force", Boolean.toString(force));
      p.put("dry_run", Boolean.toString(dryRun));
      AdminClient admin = admin();
      return report(admin.act(name, "switch-writes", p), name, admin);
    }
  }

  /** Parses {@code 30s}, {@code 500ms}, {@code 2m} or an ISO-8601 duration. */
  static Duration parseDuration(CommandLine.Model.CommandSpec spec, String text) {
    String t = text.strip().toLowerCase(Locale.ROOT);
    try {
      Duration d;
      if (t.startsWith("p")) {
        d = Duration.parse(t.toUpperCase(Locale.ROOT));
      } else if (t.endsWith("ms")) {
        d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2)));
      } else if (t.endsWith("s")) {
        d = Duration.ofSeconds(Long.parseLong(t.substring(0, t.length() - 1)));
      } else if (t.endsWith("m")) {
        d = Duration.ofMinutes(Long.parseLong(t.substring(0, t.length() - 1)));
      } else {
        throw new NumberFormatException(text);
      }
      if (d.isNegative() || d.isZero()) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(),
          "--timeout " + text + ": give a positive duration like 30s, 500ms or 2m");
    }
  }

  /** {@code workflow reverse-traffic}. */
  @Command(
      name = "reverse-traffic",
      mixinStandardHelpOptions = true,
      description =
          "Move writes and reads back to the source (after a write switch); forward streams run"
              + " again from the source's position then.")
  static final class ReverseTraffic extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    @Override
    public Integer call() throws Exception {
      return perform(name, "reverse-traffic", Map.of());
    }
  }

  /** {@code workflow complete}. */
  @Command(
      name = "complete",
      mixinStandardHelpOptions = true,
      description =
          "Finish a switched workflow: reverse streams stop, the source leaves the shard map and"
              + " stays read-only with its data (unless --drop-source-data).")
  static final class Complete extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    @Option(names = "--drop-source-data", description = "Drop the moved tables on the source.")
    boolean dropSourceData;

    @Override
    public Integer call() throws Exception {
      return perform(
          name, "complete", Map.of("drop_source_data", Boolean.toString(dropSourceData)));
    }
  }

  /** {@code workflow cancel}. */
  @Command(
      name = "cancel",
      mixinStandardHelpOptions = true,
      description =
          "Abandon a workflow before any write switch: streams stop, the targets' copies are"
              + " emptied. Refused after a write switch (reverse traffic first).")
  static final class Cancel extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    @Override
    public Integer call() throws Exception {
      return perform(name, "cancel", Map.of());
    }
  }

  /** {@code workflow resume}. */
  @Command(
      name = "resume",
      mixinStandardHelpOptions = true,
      description =
          "Resume the streams stopped in error (see workflow status): one stopped on a DDL passes"
              + " over it once you have applied it to the targets; one stopped on a row its target"
              + " refused tries the row again once you have fixed the target. It does not start"
              + " a capture that stopped for good again: then it refuses, naming that capture (do"
              + " what its message says, then restart the daemon).")
  static final class Resume extends Base {
    @Parameters(index = "0", description = "The workflow's name.")
    String name;

    @Override
    public Integer call() throws Exception {
      return perform(name, "resume", Map.of());
    }
  }

  static List<String> texts(JsonNode array) {
    List<String> l = new java.util.ArrayList<>();
    array.forEach(n -> l.add(n.asText()));
    return l;
  }
}
