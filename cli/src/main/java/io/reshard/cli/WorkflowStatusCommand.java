package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow status NAME}: one workflow's record as the daemon reports it: state, copy
 * progress, lag, last diff and error, and each stream.
 */
@Command(
    name = "status",
    mixinStandardHelpOptions = true,
    description = "A workflow's state, copy progress, lag and streams.")
final class WorkflowStatusCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Override
  public Integer call() throws Exception {
    AdminClient.Answer a = workflow.admin().workflow(name);
    if (a.status() != 200) {
      return workflow.failed("workflow status", a);
    }
    JsonNode w = a.body();
    if (workflow.json()) {
      workflow.out().println(w.toString());
    } else {
      printStatus(workflow.out(), w);
    }
    workflow.out().flush();
    return ExitCodes.OK;
  }

  /** Prints workflow record {@code w} as text: a heading line, then indented details. */
  static void printStatus(PrintWriter out, JsonNode w) {
    printHeading(out, w);
    printProgress(out, w);
    printStreams(out, w);
    if (!w.path("hosted").asBoolean(true)) {
      out.println("  (not running in the daemon)");
    }
  }

  /** {@code workflow NAME (KEYSPACE SOURCES -> TARGETS): STATE}. */
  private static void printHeading(PrintWriter out, JsonNode w) {
    out.println(
        "workflow "
            + w.path("name").asText()
            + " ("
            + w.path("keyspace").asText()
            + " "
            + String.join(",", WorkflowAdmin.texts(w.path("sources")))
            + " -> "
            + String.join(",", WorkflowAdmin.texts(w.path("targets")))
            + "): "
            + w.path("state").asText());
  }

  /** Copy done and progress, why a copy stopped, max lag, last diff, last error. */
  private static void printProgress(PrintWriter out, JsonNode w) {
    String state = w.path("state").asText();
    out.println(
        "  copy done:      "
            + (w.has("copy_done")
                ? w.get("copy_done").asText()
                : switch (state) {
                  case "COMPLETED" -> "true (the workflow is complete)";
                  case "CANCELLED" -> "no (the workflow was cancelled)";
                  default -> "unknown";
                }));
    JsonNode copy = w.path("copy");
    if (!copy.isMissingNode()) {
      out.printf(
          "  copy:           %,d of ~%,d rows, %,d rows/s%n",
          copy.path("rows_copied").asLong(),
          copy.path("estimated_rows").asLong(),
          copy.path("rows_per_s").asLong());
    }
    if (w.hasNonNull("copy_error")) {
      out.println(
          "  copy stopped:   "
              + w.get("copy_error").asText()
              + (w.path("copy_heals").asBoolean(false)
                  ? " (the daemon starts it again by itself)"
                  : " (waits for `reshard workflow resume` once the cause is fixed)"));
    }
    long stopped = 0;
    for (JsonNode s : w.path("streams")) {
      if ("ERROR".equals(s.path("state").asText())) {
        stopped++;
      }
    }
    List<String> notCapturing = new java.util.ArrayList<>();
    for (JsonNode c : w.path("captures")) {
      if (!"RUNNING".equals(c.path("state").asText())) {
        notCapturing.add(c.path("shard").asText());
      }
    }
    out.println(
        "  max lag:        "
            + (stopped > 0
                ? "unknown (" + stopped + " stream" + (stopped == 1 ? "" : "s") + " stopped)"
                : !notCapturing.isEmpty()
                    ? "unknown (the capture of "
                        + String.join(", ", notCapturing)
                        + " is not running: its streams are behind by what it has not read)"
                    : w.has("max_lag_ms")
                        ? Math.max(w.get("max_lag_ms").asLong(), runningLag(w)) + " ms"
                        : ended(state) ? "none (its streams have ended)" : "unknown"));
    if (w.hasNonNull("journal_position")) {
      out.println("  writes switched at source position " + w.get("journal_position").asText());
    }
    if (w.hasNonNull("reverse_position")) {
      out.println("  writes reversed at target position " + w.get("reverse_position").asText());
    }
    out.println(
        "  last diff:      "
            + (w.hasNonNull("last_diff_clean")
                ? (w.get("last_diff_clean").asBoolean() ? "clean" : "found differences")
                : "none"));
    out.println(
        "  last error:     "
            + (w.hasNonNull("last_error") ? w.get("last_error").asText() : "none"));
    if (w.hasNonNull("capture_gap")) {
      out.println("  missed changes: " + w.get("capture_gap").asText());
    }
    if (w.hasNonNull("way_on")) {
      out.println("  way on:         " + w.get("way_on").asText());
    }
    for (JsonNode c : w.path("captures")) {
      if (!"RUNNING".equals(c.path("state").asText())) {
        out.println(
            "  capture "
                + c.path("shard").asText()
                + ":  "
                + c.path("state").asText()
                + (c.hasNonNull("detail") ? ", " + c.get("detail").asText() : ""));
      }
    }
    printSchemaObjects(out, w);
  }

  /**
   * The largest lag of the streams that run, in either direction (the daemon's {@code max_lag_ms}
   * counts the forward streams only, which no longer run once writes are switched).
   */
  private static long runningLag(JsonNode w) {
    long max = 0;
    for (JsonNode s : w.path("streams")) {
      if ("RUNNING".equals(s.path("state").asText())) {
        max = Math.max(max, s.path("lag_ms").asLong(0));
      }
    }
    return max;
  }

  /** The trigger choice, and the views and routines create carried or not. */
  private static void printSchemaObjects(PrintWriter out, JsonNode w) {
    if ("follow-writes".equals(w.path("triggers").asText())) {
      List<String> names = new java.util.ArrayList<>();
      w.path("trigger_definitions").forEach(t -> names.add(t.asText()));
      out.println("  triggers:       follow writes: " + String.join(", ", names));
    }
    if (w.path("carried_objects").size() > 0) {
      List<String> names = new java.util.ArrayList<>();
      w.path("carried_objects").forEach(t -> names.add(t.asText()));
      out.println("  on the targets: " + String.join(", ", names));
    }
    if (w.hasNonNull("schema_warning")) {
      out.println("  WARNING:        " + w.get("schema_warning").asText());
    }
    if (w.path("stale").asBoolean(false)) {
      out.println("  NOTE:           " + w.path("stale_reason").asText());
    }
  }

  /** A workflow in a final state: nothing of it runs any more. */
  private static boolean ended(String state) {
    return state.equals("COMPLETED") || state.equals("CANCELLED");
  }

  /** One line per stream: direction, source -> target, state, lag and position. */
  private static void printStreams(PrintWriter out, JsonNode w) {
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
  }
}
