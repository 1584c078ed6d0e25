package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow diff NAME [--repair]}: asks the daemon to diff the targets against the
 * source and waits for the answer, drawing the table being diffed on standard error meanwhile. Exit
 * {@link ExitCodes#VERIFICATION_FAILED} if the diff found differences.
 */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description =
        "Compare the targets with the source at one consistent position; exit 4 if anything"
            + " differs.")
final class WorkflowDiffCommand implements Callable<Integer> {
  /** How often the running diff's progress is read while waiting for its answer. */
  private static final long POLL_MILLIS = 500;

  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
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
    AdminClient admin = workflow.admin();
    AdminClient.Answer a;
    try (InterruptNotice n =
        workflow.notice(
            "the diff goes on in the daemon; its result shows in "
                + workflow.statusHint(name)
                + " (last diff)")) {
      a = awaitDiff(admin);
    }
    int code = exitCode(a);
    print(a, code);
    return code;
  }

  /** Posts the diff action in the background and waits for its answer, showing its progress. */
  private AdminClient.Answer awaitDiff(AdminClient admin) throws InterruptedException {
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
    ProgressBar bar = new ProgressBar(workflow.err(), ProgressBar.onTerminal());
    AdminClient.Answer a = null;
    while (a == null) {
      try {
        a = call.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        JsonNode w = admin.workflow(name).body();
        String running = w.path("diff_running").asText("");
        if (!running.isEmpty()) {
          bar.show("diff " + name, "table " + running);
        }
      } catch (ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r ? r : new RuntimeException(e);
      }
    }
    bar.finish();
    return a;
  }

  /** The answer's exit code, {@link ExitCodes#VERIFICATION_FAILED} for a diff that is not clean. */
  private static int exitCode(AdminClient.Answer a) {
    int code = WorkflowAdmin.exitCode(a);
    JsonNode data = a.body().path("data");
    if (code == ExitCodes.OK && data.path("clean").isBoolean() && !data.get("clean").asBoolean()) {
      return ExitCodes.VERIFICATION_FAILED;
    }
    return code;
  }

  /**
   * Prints the diff's report: with {@code --output json} its data with the workflow's name and
   * {@code exit_code} (and {@code error} unless the diff was clean, that message on standard error
   * too); otherwise its message, on standard error if it did not run.
   */
  private void print(AdminClient.Answer a, int code) {
    boolean ran = code == ExitCodes.OK || code == ExitCodes.VERIFICATION_FAILED;
    JsonNode data = a.body().path("data");
    if (!ran || (workflow.json() && code != ExitCodes.OK)) {
      workflow.err().println("workflow diff: " + a.message());
    }
    if (workflow.json()) {
      ObjectNode doc = data.isObject() ? (ObjectNode) data : WorkflowAdmin.JSON.createObjectNode();
      doc.put("workflow", name);
      if (code != ExitCodes.OK) {
        doc.put("error", a.message());
      }
      doc.put("exit_code", code);
      workflow.out().println(doc.toString());
    } else if (ran) {
      workflow.out().println(a.message());
    }
    workflow.out().flush();
    workflow.err().flush();
  }
}
