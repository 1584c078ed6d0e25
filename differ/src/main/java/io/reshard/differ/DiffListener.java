package io.reshard.differ;

import io.reshard.core.rows.RowKey;

/**
 * Hears the diff's named boundaries: tests use it to stop a diff at a known point and resume it.
 * Called from the differ's thread; an exception thrown here stops the diff (its progress up to the
 * last saved chunk stays in {@code _reshard.diff_state}).
 */
@FunctionalInterface
public interface DiffListener {

  /** A listener that does nothing. */
  DiffListener NONE = (table, chunk, lastKey) -> {};

  /**
   * A chunk of {@code table} has been compared (and repaired, if repairing) and its progress saved.
   *
   * @param chunk the chunk's number in this run, from 1
   * @param lastKey the chunk's upper bound, or null for the last chunk
   */
  void chunkCompared(String table, long chunk, RowKey lastKey);
}
