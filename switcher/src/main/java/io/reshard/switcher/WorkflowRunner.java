package io.reshard.switcher;

import io.micrometer.core.instrument.MeterRegistry;
import io.reshard.cdc.ApplyConfig;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopyProgress;
import io.reshard.differ.DiffReport;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.router.ShardMapPublisher;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One workflow's runbook (DESIGN 4.6-4.8, docs/workflow.md), one {@link Phase} per step: {@link
 * #create}, {@link #copy}, {@link #diff} (or {@link #repair}), {@link #switchReads}, {@link
 * #switchWrites}, then {@link #complete}, or {@link #reverseTraffic} to move writes back; {@link
 * #cancel} before any write switch; and {@link #resume} to take up a stored workflow after a crash.
 * Every state change goes through the {@link WorkflowEngine}; the shard map through the keyspace's
 * fenced {@link ShardMapPublisher}.
 *
 * <p>Everything a step needs is re-derived from the stored record, the shard map and the stream
 * state in the targets (DESIGN 5), so a process killed at any moment and started again finishes the
 * same workflow the same way. One thread drives a runner's steps; {@link #status} may be read from
 * any thread.
 *
 * <p>Any N to M shape (DESIGN 4.9): one or more adjacent sources, targets that divide their union;
 * a split is the case of one source.
 */
