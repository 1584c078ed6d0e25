package io.reshard.router;

/** Whether a router transaction may touch more than one shard. */
public enum TransactionMode {
  /**
   * A transaction touches one shard; touching a second raises {@link
   * CrossShardTransactionException} and rolls it back. The default.
   */
  SINGLE,
  /**
   * A transaction may touch several shards; at commit each shard commits in the order it was first
   * touched. Not atomic: if a commit fails after another shard committed, the earlier shards keep
   * their changes and the caller gets a {@link ReshardException} naming what committed.
   */
  MULTI
}
