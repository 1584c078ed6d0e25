package io.reshard.cli;

import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/**
 * Handles usage errors (an unknown option, a missing argument, a bad value, a {@link
 * ParameterException} a command throws): picocli's own handler prints the message and the usage
 * help on standard error and gives {@link ExitCodes#USAGE}; then, if the command line asks for
 * {@code --output json} and the failing command (or a subcommand of it) takes {@code --output}, the
 * {@link FailureDocument} goes to standard output. Picocli routes these errors here, not to {@link
 * ErrorHandler}. Thread-safe.
 */
final class UsageErrorHandler implements IParameterExceptionHandler {
  private final IParameterExceptionHandler text;

  /**
   * @param text the handler that prints the error for humans (picocli's default)
   */
  UsageErrorHandler(IParameterExceptionHandler text) {
    this.text = text;
  }

  @Override
  public int handleParseException(ParameterException ex, String[] args) throws Exception {
    int code = text.handleParseException(ex, args);
    CommandLine cmd = ex.getCommandLine();
    if (FailureDocument.requested(args) && takesOutput(cmd)) {
      FailureDocument.print(cmd.getOut(), ex.getMessage(), code);
    }
    return code;
  }

  /**
   * Whether {@code cmd} or one of its subcommands has {@code --output}: a misspelt verb ({@code
   * workflow stauts ... --output json}) fails on its parent, which does not.
   */
  private static boolean takesOutput(CommandLine cmd) {
    if (cmd.getCommandSpec().findOption("--output") != null) {
      return true;
    }
    return cmd.getSubcommands().values().stream().anyMatch(UsageErrorHandler::takesOutput);
  }
}
