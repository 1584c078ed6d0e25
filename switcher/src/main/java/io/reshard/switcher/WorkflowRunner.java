package io.reshard.switcher;

import io.micrometer.core.instrument.MeterRegistry;
import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.apply.StreamsTable;
import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopyProgress;
import io.reshard.copier.CopySpec;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.position.GtidPosition;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.StreamControl;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One workflow's runbook (DESIGN 4.6-4.8): {@link #create}, {@link #copy}, {@link #diff}, {@link
 * #switchReads}, {@link #switchWrites}, {@link #reverseTraffic}, {@link #complete}, {@link
 * #cancel}, and {@link #resume} to take up a stored workflow after a crash. Every state change goes
 * through the {@link WorkflowEngine}; the shard map through the keyspace's fenced {@link
 * ShardMapPublisher}.
 *
 * <p>Everything a step needs is re-derived from the stored record, the shard map and the stream
 * state in the targets (DESIGN 5), so a process killed at any moment and started again finishes the
 * same workflow the same way. One thread drives a runner's steps; {@link #status} may be read from
 * any thread.
 *
 * <p>Not yet: merges (one source shard per workflow).
 */
public final class WorkflowRunner implements AutoCloseable {
  private final WorkflowSpec spec;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;
  private final Streams streams;
  private volatile Workflow workflow;
  private volatile Copier copier;
  private volatile List<DiffReport> lastDiff = List.of();
  private final AtomicLong diffChunks = new AtomicLong();
  private volatile String diffTable;
  private volatile CutoverSteps lastCutoverSteps = new CutoverSteps();
  private volatile DifferConfig differConfig = DifferConfig.defaults();

  /** A runner with captures of its own, stopped when it closes. */
  public WorkflowRunner(WorkflowSpec spec, WorkflowEngine engine, ShardMapPublisher publisher) {
    this(spec, engine, publisher, null);
  }

  /** A runner sharing the process's captures, without meters. */
  public WorkflowRunner(
      WorkflowSpec spec,
      WorkflowEngine engine,
      ShardMapPublisher publisher,
      CaptureRegistry captures) {
    this(spec, engine, publisher, captures, null);
  }

  /**
   * A runner sharing the process's captures.
   *
   * @param captures the captures of this process (the daemon's); null for captures of its own
   * @param meters where the appliers' lag and throughput meters go (tags {@code workflow} = the
   *     stream, {@code target}), or null for none
   * @throws IllegalArgumentException for more than one source shard (merges are not supported yet)
   */
  public WorkflowRunner(
      WorkflowSpec spec,
      WorkflowEngine engine,
      ShardMapPublisher publisher,
      CaptureRegistry captures,
      MeterRegistry meters) {
    if (spec.sources().size() != 1) {
      throw new IllegalArgumentException(
          "only splits of one source shard are supported yet, got " + spec.sources());
    }
    this.spec = spec;
    this.engine = engine;
    this.publisher = publisher;
    this.streams = new Streams(spec, captures, meters);
  }

  /**
   * Sets how this runner's diffs read and its appliers commit (default: {@link
   * DifferConfig#defaults()}, {@link ApplyConfig.Settings#defaults()}); call it before {@link
   * #create()} or {@link #resume}: appliers already running keep their settings.
   *
   * @return this runner
   */
  public WorkflowRunner configure(DifferConfig differ, ApplyConfig.Settings apply) {
    this.differConfig = Objects.requireNonNull(differ);
    streams.applySettings(apply);
    return this;
  }

  /** The workflow's record as this runner last wrote or read it; null before create/resume. */
  public Workflow workflow() {
    return workflow;
  }

  /** What this runner moves. */
  public WorkflowSpec spec() {
    return spec;
  }

  /**
   * Phase 1: preflight, target tables, closed target fences, capture, P0; the record is stored with
   * P0 before the forward streams start from it.
   *
   * @throws SwitchRefusedException naming every problem; nothing was written
   */
  public Workflow create() throws Exception {
    Map<String, GtidPosition> p0 = new CreatePhase(spec, streams).run();
    Instant now = Instant.now();
    Workflow w =
        Workflow.create(
                spec.name(),
                spec.keyspace(),
                MapChanges.names(spec.sources()),
                MapChanges.names(spec.targets()),
                p0.values().iterator().next().toString(),
                now)
            .withServers(servers(), now)
            .withForward(1, Positions.strings(p0), now);
    workflow = engine.update(w);
    Failpoints.reach("state:CREATED");
    streams.startForward(1, p0);
    return workflow;
  }

