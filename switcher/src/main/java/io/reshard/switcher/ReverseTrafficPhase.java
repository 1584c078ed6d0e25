package io.reshard.switcher;

import io.reshard.cdc.GtidPosition;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Moves writes back from the targets to the sources after a write switch (DESIGN 4.8): fence the
 * targets, wait until the reverse streams have applied the targets' position, freeze them, start
 * new forward streams from the sources' position at that moment (after the writes the reverse
 * streams made, so nothing echoes back), open the sources at a new epoch, and publish the map with
 * the sources serving reads and writes again.
 */
final class ReverseTrafficPhase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;

  ReverseTrafficPhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
  }

  Workflow run(Workflow w) throws Exception {
    w =
        engine.transition(
            w, WorkflowState.REVERSING, "fencing " + MapChanges.names(spec.targets()));
    try {
      for (ShardServer t : spec.targets()) {
        ServerFence.fence(t, spec.keyspace(), spec.fenceLockWait());
      }
    } catch (SQLException e) {
      throw abort(w, "fencing the targets timed out [error " + e.getErrorCode() + "]", e);
    }
    Map<String, GtidPosition> g = new LinkedHashMap<>();
    for (ShardServer t : spec.targets()) {
      g.put(t.shard(), ServerFence.position(t));
    }
    if (!streams.awaitApplied(streams.reverse(), g, spec.catchUpTimeout())) {
      throw abort(w, "the sources did not apply " + g + " in time", null);
    }
    streams.pauseAt(streams.reverse(), g, spec.catchUpTimeout());
    Map<String, GtidPosition> p0 = new LinkedHashMap<>();
    for (ShardServer s : spec.sources()) {
      streams.ensureCapture(s, Duration.ofSeconds(60));
      p0.put(s.shard(), ServerFence.position(s));
    }
    // the reverse journal: the new forward generation and where it starts; no return after this
    w =
        engine.update(
            w.withForward(w.generation() + 1, Positions.strings(p0), w.updatedAt())
                .withReversePosition(g.toString(), w.updatedAt()));
    Failpoints.reach("reverse:journal");
    return finish(w);
  }

  /**
   * Takes up a reverse traffic a crash interrupted: finished if its reverse journal was written,
   * otherwise rolled back (targets un-fenced, reverse streams running again, map unchanged).
   */
  Workflow resume(Workflow w) throws Exception {
    if (w.reversePosition() != null) {
      return finish(w);
    }
    for (ShardServer t : spec.targets()) {
      streams.ensureCapture(t, Duration.ofSeconds(60));
    }
    streams.startReverse(w.generation(), Positions.parse(w.reverseStart()));
    for (ShardServer t : spec.targets()) {
      ServerFence.unfence(t, spec.keyspace());
    }
    return engine.transition(
        w, WorkflowState.WRITES_SWITCHED, "reverse traffic interrupted before its journal: undone");
  }

  /** After the reverse journal; idempotent. */
  private Workflow finish(Workflow w) throws Exception {
    for (ShardServer s : spec.sources()) {
      streams.ensureCapture(s, Duration.ofSeconds(60));
    }
    streams.startForward(w.generation(), Positions.parse(w.forwardStart()));
    Failpoints.reach("reverse:forward-started");
    ShardMap current = publisher.newest().orElseThrow();
    ShardMap next = MapChanges.unlessPublished(current, MapChanges.sourcesServe(current, spec));
    boolean published = next == current;
    for (ShardServer s : spec.sources()) {
      ServerFence.open(s, spec.keyspace(), MapChanges.epochOf(next, s));
    }
    if (!published) {
      publisher.publish(next);
    }
    Failpoints.reach("reverse:published");
    streams.freeze(streams.reverse());
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

  private CutoverAbortedException abort(Workflow w, String why, Throwable cause)
      throws SQLException {
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
