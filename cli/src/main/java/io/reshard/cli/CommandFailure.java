package io.reshard.cli;

/**
 * An expected failure of a command, with the exit code it ends with: {@link ErrorHandler} prints
 * its message (no stack trace) and returns the code.
 */
final class CommandFailure extends RuntimeException {
  private final int exitCode;

  /**
   * @param exitCode one of {@link ExitCodes}
   * @param message what happened and what to do
   */
  CommandFailure(int exitCode, String message) {
    super(message);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