public final class WorkflowRunner implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(WorkflowRunner.class);

  private final WorkflowSpec spec;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;
  private final Streams streams;
  private volatile Workflow workflow;
  // guards the record changes a copy's thread and an action's thread may make at the same time
  private final Object records = new Object();
  private volatile CopyPhase copying;
  // the last progress of the copy run before the current one, shown while the current one starts
  private volatile CopyProgress earlierCopy;
  private volatile DiffPhase diffing;
  private volatile List<DiffReport> lastDiff = List.of();
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
   */
  public WorkflowRunner(
      WorkflowSpec spec,
      WorkflowEngine engine,
      ShardMapPublisher publisher,
      CaptureRegistry captures,
      MeterRegistry meters) {
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
   * Phase 1, {@link CreatePhase}: preflight, target tables, closed target fences, capture, P0; the
   * record is stored with P0 before the forward streams start from it.
   *
   * @throws SwitchRefusedException naming every problem; nothing was written
   */
  public Workflow create() throws Exception {
    return stored(new CreatePhase(spec, streams, engine).run());
  }

  /**
   * Phase 2, {@link CopyPhase}: the copy, while the forward streams apply every change after P0.
   * Continues a copy a crash interrupted (from the targets' {@code copy_state}).
   */
  public Workflow copy(CopierConfig config) throws Exception {
    CopyPhase phase = new CopyPhase(spec, streams, engine, config);
    workflow = phase.start(workflow);
    copyProgress().ifPresent(p -> earlierCopy = p);
    copying = phase;
    phase.copy(workflow);
    synchronized (records) {
      // the copy runs on a thread of its own: the record may have changed meanwhile
      return stored(phase.done(workflow));
    }
  }

  /**
   * Records {@code error} on the workflow (or clears it with null), keeping every other field as
   * the runner has it; safe from the copy's thread.
   *
   * @return the stored record
   */
  public Workflow recordError(String error) {
    synchronized (records) {
      return stored(engine.update(workflow.withError(error, java.time.Instant.now())));
    }
  }

  /**
   * The copy's progress, if a copy ran in this process. A copy started again (after a failure)
   * shows the earlier run's rows (without a rate) until it has counted its own, and once done
   * without copying anything itself, the earlier run's rate: not "0 of ~0 rows" or "0 rows/s".
   */
  public Optional<CopyProgress> copyProgress() {
    CopyPhase c = copying;
    if (c == null) {
      return Optional.empty();
    }
    return c.progress().map(now -> shown(now, earlierCopy));
  }

  /** What {@link #copyProgress} shows of the current run {@code p}, given the one before it. */
  static CopyProgress shown(CopyProgress p, CopyProgress before) {
    if (before == null) {
      return p;
    }
    if (!p.done() && p.rowsCopied() == 0 && p.estimatedRows() == 0) {
      // its rows, without a rate or a time left: nothing is copied until the new run counts
      return new CopyProgress(
          before.workflow(),
          before.tables(),
          before.rowsCopied(),
          before.estimatedRows(),
          0,
          Optional.empty(),
          false);
    }
    if (p.done() && p.rowsPerSecond() == 0 && before.rowsPerSecond() > 0) {
      return new CopyProgress(
          p.workflow(),
          p.tables(),
          p.rowsCopied(),
          p.estimatedRows(),
          before.rowsPerSecond(),
          p.eta(),
          true);
    }
    return p;
  }

  /**
   * {@link DiffPhase}: every target against the source at one consistent position; records whether
   * it was clean.
   *
   * @throws SwitchRefusedException if the forward streams no longer run (writes are switched), or
   *     if the source's capture has stopped for good (then at once); the appliers run on as before
   */
  public List<DiffReport> diff() throws Exception {
    DiffPhase phase = diffing = new DiffPhase(spec, streams, engine, differConfig);
    List<DiffReport> reports = phase.diff(workflow);
    recordDiff(phase, reports);
    return reports;
  }

  /**
   * {@link DiffPhase}: a repair of every target at one consistent position, then a diff of every
   * target ({@link Differ#repairAll()}); records whether the second diff was clean.
   *
   * @return per target, what the repair found and fixed, and the diff after it
   * @throws SwitchRefusedException as {@link #diff()}
   */
  public List<Differ.RepairResult> repair() throws Exception {
    DiffPhase phase = diffing = new DiffPhase(spec, streams, engine, differConfig);
    List<Differ.RepairResult> results = phase.repair(workflow);
    recordDiff(phase, results.stream().map(Differ.RepairResult::verified).toList());
    return results;
  }

  private void recordDiff(DiffPhase phase, List<DiffReport> reports) {
    lastDiff = List.copyOf(reports);
    workflow = phase.record(workflow, reports);
  }

  /** The reports of the last diff this runner ran; empty if none. */
  public List<DiffReport> lastDiff() {
    return lastDiff;
  }

  /**
   * {@link SwitchReadsPhase}: reads of the moved range go to the targets (replication lag is the
   * staleness bound).
   *
   * @throws SwitchRefusedException if the workflow is not in a state to switch reads, the next map
   *     would be invalid, or the sources' capture has stopped for good; nothing changed
   */
  public Workflow switchReads() {
    return stored(new SwitchReadsPhase(spec, streams, engine, publisher).run(workflow));
  }

  /**
   * {@link SwitchWritesPhase}: writes of the moved range go to the targets.
   *
   * @throws SwitchRefusedException naming every reason; nothing changed
   * @throws CutoverAbortedException if the fence or the catch-up timed out; rolled back
   */
  public Workflow switchWrites(boolean force) throws Exception {
    return switchWrites(force, spec.catchUpTimeout());
  }

  /** {@link #switchWrites(boolean)} waiting at most {@code catchUpTimeout} for the targets. */
  public Workflow switchWrites(boolean force, Duration catchUpTimeout) throws Exception {
    SwitchWritesPhase phase =
        new SwitchWritesPhase(spec.withCatchUpTimeout(catchUpTimeout), streams, engine, publisher);
    return cutover(phase.steps(), () -> phase.run(workflow, force));
  }

  /**
   * Refuses (as {@link #switchWrites} would) or returns the switch's plan, changing nothing: for
   * {@code switch-traffic --dry-run}.
   */
  public List<String> switchWritesPlan(boolean force) {
    return new SwitchWritesPhase(spec, streams, engine, publisher).plan(workflow, force);
  }

  /** {@link ReverseTrafficPhase}: writes (and reads) back to the sources. */
  public Workflow reverseTraffic() throws Exception {
    ReverseTrafficPhase phase = new ReverseTrafficPhase(spec, streams, engine, publisher);
    return cutover(phase.steps(), () -> phase.run(workflow));
  }

  /** Runs a write switch or reverse traffic; after a rollback the record is the stored one. */
  private Workflow cutover(CutoverSteps steps, Callable<Workflow> phase) throws Exception {
    lastCutoverSteps = steps;
    try {
      return stored(phase.call());
    } catch (CutoverAbortedException e) {
      workflow = engine.store().load(spec.name()).orElse(workflow);
      throw e;
    }
  }

  /** Keeps {@code w} as the record the next step starts from (and status shows). */
  private Workflow stored(Workflow w) {
    workflow = w;
    return w;
  }

  /**
   * {@link CompletePhase}: finishes a switched workflow: reverse streams stop; the sources leave
   * the map, read-only, with their data unless {@code dropSourceData} (then their moved tables go).
   */
  public Workflow complete(boolean dropSourceData) throws Exception {
    return stored(
        new CompletePhase(spec, streams, engine, publisher).run(workflow, dropSourceData));
  }

  /** {@link #complete(boolean)} keeping the sources' data. */
  public Workflow complete() throws Exception {
    return complete(false);
  }

  /**
   * {@link CancelPhase}: abandons a workflow before any write switch: streams stop, the targets'
   * copies are emptied. A copy running on another thread must have been interrupted first.
   */
  public Workflow cancel() throws Exception {
    return stored(new CancelPhase(spec, streams, engine, publisher).run(workflow));
  }

  /**
   * Takes up a stored workflow after a restart (DESIGN 5) and brings it to a state in which the
   * operator's next step can run: the streams of its state run again from the positions stored in
   * the targets; a switch the crash interrupted before its journal record is rolled back (sources
   * un-fenced, map unchanged); one interrupted after it is finished forward (the same for reverse
   * traffic). A workflow in {@code CREATED} or {@code COPYING} still needs {@link #copy}. A source
   * capture that stopped for good does not stop the resume of a workflow before its write switch:
   * its streams start and show the capture's error ({@link #status}).
   *
   * @return the record after the resume
   */
  public Workflow resume(Workflow stored) throws Exception {
    workflow = stored;
    switch (stored.state()) {
      case CREATED, COPYING, RUNNING -> startForwardFromRecord();
      case READS_SWITCHED -> {
        startForwardFromRecord();
        new SwitchReadsPhase(spec, streams, engine, publisher).publishIfNeeded();
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
      try {
        streams.ensureCapture(s, Duration.ofSeconds(60));
      } catch (SwitchRefusedException stopped) {
        // The capture stopped for good (a change it cannot publish, say). The workflow is taken
        // up all the same, its streams started from their stored positions: its status and the
        // daemon's health then show the capture's error as the streams' (Streams#status), and the
        // steps that need the capture refuse, naming it. Refusing the take-up instead would hide
        // the workflow from every action and from its status until the capture runs again.
        LOG.warn(
            "workflow {}: taken up with a stopped capture: {}", spec.name(), stopped.getMessage());
      }
    }
    streams.startForward(workflow.generation(), Positions.parse(workflow.forwardStart()));
  }

  /**
   * A snapshot for status displays: the record, whether the copy is done, the largest lag, each
   * stream's state and positions, the copy's progress and the diff's.
   */
  public WorkflowStatus status() {
    DiffPhase d = diffing;
    return new WorkflowStatus(
        workflow,
        maxLagMillis(),
        streams.status(),
        copyProgress().orElse(null),
        d == null ? null : d.progress());
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
   * reached, from the position stored in its target. Call it from the thread that drives this
   * runner (the daemon holds the workflow's action lock).
   *
   * @return how many streams were started again
   */
  public int restartDeadStreams() {
    return streams.restartDead();
  }

  /**
   * Resumes every stream stopped in error whose applier still runs: one stopped on a DDL or
   * truncate passes over that statement (the operator applied it to the targets), one stopped on a
   * row its target refused retries the row (the operator fixed the target). Resuming does not start
   * a stopped capture again. Call it from the thread that drives this runner.
   *
   * @return the shards whose streams were resumed (empty if none was in error)
   * @throws SwitchRefusedException if the capture of a shard a running stream reads has stopped for
   *     good, naming it and its error, after the streams above were resumed (listed in the message)
   */
  public List<String> resumeStreams() {
    return streams.resumeAfterError();
  }

  /**
   * Records on the workflow that its streams missed changes ({@link Workflow#captureGap()}): its
   * last diff no longer counts, and neither traffic switch runs until a diff is clean again. Call
   * it before the capture skips them (then a crash in between asks for a repair that finds nothing,
   * never the other way round), from the thread that drives this runner.
   *
   * @param gap which shard, from which position, and why
   * @return the stored record
   */
  public Workflow recordCaptureGap(String gap) {
    synchronized (records) {
      return stored(engine.update(workflow.withCaptureGap(gap, java.time.Instant.now())));
    }
  }

  /** The command that repairs this workflow's targets and records a clean diff. */
  public String repairCommand() {
    return CaptureGaps.repairCommand(spec.name());
  }

  /**
   * The largest apply lag of the streams that run, in ms: the forward streams before the write
   * switch, the reverse streams after it (the forward ones have stopped at G then).
   */
  public long maxLagMillis() {
    return java.util.stream.Stream.concat(
            streams.forward().values().stream(), streams.reverse().values().stream())
        .mapToLong(a -> a.lagMillis())
        .max()
        .orElse(0);
  }

  /** Stops this runner's streams (and its own captures); the stored state stays. */
  @Override
  public void close() throws InterruptedException {
    streams.close(); // a copy running on another thread is interrupted by its owner
  }
}
