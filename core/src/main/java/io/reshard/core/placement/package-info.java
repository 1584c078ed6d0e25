/**
 * Which target owns a row. Entry class: {@link io.reshard.core.placement.ShardingKey}, a row to its
 * keyspace id by the table's primary vindex, from exact bytes (copy, diff) or from a change image
 * (apply), so both paths place a row alike: {@code VindexInput} is the one rule for what the vindex
 * is given, the value an application passes router-lib; {@link
 * io.reshard.core.placement.TargetShard} is one target of a workflow (range and server).
 */
package io.reshard.core.placement;
