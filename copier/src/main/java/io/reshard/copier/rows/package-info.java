/**
 * How the pipeline reads, compares and writes rows exactly; shared by the copier and the differ,
 * not an API for applications.
 *
 * <p>Entry points: {@link io.reshard.copier.rows.TableSchema} (a moved table and its refusals),
 * {@link io.reshard.copier.rows.KeysetSql} (keyset predicates and chunk reads, every key comparison
 * left to the server), {@link io.reshard.copier.rows.RowWriter} (multi-row exact writes), {@link
 * io.reshard.copier.rows.Sessions} (session settings), {@link io.reshard.copier.rows.ShardingKey}
 * (a row's keyspace id). The value transport is described on {@link
 * io.reshard.copier.rows.ColumnKind}.
 */
package io.reshard.copier.rows;
