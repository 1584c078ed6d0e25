package io.reshard.daemon;

import io.reshard.router.ReshardException;

/**
 * The daemon could not start a service (its admin port is taken, say). Whatever it had started is
 * stopped again before this is thrown; the message says what to change. The CLI maps it to exit
 * code 3 (refused: nothing is left running).
 */
public class DaemonStartException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what could not start and what to do
   * @param cause the underlying failure
   */
  public DaemonStartException(String message, Throwable cause) {
    super(message, cause);
  }
}
