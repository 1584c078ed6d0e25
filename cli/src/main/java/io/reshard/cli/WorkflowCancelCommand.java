package io.reshard.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow cancel NAME}: asks the daemon to abandon a workflow that has not switched
 * writes.
 */
@Command(
    name = "cancel",
    mixinStandardHelpOptions = true,
    description =
        "Abandon a workflow before any write switch: streams stop, the targets' copies are"
            + " emptied. Refused after a write switch (reverse traffic first).")
final class WorkflowCancelCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Override
  public Integer call() throws Exception {
    return workflow.perform(name, "cancel", Map.of());
  }
}
