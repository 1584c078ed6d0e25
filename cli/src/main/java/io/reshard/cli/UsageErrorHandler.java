package io.reshard.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.ParameterException;

/**
 * Handles usage errors (an unknown option, a missing argument, a bad value, a {@link
 * ParameterException} a command throws): the message goes to standard error with picocli's
 * suggestions for a misspelt name, or else a pointer to the command's {@code --help}, and the exit
 * code is {@link ExitCodes#USAGE}; then, if the command line asks for {@code --output json} and the
 * failing command (or a subcommand of it) takes {@code --output}, the {@link FailureDocument} goes
 * to standard output. Picocli routes these errors here, not to {@link ErrorHandler}. Thread-safe.
 */
final class UsageErrorHandler implements IParameterExceptionHandler {
  UsageErrorHandler() {}

  @Override
  public int handleParseException(ParameterException ex, String[] args) throws Exception {
    ParameterException first = unknownOptionFirst(ex);
    CommandLine cmd = first.getCommandLine();
    String then = first == ex ? null : "then: " + ex.getMessage();
    int code = brief(first, cmd, then);
    if (FailureDocument.requested(args) && takesOutput(cmd)) {
      FailureDocument.print(
          cmd.getOut(), message(first, cmd) + (then == null ? "" : "\n" + then), code);
    }
    return code;
  }

  /**
   * The error to report first: an unknown option on the failing command wins over the error picocli
   * raised instead (a missing required option, often the one the unknown option misspells), since
   * picocli checks required options before it reports what it could not match. Other errors as they
   * are.
   */
  static ParameterException unknownOptionFirst(ParameterException ex) {
    CommandLine cmd = ex.getCommandLine();
    if (ex instanceof CommandLine.UnmatchedArgumentException || cmd == null) {
      return ex;
    }
    List<String> unmatched = cmd.getUnmatchedArguments();
    if (unmatched.stream().noneMatch(a -> a.startsWith("-"))) {
      return ex;
    }
    return new CommandLine.UnmatchedArgumentException(cmd, unmatched);
  }

  /**
   * The message, the error that comes after it if any ({@code then}, or null), picocli's
   * suggestions for a misspelt name, and where the whole usage is: one screen of help after every
   * typo hides the message, so it is not printed here.
   */
  private static int brief(ParameterException ex, CommandLine cmd, String then) {
    java.io.PrintWriter err = cmd.getErr();
    err.println(cmd.getColorScheme().errorText(message(ex, cmd)));
    if (then != null) {
      err.println(then);
    }
    if (!CommandLine.UnmatchedArgumentException.printSuggestions(ex, err)) {
      err.println(
          "See `"
              + cmd.getCommandSpec().qualifiedName()
              + " --help` for its options and arguments.");
    }
    err.flush();
    return cmd.getExitCodeExceptionMapper() != null
        ? cmd.getExitCodeExceptionMapper().getExitCode(ex)
        : cmd.getCommandSpec().exitCodeOnInvalidInput();
  }

  /**
   * The error's message; for a misspelt verb (an unmatched first argument of a command that has
   * subcommands) its name, not picocli's list of every argument left over.
   */
  static String message(ParameterException ex, CommandLine cmd) {
    if (ex instanceof CommandLine.UnmatchedArgumentException u
        && !cmd.getSubcommands().isEmpty()
        && !u.getUnmatched().isEmpty()
        && !u.getUnmatched().get(0).startsWith("-")) {
      return "`"
          + cmd.getCommandSpec().qualifiedName()
          + "` has no command "
          + u.getUnmatched().get(0)
          + "; its commands are "
          + String.join(", ", cmd.getSubcommands().keySet());
    }
    return ex.getMessage();
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
