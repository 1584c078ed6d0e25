/**
 * The cdc benchmark of issue 4: capture into Kafka (reshard's {@link io.reshard.cdc.CaptureEngine}
 * against Debezium's embedded MariaDB connector, or its MySQL connector on a MySQL 8.0.31 binlog
 * with {@code --flavor mysql}), apply of the backlog (reshard's {@link io.reshard.cdc.ApplyEngine}
 * against a bare batched loop) and end-to-end lag. The entry class is {@link
 * io.reshard.bench.cdc.CdcBenchmark}; each measured engine runs in a child JVM ({@link
 * io.reshard.bench.cdc.ChildJvm}) so its CPU time is its own.
 */
package io.reshard.bench.cdc;
