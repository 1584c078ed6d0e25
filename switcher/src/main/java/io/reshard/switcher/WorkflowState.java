package io.reshard.switcher;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * The states of a workflow (one reshard: source shards to target shards) and the table of legal
 * transitions between them. {@link Workflow#transition} is the only way a state changes.
 *
 * <pre>
 *   CREATED ─▶ COPYING ─▶ RUNNING ─▶ READS_SWITCHED ─▶ SWITCHING_WRITES ─▶ WRITES_SWITCHED ─▶ COMPLETED
 *                                 ◀─┘ (reads back)      │ (timeout: back)       │      ▲
 *                                 ─────────────────────▶│                       ▼      │
 *                                                        RUNNING/READS_SWITCHED  REVERSING ─▶ RUNNING
 *   CREATED, COPYING, RUNNING, READS_SWITCHED ─▶ CANCELLED
 * </pre>
 *
 * <p>{@code SWITCHING_WRITES} is the window in which the source is fenced and the targets catch up
 * to the source position G; it ends either at the journal record ({@code WRITES_SWITCHED}, the
 * point of no return) or, on a timeout, back where it started with the source un-fenced.
 */
public enum WorkflowState {
  /** Created: target schemas and stream state exist, P0 is chosen; streams start. */
  CREATED(
      "just created: its copy has not started yet",
      "wait for the copy (workflow status shows it), or cancel"),
  /** The copy phase runs while the streams apply changes after P0. */
  COPYING(
      "copying the sources' rows to the targets",
      "wait until the copy is done (workflow status shows its progress), or cancel"),
  /** The copy is done; the forward streams keep the targets caught up. */
  RUNNING(
      "copied, its streams keeping the targets in step, while the sources still serve reads and"
          + " writes",
      "diff, then switch-traffic --reads or --writes; or cancel"),
  /** Reads of the moved range are served by the targets; writes still go to the source. */
  READS_SWITCHED(
      "serving reads from the targets, while the sources still take the writes",
      "switch-traffic --writes (after a clean diff); or cancel"),
  /** The source is fenced and read-only; the targets are applying up to G. */
  SWITCHING_WRITES(
      "switching writes to the targets at this moment",
      "wait until the switch has finished or rolled back (workflow status shows which)"),
  /** Journal written: the targets serve writes; reverse streams carry them back to the source. */
  WRITES_SWITCHED(
      "switched: the targets serve reads and writes, and reverse streams keep the sources in step",
      "complete (retires the sources), or reverse-traffic (moves writes back to the sources)"),
  /** Writes are being moved back to the source (reverse traffic). */
  REVERSING(
      "moving writes back to the sources at this moment",
      "wait until that has finished or rolled back (workflow status shows which)"),
  /** Finished: reverse streams stopped, the source retired from the map. Terminal. */
  COMPLETED("completed", "nothing: it is finished (a new workflow moves the range again)"),
  /** Abandoned before any write switch: streams stopped, target copies dropped. Terminal. */
  CANCELLED("cancelled", "nothing: it is finished (create a new workflow to try again)");

  private final String inWords;
  private final String next;

  WorkflowState(String inWords, String next) {
    this.inWords = inWords;
    this.next = next;
  }

  private static final Map<WorkflowState, Set<WorkflowState>> LEGAL =
      Map.of(
          CREATED, EnumSet.of(COPYING, CANCELLED),
          COPYING, EnumSet.of(RUNNING, CANCELLED),
          RUNNING, EnumSet.of(READS_SWITCHED, SWITCHING_WRITES, CANCELLED),
          READS_SWITCHED, EnumSet.of(RUNNING, SWITCHING_WRITES, CANCELLED),
          SWITCHING_WRITES, EnumSet.of(WRITES_SWITCHED, RUNNING, READS_SWITCHED),
          WRITES_SWITCHED, EnumSet.of(REVERSING, COMPLETED),
          REVERSING, EnumSet.of(RUNNING, WRITES_SWITCHED),
          COMPLETED, EnumSet.noneOf(WorkflowState.class),
          CANCELLED, EnumSet.noneOf(WorkflowState.class));

  /** The states this one may change to. */
  public Set<WorkflowState> next() {
    return LEGAL.get(this);
  }

  /** True if a workflow in this state may move to {@code to}. */
  public boolean canMoveTo(WorkflowState to) {
    return LEGAL.get(this).contains(to);
  }

  /** True for {@code COMPLETED} and {@code CANCELLED}. */
  public boolean isTerminal() {
    return LEGAL.get(this).isEmpty();
  }

  /**
   * What a workflow in this state is doing, in the operator's words, to follow "it is" in a
   * message: {@code "copying the sources' rows to the targets"}. Messages name states this way; the
   * enum's name is for records and JSON.
   */
  public String inWords() {
    return inWords;
  }

  /**
   * What the operator can do next, as {@code reshard workflow} verbs: {@code "complete (retires the
   * sources), or reverse-traffic (moves writes back to the sources)"}.
   */
  public String nextInWords() {
    return next;
  }

  /**
   * The refusal of a step a workflow in this state cannot take, in one form for every verb: {@code
   * "reverse-traffic refused for workflow w: it is copied, ...; next: diff, then ..."}.
   *
   * @param step the refused verb, e.g. {@code "reverse-traffic"}
   * @param workflow the workflow's name
   * @param rule when the step can be taken, or null, e.g. {@code "writes move back only after a
   *     write switch"}
   */
  public String refusal(String step, String workflow, String rule) {
    return step
        + " refused for workflow "
        + workflow
        + ": it is "
        + inWords
        + (rule == null ? "" : ", and " + rule)
        + "; next: "
        + next;
  }

  /** True once writes have been switched to the targets: cancel is no longer allowed. */
  public boolean writesHaveMoved() {
    return this == WRITES_SWITCHED || this == REVERSING || this == COMPLETED;
  }
}
