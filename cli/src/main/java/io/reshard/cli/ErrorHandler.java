package io.reshard.cli;

import io.reshard.cluster.ClusterException;
import io.reshard.daemon.DaemonConfigException;
import io.reshard.daemon.DaemonStartException;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.ParseResult;

/**
 * Maps the exceptions a command throws to a one-line message on standard error and an exit code
 * from {@link ExitCodes}, and with {@code --output json} to the {@link FailureDocument} on standard
 * output. Expected failures print their message only; unexpected ones print the stack trace too,
 * since they are bugs. Usage errors picocli finds while parsing go to {@link UsageErrorHandler}.
 */
final class ErrorHandler implements IExecutionExceptionHandler {

  @Override
  public int handleExecutionException(Exception e, CommandLine cmd, ParseResult parsed) {
    int code = exitCodeOf(e);
    String name = cmd.getCommandName();
    if (code == ExitCodes.ERROR
        && !(e instanceof ClusterException || e instanceof CommandFailure)) {
      cmd.getErr().println(name + ": unexpected error: " + e);
      e.printStackTrace(cmd.getErr());
    } else {
      cmd.getErr().println(name + ": " + e.getMessage());
    }
    cmd.getErr().flush();
    if (wantsJson(parsed)) {
      // --output json promises one JSON document on stdout, failures included
      FailureDocument.print(cmd.getOut(), String.valueOf(e.getMessage()), code);
    }
    return code;
  }

  private static boolean wantsJson(ParseResult parsed) {
    ParseResult p = parsed;
    while (p.hasSubcommand()) {
      p = p.subcommand();
    }
    if (!p.hasMatchedOption("--output")) {
      return false;
    }
    // an Object first: String.valueOf(getValue()) would pick valueOf(char[]) and fail to cast
    Object value = p.matchedOption("--output").getValue();
    return "json".equals(String.valueOf(value));
  }

  /** The exit code for an exception thrown by a command. */
  static int exitCodeOf(Throwable e) {
    if (e instanceof ClusterException ce) {
      return switch (ce.kind()) {
        case PORT_IN_USE, NO_CLUSTER, MISSING_PROGRAM -> ExitCodes.REFUSED;
        case START_FAILED, OTHER -> ExitCodes.ERROR;
      };
    }
    if (e instanceof CommandFailure f) {
      return f.exitCode();
    }
    if (e instanceof io.reshard.router.ReshardException r && r.retriable()) {
      return ExitCodes.RETRY_LATER;
    }
    if (e instanceof DaemonConfigException) {
      return ExitCodes.USAGE;
    }
    if (e instanceof DaemonStartException) {
      return ExitCodes.REFUSED;
    }
    if (e instanceof CommandLine.ParameterException || e instanceof IllegalArgumentException) {
      return ExitCodes.USAGE;
    }
    // a server that did not answer in time, a lost connection: the same command can succeed later
    if (io.reshard.core.error.ErrorClassifier.classify(e)
        == io.reshard.core.error.ErrorClassifier.Failure.RETRIABLE) {
      return ExitCodes.RETRY_LATER;
    }
    return ExitCodes.ERROR;
  }
}
