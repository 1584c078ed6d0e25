package io.reshard.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow complete NAME [--drop-source-data]}: asks the daemon to finish a switched
 * workflow.
 */
@Command(
    name = "complete",
    mixinStandardHelpOptions = true,
    description =
        "Finish a switched workflow: reverse streams stop, the source leaves the shard map and"
            + " stays read-only with its data (unless --drop-source-data).")
final class WorkflowCompleteCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Option(names = "--drop-source-data", description = "Drop the moved tables on the source.")
  boolean dropSourceData;

  @Override
  public Integer call() throws Exception {
    return workflow.perform(
        name, "complete", Map.of("drop_source_data", Boolean.toString(dropSourceData)));
  }
}
