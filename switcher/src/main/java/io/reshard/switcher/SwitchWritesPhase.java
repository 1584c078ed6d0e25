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

  SwitchWritesPhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
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
    for (ShardServer t : spec.targets()) {
      streams.ensureCapture(t, Duration.ofSeconds(60));
    }
    WorkflowState before = w.state();
    w =
        engine.transition(
            w,
            WorkflowState.SWITCHING_WRITES,
            "phase 2/8 fencing " + MapChanges.names(spec.sources()));
    long t0 = System.nanoTime();
    Map<String, GtidPosition> g = fenceAndReadPositions(w, before);
    long fenced = System.nanoTime();
    LOG.info(
        "workflow {}: phase 4/8 waiting for {} to apply G = {}",
        spec.name(),
        MapChanges.names(spec.targets()),
        g);
    if (!streams.awaitApplied(streams.forward(), g, spec.catchUpTimeout())) {
      unfence(w, before);
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
    long t4 = System.nanoTime();
    LOG.info(
        "workflow {}: step 3-4 G read and applied {} ms", spec.name(), (t4 - fenced) / 1_000_000);
    streams.pauseAt(streams.forward(), g, spec.catchUpTimeout());
    LOG.info(
        "workflow {}: forward streams frozen at G in {} ms",
        spec.name(),
        (System.nanoTime() - t4) / 1_000_000);
    w =
        engine.transition(
            w.withJournal(g.toString(), w.updatedAt()),
            WorkflowState.WRITES_SWITCHED,
            "phase 5/8 journal: forward streams frozen at " + g);
    w = finishForward(w);
    streams.freeze(streams.forward()); // paused since step 4; now their threads and connections go
    LOG.info(
        "workflow {}: writes switched in {} ms; the sources were fenced for {} ms until the map was published",
        spec.name(),
        (System.nanoTime() - t0) / 1_000_000,
        (System.nanoTime() - fenced) / 1_000_000);
    return w;
  }

  /**
   * Steps 6-8, idempotent, so a restarted switcher that finds the journal finishes forward: the
   * reverse streams' start positions are stored before any target is opened (a target takes no
   * write before that, so reading them again after a crash before they were stored loses nothing);
   * the targets open at the epoch the map gives them; the map is published unless it already shows
   * the targets serving.
   */
  Workflow finishForward(Workflow w) throws Exception {
    for (ShardServer t : spec.targets()) {
      streams.ensureCapture(t, Duration.ofSeconds(60)); // running already unless restarted
    }
    if (w.reverseStart() == null) {
      Map<String, GtidPosition> start = new LinkedHashMap<>();
      for (ShardServer t : spec.targets()) {
        start.put(t.shard(), ServerFence.position(t));
      }
      w = engine.update(w.withReverseStart(Positions.strings(start), w.updatedAt()));
    }
    long t6 = System.nanoTime();
    streams.startReverse(w.generation(), Positions.parse(w.reverseStart()));
    Failpoints.reach("switch:reverse-started");
    ShardMap current = publisher.newest().orElseThrow();
    ShardMap next = MapChanges.unlessPublished(current, MapChanges.targetsServe(current, spec));
    boolean published = next == current;
    long t7 = System.nanoTime();
    for (ShardServer t : spec.targets()) {
      ServerFence.open(t, spec.keyspace(), MapChanges.epochOf(next, t));
    }
    Failpoints.reach("switch:targets-open");
    long t8 = System.nanoTime();
    if (!published) {
      publisher.publish(next);
    }
    Failpoints.reach("switch:published");
    LOG.debug(
        "workflow {}: step 6 reverse streams {} ms, step 7 open targets {} ms, step 8 publish {} ms",
        spec.name(),
        (t7 - t6) / 1_000_000,
        (t8 - t7) / 1_000_000,
        (System.nanoTime() - t8) / 1_000_000);
    LOG.info(
        "workflow {}: phase 8/8 shard map version {} {}: {} serve writes",
        spec.name(),
        next.version(),
        published ? "was already published" : "published",
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
    List<String> steps = new java.util.ArrayList<>();
    steps.add("capture " + MapChanges.names(spec.targets()) + " (before the fence)");
    steps.add(
        "fence "
            + MapChanges.names(spec.sources())
            + " and set them read_only (lock wait at most "
            + spec.fenceLockWait().toMillis()
            + " ms)");
    steps.add("read the sources' position G");
    steps.add(
        "wait until "
            + MapChanges.names(spec.targets())
            + " have applied G (at most "
            + spec.catchUpTimeout().toMillis()
            + " ms, else roll back), then freeze the forward streams at G");
    steps.add("write the journal record (the point of no return)");
    steps.add("start reverse streams " + MapChanges.names(spec.targets()) + " -> sources");
    for (ShardServer t : spec.targets()) {
      steps.add(
          "open "
              + t.shard()
              + " on "
              + t.endpointRef()
              + " for writes at epoch "
              + MapChanges.epochOf(next, t));
    }
    steps.add(
        "publish shard map version "
            + next.version()
            + " (now "
            + current.version()
            + ") with "
            + MapChanges.names(spec.targets())
            + " serving writes");
    return steps;
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
              ? "no diff has run since the copy or the last reverse traffic (run one, or use --force)"
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

  private Map<String, GtidPosition> fenceAndReadPositions(Workflow w, WorkflowState before)
      throws Exception {
    try {
      for (ShardServer s : spec.sources()) {
        ServerFence.fence(s, spec.keyspace(), spec.fenceLockWait());
      }
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
      g.put(s.shard(), ServerFence.position(s));
    }
    return g;
  }

  private Workflow unfence(Workflow w, WorkflowState back) throws SQLException {
    for (ShardServer s : spec.sources()) {
      ServerFence.unfence(s, spec.keyspace());
    }
    return engine.transition(w, back, "switch abandoned, sources un-fenced");
  }
}
