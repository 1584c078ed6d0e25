package io.reshard.copier.chunk;

import java.time.Duration;

/**
 * Adapts the chunk size toward a target duration per chunk.
 *
 * <p>After each full chunk, the size is scaled by {@code target / elapsed} (the size that would
 * have taken the target time at the rate just seen), with the factor clamped to [1/2, 2] so that
 * one slow chunk (a lock wait, a pause of the JVM) or one fast chunk (rows still in the buffer
 * pool) moves the size by a factor of two at most, and the result clamped to [min, max]. A partial
 * chunk (the table's last) says nothing about the rate and is ignored.
 *
 * <p>Not thread-safe: one per table copy.
 */
public final class ChunkSizer {
  /** The largest change of the size after one chunk, as a factor either way. */
  static final double MAX_STEP = 2.0;

  private final long targetNanos;
  private final int min;
  private final int max;
  private int rows;

  /**
   * @param target the duration one chunk should take
   * @param initial the first size
   * @param min the smallest size
   * @param max the largest size
   */
  public ChunkSizer(Duration target, int initial, int min, int max) {
    if (min < 1 || max < min || initial < min || initial > max || target.isNegative()) {
      throw new IllegalArgumentException(
          "chunk sizes need 1 <= min <= initial <= max and a positive target; got min "
              + min
              + ", initial "
              + initial
              + ", max "
              + max
              + ", target "
              + target);
    }
    this.targetNanos = target.toNanos();
    this.min = min;
    this.max = max;
    this.rows = initial;
  }

  /** The number of rows to read in the next chunk. */
  public int rows() {
    return rows;
  }

  /**
   * Adjusts the size after a chunk.
   *
   * @param rowsRead the rows the chunk read
   * @param elapsed how long the chunk took, from its read to its last target commit
   */
  public void observe(int rowsRead, Duration elapsed) {
    if (rowsRead < rows) {
      return;
    }
    long nanos = Math.max(1, elapsed.toNanos());
    double factor = Math.max(1 / MAX_STEP, Math.min(MAX_STEP, (double) targetNanos / nanos));
    long next = Math.round(rows * factor);
    rows = (int) Math.max(min, Math.min(max, next));
  }
}
