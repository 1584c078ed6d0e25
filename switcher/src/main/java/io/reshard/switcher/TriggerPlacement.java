package io.reshard.switcher;

import io.reshard.core.schema.SchemaObject;
import java.sql.SQLException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a {@code --triggers=follow-writes} workflow's triggers only on the side that owns writes
 * (DESIGN 4.11), so that no row the copy or a stream writes ever fires one: the forward streams
 * apply into targets that have none, the reverse streams into sources that have none, and every
 * application write fires each trigger once, on its owner.
 *
 * <p>The definitions come from the workflow's record ({@link SchemaObjects#triggerDefinitions}),
 * read from the source at create. {@link #ownedBy} is idempotent (it creates only what is missing
 * and drops only what is there), so each phase calls it again when it is re-run after a crash. The
 * write switch calls it after its journal and before the reverse streams' start positions are read
 * (sources fenced and {@code read_only}, targets not yet writable, forward streams stopped at G);
 * reverse traffic after the reverse streams stopped at the targets' G and before the new forward
 * streams' start is read. Trigger DDL is no change record (capture passes over it), so it moves no
 * stream position. A workflow with {@link TriggerMode#REFUSE} has none: nothing is done.
 */
final class TriggerPlacement {
  private static final Logger LOG = LoggerFactory.getLogger(TriggerPlacement.class);

  private final WorkflowSpec spec;
  private final List<SchemaObject> triggers;

  TriggerPlacement(WorkflowSpec spec, Workflow w) {
    this.spec = spec;
    this.triggers = w.schemaObjects().triggerDefinitions();
  }

  /**
   * Drops every trigger from {@code others}, then creates each one missing on {@code owners}, on
   * the connections {@code conns} holds for them. Drops come first: for a moment no side has them,
   * which is harmless while neither takes application writes (both are fenced then).
   *
   * @throws SQLException naming the trigger if a statement fails; calling again goes on
   */
  void ownedBy(List<ShardServer> owners, List<ShardServer> others, ServerFence.Connections conns)
      throws SQLException {
    if (triggers.isEmpty()) {
      return;
    }
    int dropped = 0;
    int created = 0;
    for (ShardServer s : others) {
      for (SchemaObject t : triggers) {
        dropped += SchemaObjectDdl.drop(conns.of(s), spec.keyspace(), t) ? 1 : 0;
      }
    }
    for (ShardServer s : owners) {
      for (SchemaObject t : triggers) {
        created += SchemaObjectDdl.create(conns.of(s), spec.keyspace(), t) ? 1 : 0;
      }
    }
    if (created + dropped == 0) {
      return; // already where writes are owned (a step re-run)
    }
    LOG.info(
        "workflow {}: triggers follow writes to {}: {} created, {} dropped from {}",
        spec.name(),
        MapChanges.names(owners),
        created,
        dropped,
        MapChanges.names(others));
  }
}
