/**
 * The router library's model, pure and without I/O: {@link io.reshard.router.KeyspaceId}s, {@link
 * io.reshard.router.KeyRange}s and {@link io.reshard.router.KeyRangePartition}s, the functional
 * {@link io.reshard.router.Vindex}es, the Vitess {@link io.reshard.router.VSchema}, and the
 * versioned {@link io.reshard.router.ShardMap}, the entry class: a router finds a row's shard with
 * {@code vschema().primaryVindex(table).functional().keyspaceId(value)} and {@link
 * io.reshard.router.ShardMap#writeShardFor}.
 *
 * <p>Everything here follows Vitess's definitions (DESIGN 4.1) so a keyspace sharded by Vitess
 * keeps its placement; each class cites the Vitess source it reproduces. All types are immutable
 * and thread-safe. Invalid input raises an {@link java.lang.IllegalArgumentException} subclass
 * whose message names the input: {@link io.reshard.router.KeyRangePartitionException}, {@link
 * io.reshard.router.UnmappableValueException}, {@link io.reshard.router.VSchemaException}, {@link
 * io.reshard.router.ShardMapException}.
 */
package io.reshard.router;
