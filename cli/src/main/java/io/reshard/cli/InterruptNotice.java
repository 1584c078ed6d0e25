package io.reshard.cli;

import java.io.PrintWriter;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a command says when it is interrupted (Ctrl-C) while it waits for the daemon: the step goes
 * on in the daemon, and how to watch it. Armed for the length of the wait as a JVM shutdown hook,
 * which the JVM runs on SIGINT (and SIGTERM): it prints {@code COMMAND: interrupted; the copy goes
 * on in the daemon; watch it with ...} on standard error, with {@code --output json} the {@link
 * FailureDocument} on standard output, and ends the JVM with {@link ExitCodes#INTERRUPTED}.
 *
 * <p>Use: {@code try (InterruptNotice n = InterruptNotice.arm(...)) { wait }}; {@link #update} when
 * the wait moves on to another step. Thread-safe.
 */
final class InterruptNotice implements AutoCloseable {
  private final String command;
  private final PrintWriter out;
  private final PrintWriter err;
  private final boolean json;
  private final AtomicBoolean armed = new AtomicBoolean(true);
  private final Thread hook;
  private volatile String goesOn;

  private InterruptNotice(
      String command, PrintWriter out, PrintWriter err, boolean json, String goesOn) {
    this.command = command;
    this.out = out;
    this.err = err;
    this.json = json;
    this.goesOn = goesOn;
    this.hook = new Thread(this::tell, "interrupt-notice");
  }

  /**
   * Arms the notice.
   *
   * @param command the command's name for the message, e.g. {@code workflow create}
   * @param out standard output (the JSON document)
   * @param err standard error (the message)
   * @param json whether {@code --output json} was given
   * @param goesOn what goes on in the daemon and how to watch it, e.g. {@code the copy goes on in
   *     the daemon; watch it with `reshard workflow status ...`}
   */
  static InterruptNotice arm(
      String command, PrintWriter out, PrintWriter err, boolean json, String goesOn) {
    InterruptNotice n = new InterruptNotice(command, out, err, json, goesOn);
    Runtime.getRuntime().addShutdownHook(n.hook);
    return n;
  }

  /** Says {@code goesOn} instead from now on. */
  void update(String goesOn) {
    this.goesOn = goesOn;
  }

  /** Disarms the notice: the wait is over. */
  @Override
  public void close() {
    if (armed.getAndSet(false)) {
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException e) {
        // the JVM is shutting down already: the hook has run or runs, and now says nothing
      }
    }
  }

  private void tell() {
    if (!armed.getAndSet(false)) {
      return;
    }
    String message = "interrupted; " + goesOn;
    err.println(command + ": " + message);
    err.flush();
    if (json) {
      FailureDocument.print(out, message, ExitCodes.INTERRUPTED);
    }
    // the documented code whichever signal ended the wait (SIGTERM would give 143)
    Runtime.getRuntime().halt(ExitCodes.INTERRUPTED);
  }
}