  /**
   * Phase 2: the copy, while the forward streams apply every change after P0. Continues a copy a
   * crash interrupted (from the targets' {@code copy_state}).
   */
  public Workflow copy(CopierConfig config) throws Exception {
    if (workflow.state() == WorkflowState.CREATED) {
      workflow =
          engine.transition(
              workflow, WorkflowState.COPYING, "copy starts from P0 " + workflow.p0());
    } else if (workflow.state() != WorkflowState.COPYING) {
      throw new SwitchRefusedException(
          "workflow " + spec.name() + " is " + workflow.state() + ": its copy is done");
    }
    ShardServer source = spec.sources().get(0);
    List<TargetShard> targets = new ArrayList<>();
    spec.targets().forEach(t -> targets.add(new TargetShard(t.range(), t.endpoint())));
    CopySpec copy =
        new CopySpec(
            spec.name(),
            spec.keyspace(),
            source.endpoint(),
            source.range(),
            targets,
            spec.tables(),
            spec.vschema(),
            workflow.p0());
    copier =
        Copier.builder(copy)
            .config(config)
            .coverage(StreamSeams.coverage(streams.capture(source.shard()).orElseThrow()))
            .build();
    copier.run();
    workflow = engine.transition(workflow, WorkflowState.RUNNING, "copy done");
    return workflow;
  }

  /** The copy's progress, if a copy ran in this process. */
  public Optional<CopyProgress> copyProgress() {
    Copier c = copier;
    return c == null ? Optional.empty() : Optional.of(c.progress());
  }

  /**
   * A diff of every target against the source at one consistent position; records whether it was
   * clean.
   *
   * @throws SwitchRefusedException if the forward streams no longer run (writes are switched), or
   *     if the source's capture has stopped for good, before the diff starts or while it waits for
   *     the appliers to reach the source's position (then at once, not at the end of the wait's
   *     timeout); the appliers run on as before
   */
  public List<DiffReport> diff() throws Exception {
    List<DiffReport> reports = differ("diff").runAll();
    recordDiff(reports);
    return reports;
  }

  /**
   * A repair of every target, then a diff: the diff at one consistent position writes the source's
   * rows over mismatched and missing target rows and deletes the target's extra rows (the appliers
   * stay stopped at that position meanwhile), then every target is diffed again ({@link
   * Differ#repairAll()}). Records whether the second diff was clean.
   *
   * @return per target, what the repair found and fixed, and the diff after it
   * @throws SwitchRefusedException as {@link #diff()}
   */
  public List<Differ.RepairResult> repair() throws Exception {
    List<Differ.RepairResult> results = differ("repair").repairAll();
    recordDiff(results.stream().map(Differ.RepairResult::verified).toList());
    return results;
  }

  /**
   * The differ of every target against the source, with the forward appliers under its control.
   *
   * @param step what it is for, named in a refusal
   */
  private Differ differ(String step) {
    refuseIfForwardStopped(step);
    // the diff runs the appliers to the source's position, which a stopped capture never publishes
    streams.refuseIfCaptureStopped(spec.sources(), step);
    ShardServer source = spec.sources().get(0);
    List<TargetShard> targets = new ArrayList<>();
    List<StreamControl> controls = new ArrayList<>();
    for (ShardServer t : spec.targets()) {
      targets.add(new TargetShard(t.range(), t.endpoint()));
      controls.add(
          StreamSeams.control(
              streams.forward().get(t.shard()),
              streams.topic(source.shard()),
              Duration.ofSeconds(60),
              () -> streams.captureFailure(spec.sources())));
    }
    diffChunks.set(0);
    // one diff for every target: the source is read once, its rows routed by keyspace id
    return new Differ(
        new DiffSpec(
            spec.name(),
            spec.keyspace(),
            source.endpoint(),
            targets,
            spec.tables(),
            spec.vschema()),
        differConfig,
        controls,
        (table, chunk, lastKey) -> {
          diffTable = table;
          diffChunks.incrementAndGet();
        });
  }

