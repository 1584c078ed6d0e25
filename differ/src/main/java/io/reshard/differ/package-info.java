/**
 * The diff phase: a consistent-snapshot, row-by-row comparison of a source shard and one target
 * shard, resumable, with a report and an optional repair (DESIGN.md 4.7).
 *
 * <p>Entry class: {@link io.reshard.differ.Differ} (its description holds the runbook). What it
 * needs from elsewhere is declared here: {@link io.reshard.differ.StreamControl} (cdc steers the
 * target's applier). The result is a {@link io.reshard.differ.DiffReport}; progress on the target
 * is {@link io.reshard.differ.DiffStateTable}. Rows are read and written with the copier's exact
 * value transport ({@link io.reshard.copier.rows}).
 */
package io.reshard.differ;
