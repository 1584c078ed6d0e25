package io.reshard.switcher;

import io.reshard.cdc.GtidPosition;
import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopySpec;
import io.reshard.copier.CopyTarget;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One workflow's runbook, run in this process (DESIGN 4.6-4.8): {@link #create}, {@link #copy},
 * {@link #diff}, {@link #switchReads}, {@link #switchWrites}, {@link #reverseTraffic}, {@link
 * #complete}, {@link #cancel}. Every state change goes through the {@link WorkflowEngine}; the
 * shard map through the keyspace's fenced {@link ShardMapPublisher}. One thread drives a runner.
 *
 * <p>Not yet: resuming a runner from its stored record after a crash (the record and the stream
 * positions are stored, but re-attaching streams is issue 6's daemon work), merges (one source).
 */
public final class WorkflowRunner implements AutoCloseable {
  private final WorkflowSpec spec;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;
  private final Streams streams;
  private Workflow workflow;
  private Map<String, GtidPosition> p0;
  private CutoverSteps lastCutoverSteps = new CutoverSteps();

  public WorkflowRunner(WorkflowSpec spec, WorkflowEngine engine, ShardMapPublisher publisher) {
    if (spec.sources().size() != 1) {
      throw new IllegalArgumentException(
          "only splits of one source shard are supported yet, got " + spec.sources());
    }
    this.spec = spec;
    this.engine = engine;
    this.publisher = publisher;
    this.streams = new Streams(spec);
  }

  public Workflow workflow() {
    return workflow;
  }

  /** Phase 1: preflight, target tables, closed target fences, capture, P0, forward streams. */
  public Workflow create() throws Exception {
    p0 = new CreatePhase(spec, streams).run();
    workflow =
        Workflow.create(
            spec.name(),
            spec.keyspace(),
            MapChanges.names(spec.sources()),
            MapChanges.names(spec.targets()),
            p0.values().iterator().next().toString(),
            Instant.now());
    return engine.update(workflow);
  }

  /** Phase 2: the copy, while the forward streams apply every change after P0. */
  public Workflow copy(CopierConfig config) throws Exception {
    workflow = engine.transition(workflow, WorkflowState.COPYING, "copy starts from P0 " + p0);
    ShardServer source = spec.sources().get(0);
    List<CopyTarget> targets = new ArrayList<>();
    spec.targets().forEach(t -> targets.add(new CopyTarget(t.range(), t.endpoint())));
    CopySpec copy =
        new CopySpec(
            spec.name(),
            spec.keyspace(),
            source.endpoint(),
            source.range(),
            targets,
            spec.tables(),
            spec.vschema(),
            p0.get(source.shard()).toString());
    Copier.builder(copy)
        .config(config)
        .coverage(StreamSeams.coverage(streams.capture(source.shard())))
        .build()
        .run();
    workflow = engine.transition(workflow, WorkflowState.RUNNING, "copy done");
    return workflow;
  }

  /**
   * A diff of every target against the source at one consistent position; records whether it was
   * clean.
   */
  public List<DiffReport> diff() throws Exception {
    ShardServer source = spec.sources().get(0);
    List<DiffReport> reports = new ArrayList<>();
    for (ShardServer t : spec.targets()) {
      DiffSpec d =
          new DiffSpec(
              spec.name(),
              spec.keyspace(),
              source.endpoint(),
              new CopyTarget(t.range(), t.endpoint()),
              spec.tables(),
              spec.vschema());
      reports.add(
          new Differ(
                  d,
                  DifferConfig.defaults(),
                  StreamSeams.control(
                      streams.forward().get(t.shard()),
                      streams.topic(source.shard()),
                      Duration.ofSeconds(60)),
                  DiffListener.NONE)
              .run());
    }
    workflow =
        engine.update(
            workflow.withDiff(reports.stream().allMatch(DiffReport::isClean), Instant.now()));
    return reports;
  }

  /** Reads of the moved range go to the targets (replication lag is the staleness bound). */
  public Workflow switchReads() {
    ShardMap next = MapChanges.targetsRead(publisher.newest().orElseThrow(), spec);
    workflow =
        engine.transition(workflow, WorkflowState.READS_SWITCHED, "reads on " + spec.targets());
    publisher.publish(next);
    return workflow;
  }

  /** Writes of the moved range go to the targets; see {@link SwitchWritesPhase}. */
  public Workflow switchWrites(boolean force) throws Exception {
    try {
      SwitchWritesPhase phase = new SwitchWritesPhase(spec, streams, engine, publisher);
      lastCutoverSteps = phase.steps();
      workflow = phase.run(workflow, force);
    } catch (CutoverAbortedException e) {
      workflow = engine.store().load(spec.name()).orElse(workflow);
      throw e;
    }
    return workflow;
  }

  /** Writes (and reads) back to the sources; see {@link ReverseTrafficPhase}. */
  public Workflow reverseTraffic() throws Exception {
    try {
      ReverseTrafficPhase phase = new ReverseTrafficPhase(spec, streams, engine, publisher);
      lastCutoverSteps = phase.steps();
      workflow = phase.run(workflow);
    } catch (CutoverAbortedException e) {
      workflow = engine.store().load(spec.name()).orElse(workflow);
      throw e;
    }
    return workflow;
  }

  /**
   * Finishes a switched workflow: reverse streams stop; the sources leave the map, read-only, with
   * their data.
   */
  public Workflow complete() {
    if (workflow.state() != WorkflowState.WRITES_SWITCHED) {
      throw new SwitchRefusedException(
          "complete refused for workflow "
              + spec.name()
              + ": it is "
              + workflow.state()
              + "; only a workflow whose writes are switched can complete");
    }
    streams.freeze(streams.reverse());
    publisher.publish(MapChanges.withoutSources(publisher.newest().orElseThrow(), spec));
    workflow = engine.transition(workflow, WorkflowState.COMPLETED, "sources retired from the map");
    return workflow;
  }

  /** Abandons a workflow before any write switch: streams stop, the targets' copies are emptied. */
  public Workflow cancel() throws Exception {
    if (workflow.state().writesHaveMoved()
        || !workflow.state().canMoveTo(WorkflowState.CANCELLED)) {
      throw new SwitchRefusedException(
          "cancel refused for workflow "
              + spec.name()
              + ": it is "
              + workflow.state()
              + "; after a write switch use reverse-traffic, then cancel");
    }
    streams.freeze(streams.forward());
    ShardMap current = publisher.newest().orElseThrow();
    if (spec.targets().stream().anyMatch(t -> current.shard(t.range()).isPresent())) {
      publisher.publish(MapChanges.withoutTargets(current, spec));
    }
    for (ShardServer t : spec.targets()) {
      try (Connection c = ServerFence.connect(t);
          Statement s = c.createStatement()) {
        for (String table : spec.tables()) {
          s.execute("DELETE FROM `" + spec.keyspace() + "`.`" + table + "`");
        }
      }
    }
    workflow = engine.transition(workflow, WorkflowState.CANCELLED, "targets emptied");
    return workflow;
  }

  /**
   * The step timings of the last {@link #switchWrites} or {@link #reverseTraffic} (empty before the
   * first); for the cutover benchmark and for logs.
   */
  public CutoverSteps lastCutoverSteps() {
    return lastCutoverSteps;
  }

  /** The largest apply lag of the forward streams, in ms. */
  public long maxLagMillis() {
    return streams.forward().values().stream().mapToLong(a -> a.lagMillis()).max().orElse(0);
  }

  @Override
  public void close() throws InterruptedException {
    streams.close();
  }
}
