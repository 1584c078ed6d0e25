/**
 * The keyspace change stream's internals (DESIGN 4.10, docs/keyspace-stream.md): {@link
 * io.reshard.cdc.stream.StreamLoop} (consume, transform, produce, in Kafka transactions), {@link
 * io.reshard.cdc.stream.Ownership} (whose transactions are the application's, and when a new
 * owner's may follow the old one's), {@link io.reshard.cdc.stream.KeyspaceRecords} (a transaction's
 * rows into keyspace-topic records), {@link io.reshard.cdc.stream.KeyspacePartitions} (a keyspace
 * id's partition) and {@link io.reshard.cdc.stream.ConnectJson} (a record in Kafka Connect's JSON
 * with schemas, for stock Debezium sinks). The public entry is {@link
 * io.reshard.cdc.KeyspaceStream}.
 */
package io.reshard.cdc.stream;
