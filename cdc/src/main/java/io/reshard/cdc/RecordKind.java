package io.reshard.cdc;

import java.util.Locale;

/**
 * What a record of a change topic is; named by each record's {@value ChangeRecords#KIND_HEADER}
 * header so consumers can skip what they do not use. All kinds share the topic's one partition, so
 * their order is total.
 */
public enum RecordKind {
  /**
   * A row change (Debezium envelope, {@code op} {@code c}, {@code u}, {@code d}) or a truncate of a
   * table or of partitions ({@code op} {@code t}, with the statement in {@code ddl}).
   */
  DATA,
  /** A DDL statement on a captured database (Debezium schema-change value). */
  SCHEMA,
  /** The start of a source transaction that has row changes (Debezium transaction metadata). */
  BEGIN,
  /** The end of such a transaction, with its event counts. */
  END,
  /** The position capture reached; written on an idle or unrelated source too. */
  HEARTBEAT,
  /**
   * Changes that were not captured: the operator skipped capture past changes it could not
   * represent ({@link CaptureSkip}). The value names the position before ({@code from}) and after
   * ({@code to}) the skipped changes and why they were skipped; a consumer that needs every change
   * must treat its copy of the shard's rows as incomplete from here on (a workflow repairs its
   * targets with a diff).
   */
  GAP;

  /** The header value, lower case: {@code data}, {@code schema}, ... */
  public String headerValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The kind named by a header value.
   *
   * @throws IllegalArgumentException for an unknown value
   */
  public static RecordKind fromHeader(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
