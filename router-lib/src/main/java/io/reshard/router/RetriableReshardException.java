package io.reshard.router;

/** A {@link ReshardException} for a condition that passes: retrying later may succeed. */
public class RetriableReshardException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong and what to do
   */
  public RetriableReshardException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong and what to do
   * @param cause the underlying failure
   */
  public RetriableReshardException(String message, Throwable cause) {
    super(message, cause);
  }
}
