package io.reshard.cdc;

import io.reshard.router.ReshardException;

/**
 * Root of every error the cdc module raises, under the one root {@link ReshardException}. {@link
 * #retriable()} tells a caller whether trying again later can succeed (a server not reachable, a
 * Kafka timeout) or whether an operator must act first (a refused precondition, a lost binlog
 * position, a fenced process, a change that cannot be captured faithfully).
 *
 * <p>Messages name what failed (shard, table, GTID, setting) and what to do.
 */
public class CdcException extends ReshardException {
  private static final long serialVersionUID = 1L;

  private final boolean retriable;

  /**
   * @param message what failed and what to do
   * @param retriable whether trying again later can succeed
   * @param cause the underlying error, or null
   */
  public CdcException(String message, boolean retriable, Throwable cause) {
    super(message, cause);
    this.retriable = retriable;
  }

  /** True if trying again later can succeed without an operator acting. */
  @Override
  public boolean retriable() {
    return retriable;
  }

  /** A transient failure: the engine retries it, from its stored position, for a bounded time. */
  public static class Retriable extends CdcException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed
     * @param cause the underlying error, or null
     */
    public Retriable(String message, Throwable cause) {
      super(message, true, cause);
    }
  }
}
