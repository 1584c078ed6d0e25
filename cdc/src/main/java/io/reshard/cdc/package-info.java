/**
 * Change data capture and apply (DESIGN.md 4.4 and 4.5, docs/cdc-capture.md, docs/cdc-apply.md).
 * Entry classes: {@link io.reshard.cdc.CaptureEngine}, which captures one source shard's binlog
 * into its Kafka change topic exactly once and resumably, configured by {@link
 * io.reshard.cdc.CaptureConfig}; and {@link io.reshard.cdc.ApplyEngine}, which applies change
 * topics to one target shard, filtered by its key range, with its position kept in the target
 * ({@link io.reshard.cdc.ApplyConfig}).
 *
 * <p>The topic's contract is {@link io.reshard.cdc.ChangeRecords}; the one value representation,
 * shared with the copier and the differ through core, is {@link io.reshard.core.value.ValueCodec}
 * with {@link io.reshard.core.schema.TableSchemaReader} and {@link
 * io.reshard.core.value.MariaDbCharsets}. Positions are {@link
 * io.reshard.core.position.GtidPosition} and {@link io.reshard.core.position.CapturePosition}.
 * Errors extend {@link io.reshard.cdc.CdcException}, under {@link
 * io.reshard.router.ReshardException}.
 */
package io.reshard.cdc;
