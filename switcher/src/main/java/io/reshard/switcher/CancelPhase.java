package io.reshard.switcher;

import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.Connection;
import java.sql.Statement;

/**
 * Abandons a workflow before any write switch (DESIGN 4.8): the forward streams stop, the targets
 * leave the shard map if they are in it, and the targets' copies of the moved tables are emptied
 * (the tables stay, so a new workflow into the same targets finds them empty). Each step is
 * idempotent, so a cancel that failed half-way can run again.
 */
final class CancelPhase implements Phase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;

  CancelPhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
  }

  @Override
  public String name() {
    return "cancel";
  }

  /**
   * Runs the phase. A copy running on another thread must have been interrupted first.
   *
   * @return the record in {@code CANCELLED}
   * @throws SwitchRefusedException once writes have moved (reverse traffic comes first), or in a
   *     state that cannot be cancelled; nothing changed
   */
  Workflow run(Workflow w) throws Exception {
    if (w.state().writesHaveMoved() || !w.state().canMoveTo(WorkflowState.CANCELLED)) {
      throw new SwitchRefusedException(
          w.state()
              .refusal(
                  name(),
                  spec.name(),
                  w.state().writesHaveMoved()
                      ? "after a write switch a workflow is cancelled only once"
                          + " reverse-traffic has moved the writes back"
                      : null));
    }
    streams.freeze(streams.forward());
    ShardMap current = publisher.newest().orElseThrow();
    if (spec.targets().stream().anyMatch(t -> current.shard(t.range()).isPresent())) {
      publisher.publish(MapChanges.withoutTargets(current, spec));
    }
    for (ShardServer t : spec.targets()) {
      emptyTables(t);
    }
    return engine.transition(w, WorkflowState.CANCELLED, "targets emptied");
  }

  /**
   * Deletes every row of the moved tables on {@code target}. These are the keyspace's own tables,
   * not a {@code _reshard} state table: the copy and the streams wrote them, and nothing else owns
   * them.
   */
  private void emptyTables(ShardServer target) throws Exception {
    try (Connection conn = ServerFence.connect(target);
        Statement s = conn.createStatement()) {
      for (String table : spec.tables()) {
        s.execute("DELETE FROM `" + spec.keyspace() + "`.`" + table + "`");
      }
    }
  }
}
