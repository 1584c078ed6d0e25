/**
 * Change data capture: binlog capture of one source shard into its Kafka change topic, and apply of
 * those topics into one target shard filtered by key range (DESIGN.md 4.4, 4.5).
 *
 * <p>Not implemented yet: issue 4 builds it. The module exists so that the reactor, the dependency
 * direction and the package names are fixed from the start.
 */
package io.reshard.cdc;
