/**
 * The copy phase: chunked, resumable copy of the existing rows of the moved tables from a source
 * shard to the target shards, converging with the change stream (DESIGN.md 4.6).
 *
 * <p>Entry class: {@link io.reshard.copier.Copier} (its description holds the runbook and the
 * argument for convergence). What it needs from elsewhere is declared here as interfaces: {@link
 * io.reshard.copier.StreamCoverage} (cdc) and {@link io.reshard.copier.CopyThrottle}. Progress is
 * {@link io.reshard.copier.CopyProgress}; state on the targets is {@link
 * io.reshard.core.state.CopyStateTable}.
 */
package io.reshard.copier;
