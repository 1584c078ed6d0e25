package io.reshard.cli;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code reshard workflow switch-traffic NAME --reads|--writes}: asks the daemon to switch the
 * moved range's reads, or writes, to the targets; returns once the switch has finished or been
 * rolled back.
 */
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
final class WorkflowSwitchTrafficCommand implements Callable<Integer> {
  @Mixin WorkflowAdmin workflow;

  @Parameters(
      index = "0",
      paramLabel = "NAME",
      converter = WorkflowName.class,
      description = "The workflow's name.")
  String name;

  /** Exactly one of the two. */
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
      p.put("timeout_ms", Long.toString(parseDuration(workflow.spec, timeout).toMillis()));
    }
    if (which.reads) {
      if (dryRun) {
        String message = "dry run: the next shard map would have the targets serve reads";
        workflow
            .out()
            .println(
                workflow.json()
                    ? WorkflowAdmin.JSON
                        .createObjectNode()
                        .put("workflow", name)
                        .put("dry_run", true)
                        .put("message", message)
                        .put("exit_code", ExitCodes.OK)
                        .toString()
                    : message);
        workflow.out().flush();
        return ExitCodes.OK;
      }
      return workflow.perform(name, "switch-reads", p);
    }
    p.put("force", Boolean.toString(force));
    p.put("dry_run", Boolean.toString(dryRun));
    return workflow.perform(name, "switch-writes", p);
  }

  /**
   * Parses {@code 30s}, {@code 500ms}, {@code 2m} or an ISO-8601 duration.
   *
   * @throws CommandLine.ParameterException (a usage error) unless it is a positive duration
   */
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
}
