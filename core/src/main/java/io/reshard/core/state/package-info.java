/**
 * The pipeline's state tables in {@code _reshard} on every target, declared once in {@link
 * io.reshard.core.state.StateTables} (entry class) and written only by {@link
 * io.reshard.core.state.StreamsTable}, {@link io.reshard.core.state.CopyStateTable} and {@link
 * io.reshard.core.state.DiffStateTable}, each in the caller's transaction, next to the rows it
 * describes.
 */
package io.reshard.core.state;
