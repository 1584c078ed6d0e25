package io.reshard.cdc;

/**
 * Another capture process for the same source shard started with the same Kafka {@code
 * transactional.id} and fenced this one: this process stopped, its open Kafka transaction was
 * aborted, and the other process continues from the stored position. Not retriable: retrying would
 * fence the other process in turn.
 */
public class CaptureFencedException extends CdcException {
  private static final long serialVersionUID = 1L;

  /**
   * @param transactionalId the shared transactional id
   * @param cause Kafka's fencing error
   */
  public CaptureFencedException(String transactionalId, Throwable cause) {
    super(
        "another capture process with transactional.id '"
            + transactionalId
            + "' took over this shard; this one stopped (nothing it had not committed is visible): "
            + cause,
        false,
        cause);
  }
}
