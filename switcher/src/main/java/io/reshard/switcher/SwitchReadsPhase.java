package io.reshard.switcher;

import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;

/**
 * Reads of the moved range go to the targets (DESIGN 4.8): the state moves to {@code
 * READS_SWITCHED}, then the shard map whose read partition uses the targets is published
 * (replication lag is the staleness bound). A restart in {@code READS_SWITCHED} publishes that map
 * if it was not ({@link #publishIfNeeded}).
 */
final class SwitchReadsPhase implements Phase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;

  SwitchReadsPhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
  }

  @Override
  public String name() {
    return "switch-traffic --reads";
  }

  /**
   * Runs the phase.
   *
   * @return the record in {@code READS_SWITCHED}
   * @throws SwitchRefusedException if the workflow is not in a state to switch reads, the next map
   *     would be invalid, the sources' capture has stopped for good (the targets would serve reads
   *     that no longer receive changes), or the streams missed changes ({@link
   *     Workflow#captureGap()}) that no clean diff has repaired since; nothing changed
   */
  Workflow run(Workflow w) {
    if (!w.state().canMoveTo(WorkflowState.READS_SWITCHED)) {
      throw new SwitchRefusedException(
          w.state()
              .refusal(
                  name(),
                  spec.name(),
                  "reads switch once the copy is done and before writes switch"));
    }
    streams.refuseIfCaptureStopped(spec.sources(), name());
    String gap = CaptureGaps.refusal(w, "switch reads");
    if (gap != null) {
      throw new SwitchRefusedException(
          name() + " refused for workflow " + spec.name() + ": " + gap);
    }
    try {
      MapChanges.targetsRead(publisher.newest().orElseThrow(), spec); // valid before anything moves
    } catch (IllegalArgumentException e) {
      throw new SwitchRefusedException(
          name()
              + " refused for workflow "
              + spec.name()
              + ": the next shard map would be invalid: "
              + e.getMessage());
    }
    w = engine.transition(w, WorkflowState.READS_SWITCHED, "reads on " + spec.targets());
    publishIfNeeded();
    return w;
  }

  /** Publishes the map with the targets serving reads unless the newest one already does. */
  void publishIfNeeded() {
    ShardMap current = publisher.newest().orElseThrow();
    ShardMap next = MapChanges.targetsRead(current, spec);
    if (!MapChanges.sameAssignments(current, next)) {
      publisher.publish(next);
    }
  }
}
