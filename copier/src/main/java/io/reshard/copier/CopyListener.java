package io.reshard.copier;

import io.reshard.core.rows.RowKey;

/**
 * Hears the copy's named phase boundaries: tests use it to pause, inject writes, or kill the
 * process at a known point; the daemon may log or publish. Called from the copying threads, so
 * implementations must be thread-safe and quick; an exception thrown here fails the table's copy.
 */
public interface CopyListener {

  /** A listener that does nothing. */
  CopyListener NONE = new CopyListener() {};

  /**
   * A chunk of {@code table} has been committed on every target, and its source transaction ended.
   *
   * @param chunk the chunk's number in this run, from 1
   * @param rows the source rows the chunk read
   * @param lastKey the chunk's last key (its resume point), or null for an empty chunk
   */
  default void chunkCommitted(String table, long chunk, int rows, RowKey lastKey) {}

  /** Every row of {@code table} has been copied. */
  default void tableDone(String table) {}
}
