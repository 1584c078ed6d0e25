package io.reshard.router;

/**
 * A {@link ShardMapPublisher} was fenced: a newer publisher of the same keyspace (same {@code
 * transactional.id}) called {@code initTransactions}, so another switcher took over the keyspace's
 * shard map. The map being published was not written (Kafka aborted its transaction), and this
 * publisher can never write again. The process holding it must stop acting on the keyspace: the
 * newer switcher owns it.
 */
public class ShardMapPublisherFencedException extends ReshardException {
  private static final long serialVersionUID = 1L;

  private final String keyspace;
  private final String transactionalId;

  /**
   * @param keyspace the keyspace
   * @param transactionalId the publisher's {@code transactional.id}
   * @param version the version that was not written
   * @param cause Kafka's {@code ProducerFencedException} or {@code InvalidProducerEpochException},
   *     or {@code null} if the publisher had been fenced by an earlier call
   */
  public ShardMapPublisherFencedException(
      String keyspace, String transactionalId, long version, Throwable cause) {
    super(
        "shard map publisher of keyspace "
            + keyspace
            + " (transactional.id "
            + transactionalId
            + ") was fenced: another switcher took over the keyspace's shard map; v"
            + version
            + " was not written. Stop this switcher: the newer one owns the keyspace",
        cause);
    this.keyspace = keyspace;
    this.transactionalId = transactionalId;
  }

  /** The keyspace. */
  public String keyspace() {
    return keyspace;
  }

  /** The fenced publisher's {@code transactional.id}. */
  public String transactionalId() {
    return transactionalId;
  }
}
