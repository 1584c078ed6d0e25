package io.reshard.switcher;

/**
 * The one rule for a workflow whose streams missed changes ({@link Workflow#captureGap()}: its
 * source's capture was skipped past changes it could not publish): neither traffic switch runs, not
 * even with {@code --force}, until a diff is clean again, because the targets are known to miss
 * changes that no stream will bring. {@code workflow diff NAME --repair} writes what they miss from
 * the source and records a clean diff, which clears the gap. Stateless.
 */
final class CaptureGaps {
  private CaptureGaps() {}

  /** The command that repairs the targets of {@code workflow} and records a clean diff. */
  static String repairCommand(String workflow) {
    return "reshard workflow diff " + workflow + " --repair";
  }

  /**
   * The reason a switch of {@code w} is refused, or null if its streams missed nothing.
   *
   * @param step the refused step, for the message
   */
  static String refusal(Workflow w, String step) {
    if (w.captureGap() == null) {
      return null;
    }
    return "the targets miss changes the streams never received ("
        + w.captureGap()
        + "); run `"
        + repairCommand(w.name())
        + "` until it is clean, then "
        + step
        + " (--force does not pass over this)";
  }
}
