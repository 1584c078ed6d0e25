package io.reshard.switcher;

import io.reshard.cdc.HandOver;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Moves writes back from the targets to the sources after a write switch (DESIGN 4.8): fence the
 * targets, wait until the reverse streams have applied the targets' position and stop them there,
 * write the reverse journal (the new forward generation and the sources' position it starts from:
 * after the writes the reverse streams made, so nothing echoes back), open the sources at a new
 * epoch, publish the map with the sources serving reads and writes again, and then, outside the
 * fenced window, start the new forward streams from that position. With {@code
 * --triggers=follow-writes} the triggers move from the targets back to the sources once the reverse
 * streams stopped, before the new forward start is read ({@link TriggerPlacement}). A restart
 * before the reverse journal rolls back (the triggers back on the targets); after it, finishes
 * ({@link #resume}).
 */
final class ReverseTrafficPhase implements Phase {
  private static final Logger LOG = LoggerFactory.getLogger(ReverseTrafficPhase.class);

  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;
  private final CutoverSteps steps = new CutoverSteps();

  ReverseTrafficPhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
  }

  @Override
  public String name() {
    return "reverse-traffic";
  }

  /** The time each step took, filled in by {@link #run}. */
  CutoverSteps steps() {
    return steps;
  }

  /**
   * Moves writes (and reads) back to the sources.
   *
   * @throws SwitchRefusedException if the workflow's writes are not switched, before anything is
   *     checked or opened; nothing changed
   */
  Workflow run(Workflow w) throws Exception {
    if (!w.state().canMoveTo(WorkflowState.REVERSING)) {
      throw new SwitchRefusedException(
          w.state()
              .refusal(
                  name(),
                  spec.name(),
                  "writes move back only once they are switched to the targets"));
    }
    // the catch-up reads the targets' captures: if one has stopped for good, the targets would be
    // fenced for nothing and the catch-up would time out; refuse while nothing has changed
    streams.refuseIfCaptureStopped(spec.targets(), "reverse traffic");
    steps.begin();
    // the sources' capture runs since before the forward switch; this only checks it
    for (ShardServer s : spec.sources()) {
      streams.ensureCapture(s, Duration.ofSeconds(60));
    }
    // every connection the window needs is opened before it (a handshake costs milliseconds), and
    // before the state changes, so that a failure here leaves nothing to roll back
    try (ServerFence.Connections conns = ServerFence.Connections.open(spec.servers())) {
      // the next map too: only this switcher publishes (a newer one would fence its publisher,
      // and then the publish fails and writes nothing), so the newest map cannot change meanwhile
      ShardMap next = MapChanges.sourcesServe(publisher.newest().orElseThrow(), spec);
      steps.mark("prepare connections and map");
      w =
          engine.transition(
              w, WorkflowState.REVERSING, "fencing " + MapChanges.names(spec.targets()));
      return runFenced(w, conns, next);
    }
  }

  private Workflow runFenced(Workflow w, ServerFence.Connections conns, ShardMap next)
      throws Exception {
    steps.start();
    try {
      conns.onEach(
          spec.targets(), (c, t) -> ServerFence.fence(c, t, spec.keyspace(), spec.fenceLockWait()));
      steps.mark("fence");
    } catch (SQLException e) {
      throw abort(w, conns, "fencing the targets timed out [error " + e.getErrorCode() + "]", e);
    }
    Map<String, GtidPosition> g = new LinkedHashMap<>();
    for (ShardServer t : spec.targets()) {
      g.put(t.shard(), ServerFence.position(conns.of(t)));
    }
    steps.mark("read G");
    // stop points first: each reverse applier holds every target's topic at its G and stops in
    // the commit that reaches the last one (never applying anything after G)
    if (!streams.runToAndPause(streams.reverse(), g, spec.catchUpTimeout(), spec.targets())) {
      streams.resume(streams.reverse());
      String why = streams.captureFailure(spec.targets()).map(f -> ": " + f).orElse(" in time");
      throw abort(w, conns, "the sources did not apply " + g + why, null);
    }
    steps.mark("catch-up and pause");
    // the triggers move back while neither side takes a write (the targets fenced, the sources
    // not yet open, the reverse streams stopped at G), and before the new forward streams' start
    // is read
    try {
      new TriggerPlacement(spec, w).ownedBy(spec.sources(), spec.targets(), conns);
    } catch (SQLException e) {
      throw abort(w, conns, "moving the triggers back failed: " + e.getMessage(), e);
    }
    steps.mark("triggers");
    Map<String, GtidPosition> p0 = new LinkedHashMap<>();
    for (ShardServer s : spec.sources()) {
      p0.put(s.shard(), ServerFence.position(conns.of(s)));
    }
    // the reverse journal: the new forward generation and where it starts; no return after this
    w =
        engine.update(
            w.withForward(w.generation() + 1, Positions.strings(p0), w.updatedAt())
                .withReversePosition(g.toString(), w.updatedAt())
                .withHandOver(
                    HandOver.given(w.updatedAt(), Positions.strings(g))
                        .takenBy(Positions.strings(p0))));
    steps.mark("reverse journal");
    Failpoints.reach("reverse:journal");
    return finish(w, conns, next, true);
  }

  /**
   * Takes up a reverse traffic a crash interrupted: finished if its reverse journal was written,
   * otherwise rolled back (targets un-fenced, reverse streams running again, map unchanged).
   */
  Workflow resume(Workflow w) throws Exception {
    if (w.reversePosition() != null) {
      for (ShardServer s : spec.sources()) {
        streams.ensureCapture(s, Duration.ofSeconds(60)); // the new forward streams read them
      }
      try (ServerFence.Connections conns = ServerFence.Connections.open(spec.servers())) {
        ShardMap current = publisher.newest().orElseThrow();
        ShardMap next = MapChanges.unlessPublished(current, MapChanges.sourcesServe(current, spec));
        return finish(w, conns, next, next != current);
      }
    }
    for (ShardServer t : spec.targets()) {
      streams.ensureCapture(t, Duration.ofSeconds(60));
    }
    try (ServerFence.Connections conns = ServerFence.Connections.open(spec.servers())) {
      // writes stay on the targets: so do the triggers, and the sources, into which the reverse
      // streams apply, have none
      new TriggerPlacement(spec, w).ownedBy(spec.targets(), spec.sources(), conns);
    }
    streams.startReverse(w.generation(), Positions.parse(w.reverseStart()));
    for (ShardServer t : spec.targets()) {
      ServerFence.unfence(t, spec.keyspace());
    }
    return engine.transition(
        w, WorkflowState.WRITES_SWITCHED, "reverse traffic interrupted before its journal: undone");
  }

  /**
   * After the reverse journal; idempotent: a restarted step passes the newest map itself as {@code
   * next} when it was published before, and {@code publish} false.
   */
  private Workflow finish(Workflow w, ServerFence.Connections conns, ShardMap next, boolean publish)
      throws Exception {
    // done before the reverse journal; again (a no-op then) for a restart after it
    new TriggerPlacement(spec, w).ownedBy(spec.sources(), spec.targets(), conns);
    Map<String, Long> raised =
        SequenceStep.raiseAbove(spec, SequenceStep.connections(spec.sources(), conns));
    if (!raised.isEmpty()) {
      LOG.info(
          "workflow {}: sequences raised above every id on the sources: {}", spec.name(), raised);
    }
    steps.mark("sequences");
    conns.onEach(
        spec.sources(),
        (c, s) -> ServerFence.open(c, s, spec.keyspace(), MapChanges.epochOf(next, s)));
    steps.mark("open sources");
    if (publish) {
      publisher.publish(next);
    }
    steps.mark("publish");
    Failpoints.reach("reverse:published");
    // outside the window, from the position in the reverse journal (read before any source took a
    // write); the reverse streams, stopped at G, apply nothing more meanwhile
    streams.startForward(w.generation(), Positions.parse(w.forwardStart()));
    steps.mark("after: forward streams");
    Failpoints.reach("reverse:forward-started");
    streams.freeze(streams.reverse());
    steps.mark("after: stop reverse streams");
    LOG.info("workflow {}: writes back on the sources; {}", spec.name(), steps);
    return engine.transition(
        w.withoutDiff(w.updatedAt())
            .withError(null, w.updatedAt())
            .withReversePosition(null, w.updatedAt()),
        WorkflowState.RUNNING,
        "writes back on "
            + MapChanges.names(spec.sources())
            + "; forward streams (generation "
            + w.generation()
            + ") restarted from "
            + w.forwardStart());
  }

  private CutoverAbortedException abort(
      Workflow w, ServerFence.Connections conns, String why, Throwable cause) throws SQLException {
    // writes stay on the targets, and so do the triggers (a no-op unless they had begun to move)
    new TriggerPlacement(spec, w).ownedBy(spec.targets(), spec.sources(), conns);
    for (ShardServer t : spec.targets()) {
      ServerFence.unfence(t, spec.keyspace());
    }
    engine.transition(w, WorkflowState.WRITES_SWITCHED, "reverse abandoned: " + why);
    return new CutoverAbortedException(
        "workflow "
            + spec.name()
            + ": reverse traffic abandoned, "
            + why
            + "; the targets are writable again and the shard map is unchanged",
        cause);
  }
}
