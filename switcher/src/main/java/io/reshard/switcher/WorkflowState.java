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
  CREATED,
  /** The copy phase runs while the streams apply changes after P0. */
  COPYING,
  /** The copy is done; the forward streams keep the targets caught up. */
  RUNNING,
  /** Reads of the moved range are served by the targets; writes still go to the source. */
  READS_SWITCHED,
  /** The source is fenced and read-only; the targets are applying up to G. */
  SWITCHING_WRITES,
  /** Journal written: the targets serve writes; reverse streams carry them back to the source. */
  WRITES_SWITCHED,
  /** Writes are being moved back to the source (reverse traffic). */
  REVERSING,
  /** Finished: reverse streams stopped, the source retired from the map. Terminal. */
  COMPLETED,
  /** Abandoned before any write switch: streams stopped, target copies dropped. Terminal. */
  CANCELLED;

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

  /** True once writes have been switched to the targets: cancel is no longer allowed. */
  public boolean writesHaveMoved() {
    return this == WRITES_SWITCHED || this == REVERSING || this == COMPLETED;
  }
}
