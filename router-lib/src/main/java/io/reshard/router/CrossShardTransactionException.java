package io.reshard.router;

/**
 * A transaction in {@link TransactionMode#SINGLE} mode tried to touch a second shard. It was rolled
 * back on the first shard. Either keep the transaction on one shard (route by the same sharding
 * key) or use {@link TransactionMode#MULTI}, which is not atomic across shards.
 */
public class CrossShardTransactionException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param keyspace the keyspace
   * @param first the shard the transaction already uses
   * @param second the shard it tried to touch
   */
  public CrossShardTransactionException(String keyspace, String first, String second) {
    super(
        "transaction refused: it touches shard "
            + keyspace
            + "/"
            + first
            + " and shard "
            + keyspace
            + "/"
            + second
            + ", and the router is in single-shard mode; it was rolled back. Route all of it by the"
            + " same sharding key, or use multi mode (not atomic across shards)");
  }
}
