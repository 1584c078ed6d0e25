package io.reshard.router;

/**
 * Root of the exceptions reshard raises at run time. Subclasses of {@link
 * RetriableReshardException} describe conditions that pass (a shard being switched, a stale shard
 * map); every other subclass is fatal for the operation that raised it.
 *
 * <p>Messages carry identifiers (keyspace, shard, versions, positions, MySQL error codes) and say
 * what the caller or operator should do.
 */
public class ReshardException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what went wrong and what to do
   */
  public ReshardException(String message) {
    super(message);
  }

  /**
   * @param message what went wrong and what to do
   * @param cause the underlying failure
   */
  public ReshardException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * True if trying again later can succeed without an operator acting: every {@link
   * RetriableReshardException}; subclasses that carry the answer themselves override this.
   */
  public boolean retriable() {
    return this instanceof RetriableReshardException;
  }
}
