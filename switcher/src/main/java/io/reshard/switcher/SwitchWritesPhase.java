package io.reshard.switcher;

import io.reshard.cdc.HandOver;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves the writes of a workflow's range from its sources to its targets (DESIGN 4.8), in order:
 *
 * <ol>
 *   <li>refuse unless the copy is done, no stream is in error, lag is under the limit and the last
 *       diff is clean (or forced);
 *   <li>fence the sources and make them {@code read_only} — the drain;
 *   <li>read the sources' position G;
 *   <li>wait until every target has applied G (timeout: un-fence, nothing changed), then freeze the
 *       forward streams there;
 *   <li>write the journal record — the point of no return;
 *   <li>store the targets' current positions, where the reverse streams will start;
 *   <li>raise every sequence of the moved tables above the largest id on the targets ({@link
 *       SequenceStep}), then open the targets' fence rows at the new epoch;
 *   <li>publish the next shard map with the targets serving writes; then, outside the fenced
 *       window, start the reverse streams from the positions of step 6.
 * </ol>
 *
 * With {@code --triggers=follow-writes} the triggers move from the sources to the targets between
 * steps 5 and 6 ({@link TriggerPlacement}), while neither side takes a write. Steps 6-8 are
 * idempotent ({@link #finishForward}), so a restarted switcher that finds the journal finishes
 * forward; one that finds the workflow in {@code SWITCHING_WRITES} rolls back ({@link #rollBack}).
 * The reverse direction ({@link ReverseTrafficPhase}) runs the same steps the other way. While the
 * reverse streams run, no forward stream does, so a change never loops.
 */
final class SwitchWritesPhase implements Phase {
  private static final Logger LOG = LoggerFactory.getLogger(SwitchWritesPhase.class);

  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;
  private final CutoverSteps steps = new CutoverSteps();

  SwitchWritesPhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
  }

  @Override
  public String name() {
    return "switch-traffic --writes";
  }

  /** The time each step took, filled in by {@link #run}. */
  CutoverSteps steps() {
    return steps;
  }

  /**
   * Runs the steps; returns the workflow in {@code WRITES_SWITCHED}.
   *
   * @throws SwitchRefusedException if step 1 refuses; nothing changed
   * @throws CutoverAbortedException if the fence or the catch-up timed out; rolled back
   */
  Workflow run(Workflow w, boolean force) throws Exception {
    refuseUnlessReady(w, force);
    // capture the targets before the drain, so the fenced window never waits for a capture to
    // start; the reverse streams start later, from the targets' positions at step 6
    steps.begin();
    captureTargets();
    steps.mark("prepare capture");
    // every connection the window needs is opened before it (a handshake costs milliseconds), and
    // before the state changes, so that a failure here leaves nothing to roll back
    try (ServerFence.Connections conns = ServerFence.Connections.open(spec.servers())) {
      // the next map too: only this switcher publishes (a newer one would fence its publisher,
      // and then the publish fails and writes nothing), so the newest map cannot change meanwhile
      ShardMap next = MapChanges.targetsServe(publisher.newest().orElseThrow(), spec);
      steps.mark("prepare connections and map");
      WorkflowState before = w.state();
      w =
          engine.transition(
              w,
              WorkflowState.SWITCHING_WRITES,
              "phase 2/8 fencing " + MapChanges.names(spec.sources()));
      steps.start();
      Map<String, GtidPosition> g = fenceAndReadPositions(w, before, conns);
      LOG.info(
          "workflow {}: phase 4/8 waiting for {} to apply G = {} and stop there",
          spec.name(),
          MapChanges.names(spec.targets()),
          g);
      // the stop point is set before the catch-up, so each applier stops in the very commit that
      // applies G (DESIGN 4.8 step 4: it never applies anything after G) and wakes us
      if (!streams.runToAndPause(streams.forward(), g, spec.catchUpTimeout(), spec.sources())) {
        streams.resume(streams.forward());
        unfence(w, before);
        throw new CutoverAbortedException(
            "workflow "
                + spec.name()
                + ": the targets did not apply "
                + g
                + streams
                    .captureFailure(spec.sources())
                    .map(f -> ": " + f)
                    .orElse(" within " + spec.catchUpTimeout().toMillis() + " ms")
                + "; the sources are writable again, the shard map is unchanged",
            null);
      }
      steps.mark("catch-up and pause");
      w =
          engine.transition(
              w.withJournal(g.toString(), w.updatedAt())
                  .withHandOver(HandOver.given(w.updatedAt(), Positions.strings(g))),
              WorkflowState.WRITES_SWITCHED,
              "phase 5/8 journal: forward streams frozen at " + g);
      steps.mark("journal");
      w = finishForward(w, conns, next, true);
    }
    streams.freeze(streams.forward()); // paused since step 4; now their threads and connections go
    steps.mark("after: stop forward streams");
    LOG.info("workflow {}: writes switched; {}", spec.name(), steps);
    return w;
  }

  /**
   * Starts (or checks) the targets' captures, which the reverse streams will read; before the state
   * changes, so a failure leaves nothing to roll back. A capture that had failed is started again
   * here (until the switch the targets' captures serve no stream, so an old failure, say from
   * before the targets held the keyspace, is not a reason to refuse).
   *
   * @throws SwitchRefusedException at once if a target's capture stops for good (again) while it is
   *     awaited
   */
  private void captureTargets() throws Exception {
    try {
      for (ShardServer t : spec.targets()) {
        streams.ensureCapture(t, Duration.ofSeconds(60));
      }
    } catch (SwitchRefusedException e) {
      throw new SwitchRefusedException(refusal(e.getMessage()));
    }
  }

  /**
   * Steps 6-8 for a restarted switcher that found the journal: the map is published unless the
   * newest one already has the targets serving.
   */
  Workflow finishForward(Workflow w) throws Exception {
    for (ShardServer t : spec.targets()) {
      streams.ensureCapture(t, Duration.ofSeconds(60)); // running already unless restarted
    }
    // the sources too: the triggers of a follow-writes workflow may still be to move
    try (ServerFence.Connections conns = ServerFence.Connections.open(spec.servers())) {
      ShardMap current = publisher.newest().orElseThrow();
      ShardMap next = MapChanges.unlessPublished(current, MapChanges.targetsServe(current, spec));
      return finishForward(w, conns, next, next != current);
    }
  }

  /**
   * Steps 6-8, idempotent: the reverse streams' start positions are stored before any target is
   * opened (a target takes no write before that, so reading them again after a crash before they
   * were stored loses nothing); the targets open at the epoch {@code next} gives them; {@code next}
   * is published if {@code publish}.
   */
  private Workflow finishForward(
      Workflow w, ServerFence.Connections conns, ShardMap next, boolean publish) throws Exception {
    // the triggers move before anything writes on either side: the sources are fenced and
    // read_only, the forward streams stopped at G, no target is open and no reverse stream runs
    new TriggerPlacement(spec, w).ownedBy(spec.targets(), spec.sources(), conns);
    steps.mark("triggers");
    if (w.reverseStart() == null) {
      Map<String, GtidPosition> start = new LinkedHashMap<>();
      for (ShardServer t : spec.targets()) {
        start.put(t.shard(), ServerFence.position(conns.of(t)));
      }
      Map<String, String> taken = Positions.strings(start);
      w = engine.update(w.withReverseStart(taken, w.updatedAt()).withHandOverTaken(taken));
    }
    steps.mark("reverse positions");
    // before a target takes a write: ids handed out from now on are above every id copied
    Map<String, Long> raised =
        SequenceStep.raiseAbove(spec, SequenceStep.connections(spec.targets(), conns));
    if (!raised.isEmpty()) {
      LOG.info(
          "workflow {}: phase 7/8 sequences raised above every id on the targets: {}",
          spec.name(),
          raised);
    }
    steps.mark("sequences");
    conns.onEach(
        spec.targets(),
        (c, t) -> ServerFence.open(c, t, spec.keyspace(), MapChanges.epochOf(next, t)));
    steps.mark("open targets");
    Failpoints.reach("switch:targets-open");
    if (publish) {
      publisher.publish(next);
    }
    steps.mark("publish");
    Failpoints.reach("switch:published");
    // outside the window: they start from the positions stored above, before any target took a
    // write, so whatever the targets took meanwhile is still ahead of them
    streams.startReverse(w.generation(), Positions.parse(w.reverseStart()));
    steps.mark("after: reverse streams");
    Failpoints.reach("switch:reverse-started");
    LOG.info(
        "workflow {}: phase 8/8 shard map version {} {}: {} serve writes",
        spec.name(),
        next.version(),
        publish ? "published" : "was already published",
        MapChanges.names(spec.targets()));
    return w;
  }

  /**
   * Rolls back a switch a crash interrupted before its journal record: the sources are un-fenced
   * and the workflow returns to the state the map shows (reads on the targets or not).
   */
  Workflow rollBack(Workflow w) throws Exception {
    ShardMap current = publisher.newest().orElseThrow();
    boolean readsOnTargets =
        spec.targets().stream()
            .allMatch(t -> current.shard(t.range()).map(s -> s.servesReads()).orElse(false));
    return unfence(w, readsOnTargets ? WorkflowState.READS_SWITCHED : WorkflowState.RUNNING);
  }

  /**
   * What {@link #run} would do, or the reasons it would refuse; changes nothing.
   *
   * @throws SwitchRefusedException as {@link #run} would
   */
  List<String> plan(Workflow w, boolean force) {
    refuseUnlessReady(w, force);
    ShardMap current = publisher.newest().orElseThrow();
    ShardMap next = MapChanges.targetsServe(current, spec);
    List<String> plan = new ArrayList<>();
    plan.add("capture " + MapChanges.names(spec.targets()) + " (before the fence)");
    plan.add(
        "fence "
            + MapChanges.names(spec.sources())
            + " and set them read_only (lock wait at most "
            + spec.fenceLockWait().toMillis()
            + " ms)");
    plan.add("read the sources' position G");
    plan.add(
        "wait until "
            + MapChanges.names(spec.targets())
            + " have applied G (at most "
            + spec.catchUpTimeout().toMillis()
            + " ms, else roll back), the forward streams stopping there");
    plan.add("write the journal record (the point of no return)");
    int triggers = w.schemaObjects().triggerDefinitions().size();
    if (triggers > 0) {
      plan.add(
          "create the "
              + (triggers == 1 ? "trigger" : triggers + " triggers")
              + " of the moved tables on "
              + MapChanges.names(spec.targets())
              + " and drop them from "
              + MapChanges.names(spec.sources())
              + " (--triggers=follow-writes)");
    }
    plan.add("start reverse streams " + MapChanges.names(spec.targets()) + " -> sources");
    for (ShardServer t : spec.targets()) {
      plan.add(
          "open "
              + t.shard()
              + " on "
              + t.endpointRef()
              + " for writes at epoch "
              + MapChanges.epochOf(next, t));
    }
    plan.add(
        "publish shard map version "
            + next.version()
            + " (now "
            + current.version()
            + ") with "
            + MapChanges.names(spec.targets())
            + " serving writes");
    return plan;
  }

  private void refuseUnlessReady(Workflow w, boolean force) {
    List<String> reasons = new ArrayList<>();
    if (w.state() == WorkflowState.WRITES_SWITCHED) {
      reasons.add(
          "writes are switched already: the targets serve them (reverse-traffic moves them back to"
              + " the sources, complete retires the sources)");
    } else if (w.state() != WorkflowState.RUNNING && w.state() != WorkflowState.READS_SWITCHED) {
      reasons.add(
          "the workflow is "
              + w.state().inWords()
              + ", and writes switch only after the copy is done, from a workflow that is not"
              + " switching already (next: "
              + w.state().nextInWords()
              + ")");
    }
    reasons.addAll(streams.problems(spec.maxLag()));
    String gap = CaptureGaps.refusal(w, "switch writes");
    if (gap != null) {
      reasons.add(gap);
    } else if (!force && !Boolean.TRUE.equals(w.lastDiffClean())) {
      reasons.add(
          w.lastDiffClean() == null
              ? "no diff has run since the copy or the last reverse traffic (run one, or use --force)"
              : "the last diff found differences (fix them, or use --force)");
    }
    if (!reasons.isEmpty()) {
      throw new SwitchRefusedException(refusal(String.join("; ", reasons)));
    }
  }

  private String refusal(String reasons) {
    return name() + " refused for workflow " + spec.name() + ": " + reasons;
  }

  private Map<String, GtidPosition> fenceAndReadPositions(
      Workflow w, WorkflowState before, ServerFence.Connections conns) throws Exception {
    try {
      conns.onEach(
          spec.sources(), (c, s) -> ServerFence.fence(c, s, spec.keyspace(), spec.fenceLockWait()));
      steps.mark("fence");
    } catch (SQLException e) {
      unfence(w, before);
      throw new CutoverAbortedException(
          "workflow "
              + spec.name()
              + ": fencing the sources waited longer than "
              + spec.fenceLockWait().toMillis()
              + " ms for transactions in flight [error "
              + e.getErrorCode()
              + "]; nothing changed",
          e);
    }
    Map<String, GtidPosition> g = new LinkedHashMap<>();
    for (ShardServer s : spec.sources()) {
      g.put(s.shard(), ServerFence.position(conns.of(s)));
    }
    steps.mark("read G");
    return g;
  }

  private Workflow unfence(Workflow w, WorkflowState back) throws SQLException {
    for (ShardServer s : spec.sources()) {
      ServerFence.unfence(s, spec.keyspace());
    }
    return engine.transition(w, back, "switch abandoned, sources un-fenced");
  }
}
