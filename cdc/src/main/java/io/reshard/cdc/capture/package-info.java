/**
 * Capture internals. Entry class: {@link io.reshard.cdc.capture.CaptureSession}, one session of the
 * engine: preflight, topics, transactional producer, stored position, binlog stream ({@code
 * BinlogSession}, with capture's own TABLE_MAP and rows parsers), and the publishing loop ({@code
 * CaptureLoop}, with {@code StatementHandler} for QUERY events and {@code RecordEncoder} for the
 * record format). Everything but the entry class is package-private.
 */
package io.reshard.cdc.capture;
