/**
 * Rows as the copier and the differ carry them, as exact bytes. Entry classes: {@link
 * io.reshard.core.rows.KeysetSql} (keyset predicates and chunk reads, every key comparison left to
 * the server), {@link io.reshard.core.rows.RowWriter} (multi-row exact writes), {@link
 * io.reshard.core.rows.Sessions} (the session settings of copy, apply and diff), {@link
 * io.reshard.core.rows.RowKey} and {@link io.reshard.core.rows.KeyOrder}; {@link
 * io.reshard.core.rows.Futures} waits for a chunk's target writes.
 */
package io.reshard.core.rows;
