package io.reshard.switcher;

import io.reshard.core.placement.TargetShard;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.StreamControl;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The diff of every target against each source it overlaps, at one consistent position per source
 * (DESIGN 4.7, 4.9), or a repair then a diff; the forward appliers are under the diff's control
 * meanwhile (stopped, run to the source's position, stopped there). {@link #record} stores whether
 * the diff was clean. {@link #progress} may be read from any thread while a diff runs on another.
 */
final class DiffPhase implements Phase {
  /** How long the diff waits for an applier to reach the source's position. */
  private static final Duration CATCH_UP_TIMEOUT = Duration.ofSeconds(60);

  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final DifferConfig config;
  private final AtomicLong chunks = new AtomicLong();
  private volatile String table;

  DiffPhase(WorkflowSpec spec, Streams streams, WorkflowEngine engine, DifferConfig config) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.config = config;
  }

  @Override
  public String name() {
    return "diff";
  }

  /**
   * Diffs every target against the source.
   *
   * @throws SwitchRefusedException if the forward streams no longer run (writes are switched), or
   *     if the source's capture has stopped for good, before the diff starts or while it waits for
   *     the appliers to reach the source's position (then at once, not at the end of the wait's
   *     timeout); the appliers run on as before
   */
  List<DiffReport> diff(Workflow w) throws Exception {
    List<DiffReport> reports = new ArrayList<>();
    for (Differ d : differs(w, name())) {
      reports.addAll(d.runAll());
    }
    return reports;
  }

  /**
   * Repairs every target, then diffs every target again ({@link Differ#repairAll()}).
   *
   * @return per target, what the repair found and fixed, and the diff after it
   * @throws SwitchRefusedException as {@link #diff}, naming the repair
   */
  List<Differ.RepairResult> repair(Workflow w) throws Exception {
    List<Differ.RepairResult> results = new ArrayList<>();
    for (Differ d : differs(w, "repair")) {
      results.addAll(d.repairAll());
    }
    return results;
  }

  /**
   * Stores whether the diff was clean.
   *
   * @param reports the diff's reports (a repair's: the diff after it)
   * @return the stored record
   */
  Workflow record(Workflow w, List<DiffReport> reports) {
    table = null;
    return engine.update(w.withDiff(reports.stream().allMatch(DiffReport::isClean), Instant.now()));
  }

  /** The table being compared and the chunks compared so far, or null when no diff runs. */
  String progress() {
    String t = table;
    return t == null ? null : progress(t, chunks.get());
  }

  /** {@code "chat.messages (1 chunk compared)"}: the table, and the chunks compared so far. */
  static String progress(String table, long chunks) {
    return table + " (" + chunks + (chunks == 1 ? " chunk" : " chunks") + " compared)";
  }

  /**
   * One differ per source, each of the targets that overlap it against that source, with those
   * targets' forward appliers under its control on the source's topic: each source is compared at a
   * consistent position G of its own. With several sources (a merge), each target is compared once
   * per source it overlaps, with only the rows of that source's range ({@link
   * DiffSpec#sourceRange}), its progress and reports under {@link WorkflowSpec#stateKey}.
   *
   * @param step what it is for, named in a refusal
   */
  private List<Differ> differs(Workflow w, String step) {
    refuseIfForwardStopped(w, step);
    // the diff runs the appliers to the source's position, which a stopped capture never publishes
    streams.refuseIfCaptureStopped(spec.sources(), step);
    chunks.set(0);
    List<Differ> differs = new ArrayList<>();
    for (ShardServer source : spec.sources()) {
      differs.add(differ(source));
    }
    return differs;
  }

  private Differ differ(ShardServer source) {
    List<TargetShard> targets = new ArrayList<>();
    List<StreamControl> controls = new ArrayList<>();
    for (ShardServer t : spec.targetsOverlapping(source)) {
      targets.add(new TargetShard(t.range(), t.endpoint()));
      controls.add(
          StreamSeams.control(
              streams.forward().get(t.shard()),
              streams.topic(source.shard()),
              CATCH_UP_TIMEOUT,
              () -> streams.captureFailure(List.of(source))));
    }
    boolean merge = spec.sources().size() > 1;
    // one diff for every target of this source: the source is read once, its rows routed by
    // keyspace id
    return new Differ(
        new DiffSpec(
            spec.stateKey(source),
            spec.keyspace(),
            source.endpoint(),
            targets,
            spec.tables(),
            spec.vschema(),
            merge ? source.range() : null),
        config,
        controls,
        (t, chunk, lastKey) -> {
          table = t;
          chunks.incrementAndGet();
        });
  }

  /**
   * Refuses a diff or repair once the forward streams no longer run: after the write switch the
   * targets take the writes and the source follows them, so the targets are no longer compared at a
   * position of the source.
   */
  private void refuseIfForwardStopped(Workflow w, String step) {
    for (ShardServer t : spec.targets()) {
      if (streams.forward().get(t.shard()) == null) {
        throw new SwitchRefusedException(
            "workflow "
                + spec.name()
                + ": "
                + step
                + " refused: the streams from the sources to the targets no longer run (the"
                + " workflow is "
                + w.state().inWords()
                + "); a diff compares the targets with the source while those streams keep them"
                + " in step: run reverse-traffic first to diff again");
      }
    }
  }
}
