package io.reshard.cli;

import picocli.CommandLine.Command;

/**
 * {@code reshard workflow ...}: the operator's commands for one reshard, performed by the daemon
 * (its admin endpoint). Each verb is its own class, registered here; each returns when its step has
 * finished or been rolled back, and the exit code says which ({@link ExitCodes}). With {@code
 * --output json} exactly one JSON document goes to standard output; progress and messages go to
 * standard error. What the verbs share is the {@link WorkflowAdmin} mixin.
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
      WorkflowCreateCommand.class,
      WorkflowListCommand.class,
      WorkflowStatusCommand.class,
      WorkflowDiffCommand.class,
      WorkflowSwitchTrafficCommand.class,
      WorkflowReverseTrafficCommand.class,
      WorkflowCompleteCommand.class,
      WorkflowCancelCommand.class,
      WorkflowResumeCommand.class
    })
final class WorkflowCommand {
  private WorkflowCommand() {}
}
