package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code reshard workflow list}: every workflow the daemon knows, one line each (or as JSON). */
@Command(name = "list", mixinStandardHelpOptions = true, description = "Every workflow.")
final class WorkflowListCommand implements Callable<Integer> {
  /** The columns: name, keyspace, state, sources, targets. */
  private static final String ROW = "%-20s %-10s %-18s %-8s %s%n";

  @Mixin WorkflowAdmin workflow;

  @Override
  public Integer call() throws Exception {
    AdminClient.Answer a = workflow.admin().get("/workflows");
    if (a.status() != 200) {
      return workflow.failed("workflow list", a);
    }
    if (workflow.json()) {
      workflow.out().println(a.body().toString());
    } else {
      printTable(a.body());
    }
    workflow.out().flush();
    return ExitCodes.OK;
  }

  /** Prints the header and one row per workflow record. */
  private void printTable(JsonNode workflows) {
    workflow.out().printf(ROW, "name", "keyspace", "state", "source", "targets");
    for (JsonNode w : workflows) {
      workflow
          .out()
          .printf(
              ROW,
              w.path("name").asText(),
              w.path("keyspace").asText(),
              w.path("state").asText(),
              String.join(",", WorkflowAdmin.texts(w.path("sources"))),
              String.join(",", WorkflowAdmin.texts(w.path("targets"))));
    }
  }
}
