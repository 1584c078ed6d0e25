package io.reshard.switcher;

import io.reshard.router.RetriableReshardException;

/**
 * A write switch was abandoned before its point of no return and rolled back: the source is
 * writable again, the shard map is unchanged, and the workflow is in the state it was in before. It
 * may be retried.
 */
public class CutoverAbortedException extends RetriableReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message why, with the positions involved
   * @param cause the underlying failure, or null
   */
  public CutoverAbortedException(String message, Throwable cause) {
    super(message, cause);
  }
}
