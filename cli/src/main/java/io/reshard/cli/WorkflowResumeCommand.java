package io.reshard.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow resume NAME}: asks the daemon to resume a workflow's streams that stopped
 * in error.
 */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description =
        "Resume the streams stopped in error (see workflow status): one stopped on a DDL passes"
            + " over it once you have applied it to the targets; one stopped on a row its target"
            + " refused tries the row again once you have fixed the target. It does not start"
            + " a capture that stopped for good again: then it refuses, naming that capture (do"
            + " what its message says, then restart the daemon).")
final class WorkflowResumeCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Override
  public Integer call() throws Exception {
    return workflow.perform(name, "resume", Map.of());
  }
}
