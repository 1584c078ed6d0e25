package io.reshard.router;

/**
 * A write to a range that is being switched could not be buffered any longer: no newer shard map
 * arrived within the buffer window, or the buffer was full. Nothing was written. Retry later; if it
 * persists, check the workflow's state ({@code reshard workflow status}).
 */
public class ShardSwitchingException extends RetriableReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what happened, naming the shard and the window
   * @param cause the last refusal
   */
  public ShardSwitchingException(String message, Throwable cause) {
    super(message, cause);
  }
}
