package io.reshard.switcher;

import io.reshard.copier.CopyProgress;
import java.util.List;
import java.util.Map;

/**
 * A snapshot of a running workflow, for {@code workflow status}: the stored record plus what only
 * the running process knows. Immutable.
 *
 * @param workflow the stored record
 * @param maxLagMillis the largest apply lag of the streams that run (forward, or reverse after the
 *     write switch), in ms (0 when caught up)
 * @param streams every running stream
 * @param copy the copy's progress, or null if no copy ran in this process
 * @param diff what the running diff is comparing, or null if none runs
 */
public record WorkflowStatus(
    Workflow workflow, long maxLagMillis, List<Stream> streams, CopyProgress copy, String diff) {

  /** Copies the list. */
  public WorkflowStatus {
    streams = List.copyOf(streams);
  }

  /** True once the copy is done: the workflow has left {@code CREATED} and {@code COPYING}. */
  public boolean copyDone() {
    WorkflowState s = workflow.state();
    return s != WorkflowState.CREATED && s != WorkflowState.COPYING && s != WorkflowState.CANCELLED;
  }

  /**
   * One applier.
   *
   * @param direction {@code forward} (sources to a target) or {@code reverse}
   * @param sources the shards it reads
   * @param target the shard it writes
   * @param state {@code RUNNING}, {@code STOPPED} or {@code ERROR}
   * @param positions per source change topic, the source GTID position applied
   * @param lagMillis its apply lag in ms
   * @param lastError its last error, or null
   */
  public record Stream(
      String direction,
      List<String> sources,
      String target,
      String state,
      Map<String, String> positions,
      long lagMillis,
      String lastError) {}
}
