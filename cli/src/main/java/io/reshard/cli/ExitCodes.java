package io.reshard.cli;

/**
 * The exit codes of every {@code reshard} command, documented in {@code --help} and the README.
 *
 * <p>Scripts branch on these, so their values never change once released.
 */
public final class ExitCodes {
  /** The command did what it was asked. */
  public static final int OK = 0;

  /** An unexpected failure; the message says what happened. */
  public static final int ERROR = 1;

  /** The command line was wrong (unknown option, missing argument, invalid value). */
  public static final int USAGE = 2;

  /** The command was refused because a precondition does not hold; nothing was changed. */
  public static final int REFUSED = 3;

  /** A verification (for example a diff) found differences. */
  public static final int VERIFICATION_FAILED = 4;

  /** A cutover step was aborted and rolled back; the state is as before the command. */
  public static final int CUTOVER_ABORTED = 5;

  /** A transient condition (a server not reachable yet, a lock timeout); try again later. */
  public static final int RETRY_LATER = 6;

  /**
   * Interrupted (Ctrl-C, SIGINT) while waiting for the daemon: the step goes on in the daemon, and
   * the message says how to watch it. 128 + 2, the shells' convention for a process ended by
   * SIGINT, which is also the code the JVM exits with then.
   */
  public static final int INTERRUPTED = 130;

  /** The text shown at the end of {@code --help}. */
  static final String HELP_TEXT =
      """
      Exit codes:
          0  ok
          1  unexpected error
          2  usage error
          3  refused: a precondition does not hold, nothing was changed
          4  verification failed (for example a diff found differences)
          5  cutover aborted and rolled back
          6  retry later (a transient condition)
        130  interrupted (Ctrl-C) while waiting for the daemon: the step goes on there""";

  private ExitCodes() {}
}
