/**
 * router-lib: what every application embeds to use a sharded keyspace. Entry class: {@link
 * io.reshard.router.Router}.
 *
 * <ul>
 *   <li>The model, pure and immutable: {@link io.reshard.router.KeyspaceId}s, {@link
 *       io.reshard.router.KeyRange}s and {@link io.reshard.router.KeyRangePartition}s, the
 *       functional {@link io.reshard.router.Vindex}es, the Vitess {@link io.reshard.router.VSchema}
 *       and the versioned {@link io.reshard.router.ShardMap} with per-shard epochs. Everything
 *       follows Vitess's definitions (DESIGN 4.1), so a keyspace Vitess sharded keeps its
 *       placement. Invalid input raises an {@link java.lang.IllegalArgumentException} subclass
 *       naming the input.
 *   <li>Shard map subscription: {@link io.reshard.router.ShardMapSource}, from a file ({@link
 *       io.reshard.router.StaticShardMapSource}) or the shard map topic ({@link
 *       io.reshard.router.KafkaShardMapSource}); the topic's single fenced writer is {@link
 *       io.reshard.router.ShardMapPublisher}.
 *   <li>Routing and execution: {@link io.reshard.router.Router} (targeted, lookup and scatter
 *       reads; fenced, buffered writes through {@link io.reshard.router.RouterTransaction}) and the
 *       {@code _reshard} schema with its fence table ({@link io.reshard.router.ReshardSchema}). Ids
 *       for sharded tables come from a {@link io.reshard.router.Sequence} (Vitess's sequence table
 *       in an unsharded keyspace) that a table's {@link io.reshard.router.AutoIncrement} names.
 *       Run-time failures are {@link io.reshard.router.ReshardException}s; the retriable ones
 *       extend {@link io.reshard.router.RetriableReshardException}.
 * </ul>
 */
package io.reshard.router;
