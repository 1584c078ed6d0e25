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
      return abort(w, "fencing the targets timed out [error " + e.getErrorCode() + "]", e);
    }
    Map<String, GtidPosition> g = new LinkedHashMap<>();
    for (ShardServer t : spec.targets()) {
      g.put(t.shard(), ServerFence.position(t));
    }
    if (!streams.awaitApplied(streams.reverse(), g, spec.catchUpTimeout())) {
      return abort(w, "the sources did not apply " + g + " in time", null);
    }
    streams.pauseAt(streams.reverse(), g, spec.catchUpTimeout());
    Map<String, GtidPosition> p0 = new LinkedHashMap<>();
    for (ShardServer s : spec.sources()) {
      streams.ensureCapture(s, Duration.ofSeconds(60));
      p0.put(s.shard(), ServerFence.position(s));
    }
    streams.startForward(p0);
    ShardMap next = MapChanges.sourcesServe(publisher.newest().orElseThrow(), spec);
    for (ShardServer s : spec.sources()) {
      ServerFence.open(s, spec.keyspace(), MapChanges.epochOf(next, s));
    }
    publisher.publish(next);
    streams.freeze(streams.reverse());
    return engine.transition(
        w.withDiff(false, w.updatedAt()).withError(null, w.updatedAt()),
        WorkflowState.RUNNING,
        "writes back on "
            + MapChanges.names(spec.sources())
            + "; forward streams restarted from "
            + p0);
  }

  private Workflow abort(Workflow w, String why, Throwable cause) throws SQLException {
    for (ShardServer t : spec.targets()) {
      ServerFence.unfence(t, spec.keyspace());
    }
    engine.transition(w, WorkflowState.WRITES_SWITCHED, "reverse abandoned: " + why);
    throw new CutoverAbortedException(
        "workflow "
            + spec.name()
            + ": reverse traffic abandoned, "
            + why
            + "; the targets are writable again and the shard map is unchanged",
        cause);
  }
}
