package io.reshard.switcher;

import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import java.sql.Connection;
import java.sql.Statement;

/**
 * Finishes a switched workflow (DESIGN 4.8): the reverse streams stop, the sources leave the shard
 * map and stay {@code read_only} ({@code super_read_only} on MySQL) with their data unless the
 * operator asks to drop the moved tables on them. Each step is idempotent, so a complete that
 * failed half-way can run again.
 */
final class CompletePhase implements Phase {
  private final WorkflowSpec spec;
  private final Streams streams;
  private final WorkflowEngine engine;
  private final ShardMapPublisher publisher;

  CompletePhase(
      WorkflowSpec spec, Streams streams, WorkflowEngine engine, ShardMapPublisher publisher) {
    this.spec = spec;
    this.streams = streams;
    this.engine = engine;
    this.publisher = publisher;
  }

  @Override
  public String name() {
    return "complete";
  }

  /**
   * Runs the phase.
   *
   * @param dropSourceData whether the moved tables are dropped on the sources
   * @return the record in {@code COMPLETED}
   * @throws SwitchRefusedException unless the workflow's writes are switched; nothing changed
   */
  Workflow run(Workflow w, boolean dropSourceData) throws Exception {
    if (w.state() != WorkflowState.WRITES_SWITCHED) {
      throw new SwitchRefusedException(
          w.state()
              .refusal(
                  name(), spec.name(), "only a workflow whose writes are switched can complete"));
    }
    streams.freeze(streams.reverse());
    ShardMap current = publisher.newest().orElseThrow();
    if (spec.sources().stream().anyMatch(s -> current.shard(s.range()).isPresent())) {
      publisher.publish(MapChanges.withoutSources(current, spec));
    }
    for (ShardServer s : spec.sources()) {
      if (dropSourceData) {
        dropTables(s);
      }
      ServerFence.retire(s);
    }
    return engine.transition(
        w,
        WorkflowState.COMPLETED,
        "sources retired from the map" + (dropSourceData ? ", their moved tables dropped" : ""));
  }

  private void dropTables(ShardServer s) throws Exception {
    try (Connection c = ServerFence.connect(s);
        Statement st = c.createStatement()) {
      for (String table : spec.tables()) {
        st.execute("DROP TABLE IF EXISTS `" + spec.keyspace() + "`.`" + table + "`");
      }
    }
  }
}
