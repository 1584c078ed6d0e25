package io.reshard.cli;

import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow resume NAME [--skip-capture-stop]}: asks the daemon to resume a
 * workflow's streams that stopped in error, or to start a capture that stopped on a change it
 * cannot publish again past it.
 */
@Command(
    name = "resume",
    mixinStandardHelpOptions = true,
    description =
        "Resume the streams stopped in error (see workflow status): one stopped on a DDL passes"
            + " over it once you have applied it to the targets; one stopped on a row its target"
            + " refused tries the row again once you have fixed the target. It does not start"
            + " a capture that stopped for good again: then it refuses, naming that capture and"
            + " the way on (see workflow status).")
final class WorkflowResumeCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  @Option(
      names = "--skip-capture-stop",
      description =
          "Start the source's capture that stopped on a change it cannot publish (a row image"
              + " that is not FULL, say) again past it, from the source's position now: fix the"
              + " server setting first. The changes it skips are recorded on the workflow, and"
              + " traffic switches only after `workflow diff NAME --repair` is clean. Refused"
              + " (exit 3) unless such a capture has stopped.")
  boolean skipCaptureStop;

  @Override
  public Integer call() throws Exception {
    return workflow.perform(
        name, "resume", skipCaptureStop ? Map.of("skip_capture_stop", "true") : Map.of());
  }
}
