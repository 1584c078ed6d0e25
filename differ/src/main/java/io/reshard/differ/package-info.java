/**
 * The diff phase: a consistent-snapshot, row-by-row comparison of a source shard and the target
 * shards of a workflow (the source read once for all of them), resumable, with a report per target
 * and an optional repair (DESIGN.md 4.7).
 *
 * <p>Entry class: {@link io.reshard.differ.Differ} (its description holds the runbook). What it
 * needs from elsewhere is declared here: {@link io.reshard.differ.StreamControl} (cdc steers a
 * target's applier; one per target). The result is a {@link io.reshard.differ.DiffReport}; progress
 * on the target is {@link io.reshard.differ.DiffProgress}. Rows are read and written with the exact
 * value transport of core ({@link io.reshard.core.rows.KeysetSql}, {@link
 * io.reshard.core.value.ValueCodec#exactSelectExpression}), the same the copier uses.
 */
package io.reshard.differ;
