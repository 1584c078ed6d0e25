package io.reshard.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow reverse-traffic NAME}: asks the daemon to move a switched workflow's
 * traffic back to the source; returns once that has finished or been refused.
 */
@Command(
    name = "reverse-traffic",
    mixinStandardHelpOptions = true,
    description =
        "Move writes and reads back to the source (after a write switch); forward streams run"
            + " again from the source's position then.")
final class WorkflowReverseTrafficCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Override
  public Integer call() throws Exception {
    return workflow.perform(name, "reverse-traffic", Map.of());
  }
}
