package io.reshard.copier;

import io.reshard.router.RetriableReshardException;

/**
 * The change stream did not cover the copy's start position in time, so no chunk was copied.
 * Retriable: capture may be catching up; run the copy again once it has.
 */
public class StreamCoverageTimeoutException extends RetriableReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the position waited for, how long, and what to check
   */
  public StreamCoverageTimeoutException(String message) {
    super(message);
  }
}
