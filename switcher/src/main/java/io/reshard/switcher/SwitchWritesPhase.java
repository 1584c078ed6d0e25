package io.reshard.switcher;

import io.reshard.cdc.GtidPosition;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.SQLException;
import java.time.Duration;
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
 *   <li>capture the targets and start reverse streams from their current positions;
 *   <li>open the targets' fence rows at the new epoch;
 *   <li>publish the next shard map with the targets serving writes.
 * </ol>
 *
 * The reverse direction ({@link ReverseTrafficPhase}) runs the same steps the other way. While the
 * reverse streams run, no forward stream does, so a change never loops.
 */
final class SwitchWritesPhase {
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
    // start; the reverse streams start later, from the targets' positions at step 6, and skip what
    // is before
    steps.begin();
    for (ShardServer t : spec.targets()) {
      streams.ensureCapture(t, Duration.ofSeconds(60));
    }
    steps.mark("prepare capture");
    // every connection the window needs is opened before it (a handshake costs milliseconds), and
    // before the state changes, so that a failure here leaves nothing to roll back
    try (ServerFence.Connections conns = ServerFence.Connections.open(servers())) {
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
      if (!streams.runToAndPause(streams.forward(), g, spec.catchUpTimeout())) {
        streams.resume(streams.forward());
        rollBack(w, before);
        throw new CutoverAbortedException(
            "workflow "
                + spec.name()
                + ": the targets did not apply "
                + g
                + " within "
                + spec.catchUpTimeout().toMillis()
                + " ms; the sources are writable again, the shard map is unchanged",
            null);
      }
      steps.mark("catch-up and pause");
      w =
          engine.transition(
              w.withJournal(g.toString(), w.updatedAt()),
              WorkflowState.WRITES_SWITCHED,
              "phase 5/8 journal: forward streams frozen at " + g);
      steps.mark("journal");
      finishForward(w, conns, next);
    }
    streams.freeze(streams.forward()); // paused since step 4; now their threads and connections go
    steps.mark("after: stop forward streams");
    LOG.info("workflow {}: writes switched; {}", spec.name(), steps);
    return w;
  }

  /** Steps 6-8: idempotent, so a restarted switcher that finds the journal finishes forward. */
  void finishForward(Workflow w) throws Exception {
    try (ServerFence.Connections conns = ServerFence.Connections.open(spec.targets())) {
      finishForward(w, conns, null);
    }
  }

  /**
   * Steps 6-8 on connections opened before (to every target at least); {@code next} is the map to
   * publish, or null to derive it from the newest one.
   */
  private void finishForward(Workflow w, ServerFence.Connections conns, ShardMap next)
      throws Exception {
    Map<String, GtidPosition> start = new LinkedHashMap<>();
    for (ShardServer t : spec.targets()) {
      if (streams.capture(t.shard()) == null) {
        streams.ensureCapture(t, Duration.ofSeconds(60)); // a restarted switcher finishing forward
      }
      start.put(t.shard(), ServerFence.position(conns.of(t)));
    }
    streams.startReverse(start);
    steps.mark("reverse streams");
    if (next == null) {
      next = MapChanges.targetsServe(publisher.newest().orElseThrow(), spec);
      steps.mark("read map");
    }
    for (ShardServer t : spec.targets()) {
      ServerFence.open(conns.of(t), t, spec.keyspace(), MapChanges.epochOf(next, t));
    }
    steps.mark("open targets");
    publisher.publish(next);
    steps.mark("publish");
    LOG.info(
        "workflow {}: phase 8/8 shard map version {} published: {} serve writes",
        spec.name(),
        next.version(),
        MapChanges.names(spec.targets()));
  }

  /** The sources and the targets. */
  private List<ShardServer> servers() {
    List<ShardServer> all = new java.util.ArrayList<>(spec.sources());
    all.addAll(spec.targets());
    return all;
  }

  private void refuseUnlessReady(Workflow w, boolean force) {
    List<String> reasons = new java.util.ArrayList<>();
    if (w.state() != WorkflowState.RUNNING && w.state() != WorkflowState.READS_SWITCHED) {
      reasons.add(
          "the workflow is "
              + w.state()
              + ", and writes switch only after the copy is done (RUNNING or READS_SWITCHED)");
    }
    reasons.addAll(streams.problems(spec.maxLag()));
    if (!force && !Boolean.TRUE.equals(w.lastDiffClean())) {
      reasons.add(
          w.lastDiffClean() == null
              ? "no diff has run (run one, or use --force)"
              : "the last diff found differences (fix them, or use --force)");
    }
    if (!reasons.isEmpty()) {
      throw new SwitchRefusedException(
          "switch-traffic --writes refused for workflow "
              + spec.name()
              + ": "
              + String.join("; ", reasons));
    }
  }

  private Map<String, GtidPosition> fenceAndReadPositions(
      Workflow w, WorkflowState before, ServerFence.Connections conns) throws Exception {
    try {
      for (ShardServer s : spec.sources()) {
        ServerFence.fence(conns.of(s), s, spec.keyspace(), spec.fenceLockWait());
      }
      steps.mark("fence");
    } catch (SQLException e) {
      rollBack(w, before);
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

  private void rollBack(Workflow w, WorkflowState before) throws SQLException {
    for (ShardServer s : spec.sources()) {
      ServerFence.unfence(s, spec.keyspace());
    }
    engine.transition(w, before, "switch abandoned, sources un-fenced");
  }
}
