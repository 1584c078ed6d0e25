/**
 * The apply side's internals: {@link io.reshard.core.state.StreamsTable} (a stream's position, kept
 * in the target next to its rows), {@link io.reshard.cdc.apply.RowApplier} (one change record into
 * one target, DESIGN 4.5) and {@link io.reshard.cdc.apply.JdbcValues} (binding values exactly). The
 * public entry is {@link io.reshard.cdc.ApplyEngine}.
 */
package io.reshard.cdc.apply;