  /**
   * Refuses a diff or repair once the forward streams no longer run: after the write switch the
   * targets take the writes and the source follows them, so the targets are no longer compared at a
   * position of the source.
   */
  private void refuseIfForwardStopped(String step) {
    for (ShardServer t : spec.targets()) {
      if (streams.forward().get(t.shard()) == null) {
        throw new SwitchRefusedException(
            "workflow "
                + spec.name()
                + ": "
                + step
                + " refused: the streams from the source to the targets no longer run (the"
                + " workflow is "
                + workflow.state()
                + "); a diff compares the targets with the source while those streams keep them"
                + " in step: run reverse-traffic first to diff again");
      }
    }
  }

  private void recordDiff(List<DiffReport> reports) {
    diffTable = null;
    lastDiff = List.copyOf(reports);
    workflow =
        engine.update(
            workflow.withDiff(reports.stream().allMatch(DiffReport::isClean), Instant.now()));
  }

  /** The reports of the last diff this runner ran; empty if none. */
  public List<DiffReport> lastDiff() {
    return lastDiff;
  }

  /**
   * Reads of the moved range go to the targets (replication lag is the staleness bound).
   *
   * @throws SwitchRefusedException if the workflow is not in a state to switch reads, the next map
   *     would be invalid, or the sources' capture has stopped for good (the targets would serve
   *     reads that no longer receive changes); nothing changed
   */
  public Workflow switchReads() {
    if (!workflow.state().canMoveTo(WorkflowState.READS_SWITCHED)) {
      throw new SwitchRefusedException(
          "switch-traffic --reads refused for workflow "
              + spec.name()
              + ": it is "
              + workflow.state()
              + "; reads switch once the copy is done and before writes switch");
    }
    streams.refuseIfCaptureStopped(spec.sources(), "switch-traffic --reads");
    try {
      MapChanges.targetsRead(publisher.newest().orElseThrow(), spec); // valid before anything moves
    } catch (IllegalArgumentException e) {
      throw new SwitchRefusedException(
          "switch-traffic --reads refused for workflow "
              + spec.name()
              + ": the next shard map would be invalid: "
              + e.getMessage());
    }
    workflow =
        engine.transition(workflow, WorkflowState.READS_SWITCHED, "reads on " + spec.targets());
    publishReadsIfNeeded();
    return workflow;
  }

  private void publishReadsIfNeeded() {
    ShardMap current = publisher.newest().orElseThrow();
    ShardMap next = MapChanges.targetsRead(current, spec);
    if (!MapChanges.sameAssignments(current, next)) {
      publisher.publish(next);
    }
  }

  /**
   * Writes of the moved range go to the targets; see {@link SwitchWritesPhase}.
   *
   * @throws SwitchRefusedException naming every reason; nothing changed
   * @throws CutoverAbortedException if the fence or the catch-up timed out; rolled back
   */
  public Workflow switchWrites(boolean force) throws Exception {
    return switchWrites(force, spec.catchUpTimeout());
  }

  /**
   * {@link #switchWrites(boolean)} waiting at most {@code catchUpTimeout} for the targets to apply
   * G.
   */
  public Workflow switchWrites(boolean force, Duration catchUpTimeout) throws Exception {
    try {
      SwitchWritesPhase phase =
          new SwitchWritesPhase(
              spec.withCatchUpTimeout(catchUpTimeout), streams, engine, publisher);
      lastCutoverSteps = phase.steps();
      workflow = phase.run(workflow, force);
    } catch (CutoverAbortedException e) {
      workflow = engine.store().load(spec.name()).orElse(workflow);
      throw e;
    }
    return workflow;
  }

