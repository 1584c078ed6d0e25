/**
 * Change data capture (DESIGN.md 4.4, docs/cdc-capture.md). Entry class: {@link
 * io.reshard.cdc.CaptureEngine}, which captures one source shard's binlog into its Kafka change
 * topic exactly once and resumably, configured by {@link io.reshard.cdc.CaptureConfig}.
 *
 * <p>The topic's contract is {@link io.reshard.cdc.ChangeRecords}; the one value representation,
 * shared with the JDBC path of the copier and the differ, is {@link
 * io.reshard.core.value.ValueCodec} with {@link io.reshard.core.schema.TableSchemaReader} and
 * {@link io.reshard.core.value.MariaDbCharsets}. Positions are {@link
 * io.reshard.core.position.GtidPosition} and {@link io.reshard.core.position.CapturePosition}.
 * Errors extend {@link io.reshard.cdc.CdcException}.
 *
 * <p>Apply (Kafka to a target shard) is not built yet.
 */
package io.reshard.cdc;
