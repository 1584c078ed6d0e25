package io.reshard.switcher;

import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopyProgress;
import io.reshard.copier.CopySpec;
import io.reshard.core.placement.TargetShard;
import java.util.List;
import java.util.Optional;

/**
 * Phase 2 of a workflow (DESIGN 4.6): the copy of the sources' existing rows into the targets,
 * while the forward streams apply every change after P0. The {@link Copier} continues a copy a
 * crash interrupted from the targets' {@code copy_state}; its convergence argument lives beside it.
 * {@link #progress} may be read from any thread while {@link #run} runs on another.
 */
final class CopyPhase implements Phase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final CopierConfig config;
  private volatile List<Copier> copiers = List.of();

  CopyPhase(WorkflowSpec spec, Streams streams, WorkflowEngine engine, CopierConfig config) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.config = config;
  }

  @Override
  public String name() {
    return "copy";
  }

  /**
   * Moves a new workflow to {@code COPYING}; one already copying stays as it is.
   *
   * @return the record the copy runs in
   * @throws SwitchRefusedException if the copy is done already
   */
  Workflow start(Workflow w) {
    if (w.state() == WorkflowState.CREATED) {
      return engine.transition(w, WorkflowState.COPYING, "copy starts from P0 " + w.p0());
    } else if (w.state() != WorkflowState.COPYING) {
      throw new SwitchRefusedException(w.state().refusal(name(), spec.name(), "its copy is done"));
    }
    return w;
  }

  /**
   * Copies every moved table (from P0, or from where {@code copy_state} says), then moves the
   * workflow to {@code RUNNING}, clearing the error a stopped copy recorded. Run again after a
   * failure (the copy, or the state save after it), it goes on from {@code copy_state}: tables done
   * are not copied again.
   *
   * @param w the record {@link #start} returned
   * @return the record in {@code RUNNING}
   */
  Workflow run(Workflow w) throws Exception {
    copy(w);
    return done(w);
  }

  /**
   * Copies every moved table (from P0, or from where {@code copy_state} says); {@link #done} then
   * records it. With several sources (a merge or a re-partition), each source is copied in turn
   * into the targets that overlap it, from its own P0, its progress kept under its own key ({@link
   * WorkflowSpec#stateKey}); each source is read once for all its targets.
   *
   * @param w the record {@link #start} returned
   */
  void copy(Workflow w) throws Exception {
    List<Copier> each = new java.util.ArrayList<>();
    for (ShardServer source : spec.sources()) {
      each.add(
          Copier.builder(copySpec(w, source))
              .config(config)
              .coverage(StreamSeams.coverage(streams.capture(source.shard()).orElseThrow()))
              .build());
    }
    if (each.size() > 1) {
      each.forEach(Copier::estimate); // so the progress of the first counts the others' rows too
    }
    copiers = List.copyOf(each); // all at once: progress counts every source from the start
    for (Copier c : each) {
      c.run();
    }
  }

  /** What is copied from {@code source}: its rows, into the targets whose ranges overlap it. */
  private CopySpec copySpec(Workflow w, ShardServer source) {
    List<TargetShard> targets =
        spec.targetsOverlapping(source).stream()
            .map(t -> new TargetShard(t.range(), t.endpoint()))
            .toList();
    return new CopySpec(
        spec.stateKey(source),
        spec.keyspace(),
        source.endpoint(),
        source.range(),
        targets,
        spec.tables(),
        spec.vschema(),
        // the copy runs before any reverse traffic, so the first forward generation's start is P0
        w.forwardStart().getOrDefault(source.shard(), w.p0()));
  }

  /**
   * Moves the workflow to {@code RUNNING} once {@link #copy} is done, clearing the error a stopped
   * copy recorded.
   *
   * @param latest the record as it is now (another step may have changed it while the copy ran,
   *     e.g. recorded a capture gap)
   */
  Workflow done(Workflow latest) {
    // an error recorded while copying (a copy that stopped and went on again) is behind it now
    return engine.transition(
        latest.withError(null, latest.updatedAt()), WorkflowState.RUNNING, "copy done");
  }

  /** The copy's progress once it has started: of every source copied or being copied so far. */
  Optional<CopyProgress> progress() {
    List<CopyProgress> each = copiers.stream().map(Copier::progress).toList();
    return each.isEmpty() ? Optional.empty() : Optional.of(CopyProgress.combine(spec.name(), each));
  }
}