  /**
   * Refuses (as {@link #switchWrites} would) or returns the switch's plan, changing nothing: for
   * {@code switch-traffic --dry-run}.
   */
  public List<String> switchWritesPlan(boolean force) {
    return new SwitchWritesPhase(spec, streams, engine, publisher).plan(workflow, force);
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
   * their data unless {@code dropSourceData} (then the moved tables are dropped on the sources).
   */
  public Workflow complete(boolean dropSourceData) throws Exception {
    if (workflow.state() != WorkflowState.WRITES_SWITCHED) {
      throw new SwitchRefusedException(
          "complete refused for workflow "
              + spec.name()
              + ": it is "
              + workflow.state()
              + "; only a workflow whose writes are switched can complete");
    }
    streams.freeze(streams.reverse());
    ShardMap current = publisher.newest().orElseThrow();
    if (spec.sources().stream().anyMatch(s -> current.shard(s.range()).isPresent())) {
      publisher.publish(MapChanges.withoutSources(current, spec));
    }
    if (dropSourceData) {
      for (ShardServer s : spec.sources()) {
        dropTables(s);
      }
    }
    workflow =
        engine.transition(
            workflow,
            WorkflowState.COMPLETED,
            "sources retired from the map"
                + (dropSourceData ? ", their moved tables dropped" : ""));
    return workflow;
  }

  /** {@link #complete(boolean)} keeping the sources' data. */
  public Workflow complete() throws Exception {
    return complete(false);
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
    streams.freeze(streams.forward()); // a copy running on another thread was interrupted first
    ShardMap current = publisher.newest().orElseThrow();
    if (spec.targets().stream().anyMatch(t -> current.shard(t.range()).isPresent())) {
      publisher.publish(MapChanges.withoutTargets(current, spec));
    }
    for (ShardServer t : spec.targets()) {
      try (Connection conn = ServerFence.connect(t);
          Statement s = conn.createStatement()) {
        for (String table : spec.tables()) {
          s.execute("DELETE FROM `" + spec.keyspace() + "`.`" + table + "`");
        }
      }
    }
    workflow = engine.transition(workflow, WorkflowState.CANCELLED, "targets emptied");
    return workflow;
  }

  /**
   * Takes up a stored workflow after a restart (DESIGN 5) and brings it to a state in which the
   * operator's next step can run: the streams of its state run again from the positions stored in
   * the targets; a switch the crash interrupted before its journal record is rolled back (sources
   * un-fenced, map unchanged); one interrupted after it is finished forward (the same for reverse
   * traffic). A workflow in {@code CREATED} or {@code COPYING} still needs {@link #copy}.
   *
   * @return the record after the resume
   */
  public Workflow resume(Workflow stored) throws Exception {
    workflow = stored;
    switch (stored.state()) {
      case CREATED, COPYING, RUNNING -> startForwardFromRecord();
      case READS_SWITCHED -> {
        startForwardFromRecord();
        publishReadsIfNeeded();
      }
      case SWITCHING_WRITES -> {
        startForwardFromRecord();
        workflow = new SwitchWritesPhase(spec, streams, engine, publisher).rollBack(workflow);
      }
      case WRITES_SWITCHED ->
          workflow =
              new SwitchWritesPhase(spec, streams, engine, publisher).finishForward(workflow);
      case REVERSING ->
          workflow = new ReverseTrafficPhase(spec, streams, engine, publisher).resume(workflow);
      case COMPLETED, CANCELLED -> {}
    }
    return workflow;
  }

  private void startForwardFromRecord() throws Exception {
    for (ShardServer s : spec.sources()) {
      streams.ensureCapture(s, Duration.ofSeconds(60));
    }
    streams.startForward(workflow.generation(), Positions.parse(workflow.forwardStart()));
  }

  /**
   * A snapshot of the workflow's streams and progress, for status displays.
   *
   * @return the record, whether the copy is done, the largest lag, each stream's state and
   *     positions, the copy's progress and the diff's
   */
  public WorkflowStatus status() {
    List<WorkflowStatus.Stream> list = new ArrayList<>();
    streams
        .forward()
        .forEach((target, a) -> list.add(stream("forward", spec.sources(), target, a)));
    streams
        .reverse()
        .forEach((source, a) -> list.add(stream("reverse", spec.targets(), source, a)));
    String diffing = diffTable;
    return new WorkflowStatus(
        workflow,
        maxLagMillis(),
        list,
        copyProgress().orElse(null),
        diffing == null ? null : diffing + " (" + diffChunks.get() + " chunks compared)");
  }

  private WorkflowStatus.Stream stream(
      String direction, List<ShardServer> from, String into, io.reshard.cdc.ApplyEngine a) {
    Map<String, String> positions = new LinkedHashMap<>();
    a.appliedPositions().forEach((topic, p) -> positions.put(topic, p.toString()));
    String state = a.state().name();
    String error = a.lastError().orElse(null);
    Optional<String> captureFailure = streams.captureFailure(from);
    if (error == null && captureFailure.isPresent()) {
      // the applier itself is fine, but nothing more reaches it: report the stream as stopped by
      // its capture, or it would look caught up (its lag counts only what was published)
      state = StreamsTable.State.ERROR.name();
      error = captureFailure.get();
    }
    return new WorkflowStatus.Stream(
        direction, MapChanges.names(from), into, state, positions, a.lagMillis(), error);
  }

  /**
   * The step timings of the last {@link #switchWrites} or {@link #reverseTraffic} (empty before the
   * first); for the cutover benchmark and for logs.
   */
  public CutoverSteps lastCutoverSteps() {
    return lastCutoverSteps;
  }

  /**
   * Starts again every stream whose applier ended in error because Kafka or its target could not be
   * reached; each continues from the position stored in its target. Call it from the thread that
   * drives this runner (the daemon holds the workflow's action lock).
   *
   * @return how many streams were started again
   */
  public int restartDeadStreams() {
    return streams.restartDead();
  }

  /**
   * Resumes every stream stopped in error whose applier still runs: one stopped on a DDL or
   * truncate passes over that statement (the operator applied it to the targets), one stopped on a
   * row its target refused retries the row (the operator fixed the target). See {@link
   * io.reshard.cdc.ApplyEngine#resumeAfterError}. A stream shown in error because the capture it
   * reads has stopped for good is not one of them: resuming does not start a capture again. Call it
   * from the thread that drives this runner.
   *
   * @return the shards whose streams were resumed (empty if none was in error)
   * @throws SwitchRefusedException if the capture of a shard a running stream reads has stopped for
   *     good, naming it and its error, after the streams above were resumed (the message lists
   *     them)
   */
  public List<String> resumeStreams() {
    List<String> resumed = new ArrayList<>();
    for (Map<String, io.reshard.cdc.ApplyEngine> side :
        List.of(streams.forward(), streams.reverse())) {
      side.forEach(
          (shard, a) -> {
            if (a.state() == StreamsTable.State.ERROR && a.isRunning()) {
              a.resumeAfterError();
              resumed.add(shard);
            }
          });
    }
    refuseIfCaptureStopped(resumed);
    return resumed;
  }

  private void refuseIfCaptureStopped(List<String> resumed) {
    Optional<String> stopped =
        streams.forward().isEmpty() ? Optional.empty() : streams.captureFailure(spec.sources());
    if (stopped.isEmpty() && !streams.reverse().isEmpty()) {
      stopped = streams.captureFailure(spec.targets());
    }
    if (stopped.isPresent()) {
      throw new SwitchRefusedException(
          "workflow "
              + spec.name()
              + ": resume refused: "
              + stopped.get()
              + ". resume does not start a capture again: do what the capture's message says,"
              + " then restart the daemon, which starts the capture again"
              + (resumed.isEmpty()
                  ? ""
                  : " (the streams into " + resumed + " stopped in error were resumed)"));
    }
  }

  /** The largest apply lag of the forward streams, in ms. */
  public long maxLagMillis() {
    return streams.forward().values().stream().mapToLong(a -> a.lagMillis()).max().orElse(0);
  }

  private Map<String, String> servers() {
    Map<String, String> m = new LinkedHashMap<>();
    spec.sources().forEach(s -> m.put(s.shard(), s.endpointRef()));
    spec.targets().forEach(t -> m.put(t.shard(), t.endpointRef()));
    return m;
  }

  private void dropTables(ShardServer s) throws Exception {
    try (Connection c = ServerFence.connect(s);
        Statement st = c.createStatement()) {
      for (String table : spec.tables()) {
        st.execute("DROP TABLE IF EXISTS `" + spec.keyspace() + "`.`" + table + "`");
      }
    }
  }

  /** Stops this runner's streams (and its own captures); the stored state stays. */
  @Override
  public void close() throws InterruptedException {
    streams.close(); // a copy running on another thread is interrupted by its owner
  }
}
