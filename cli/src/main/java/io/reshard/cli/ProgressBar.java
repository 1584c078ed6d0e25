package io.reshard.cli;

import java.io.PrintWriter;

/**
 * Progress of a long step on standard error: a bar redrawn in place on a terminal ({@code [##### ]
 * 42% 84,000/200,000 rows ...}), a plain line every few seconds otherwise (logs, CI, pipes). Not
 * thread-safe: one thread draws.
 */
final class ProgressBar {
  private static final int WIDTH = 30;
  private static final long PLAIN_EVERY_NANOS = 5_000_000_000L;

  private final PrintWriter err;
  private final boolean terminal;
  private long lastPlain;
  private boolean drawn;
  private boolean lastShown;

  ProgressBar(PrintWriter err, boolean terminal) {
    this.err = err;
    this.terminal = terminal;
  }

  /** True if standard error is most likely an interactive terminal. */
  static boolean onTerminal() {
    String term = System.getenv("TERM");
    return System.console() != null && term != null && !term.equals("dumb");
  }

  /**
   * Shows {@code done} of {@code total} (total 0 or less: unknown) for {@code label}, with {@code
   * extra} text after it.
   */
  void show(String label, long done, long total, String extra) {
    show(false, label, done, total, extra);
  }

  /**
   * As {@link #show(String, long, long, String)}; {@code last} figures are printed off a terminal
   * too, once, whenever they come (not only every few seconds).
   */
  void show(boolean last, String label, long done, long total, String extra) {
    String counts = total > 0 ? String.format("%,d/%,d", done, total) : String.format("%,d", done);
    String bar = "";
    if (terminal) {
      int pct = total > 0 ? (int) Math.min(100, done * 100 / total) : 0;
      int filled = total > 0 ? pct * WIDTH / 100 : 0;
      bar =
          " ["
              + "#".repeat(filled)
              + " ".repeat(WIDTH - filled)
              + "] "
              + (total > 0 ? pct + "% " : "");
    }
    draw(last, label, bar, counts + " " + extra);
  }

  /**
   * Shows what {@code label} is doing, in words, without a count: for a step whose size is unknown
   * ({@code diff w: table messages (12 chunks compared)}).
   */
  void show(String label, String text) {
    draw(false, label, " ", text);
  }

  /**
   * Redraws the line in place on a terminal ({@code label}, {@code bar}, {@code text}); off one
   * prints {@code label: text} every few seconds, and {@code last} text once whenever it comes.
   */
  private void draw(boolean last, String label, String bar, String text) {
    if (last && !terminal) {
      if (lastShown) {
        return;
      }
      lastShown = true;
      lastPlain = 0;
    }
    if (terminal) {
      err.print("\r" + label + bar + text + "\u001b[K");
      drawn = true;
      err.flush();
    } else if (lastPlain == 0 || System.nanoTime() - lastPlain >= PLAIN_EVERY_NANOS) {
      lastPlain = System.nanoTime();
      err.println(label + ": " + text);
      err.flush();
    }
  }

  /** Ends the bar's line. */
  void finish() {
    if (drawn) {
      err.println();
      err.flush();
      drawn = false;
    }
  }
}
