package io.reshard.cdc.capture;

import io.reshard.cdc.RecordKind;

/**
 * One encoded record ready for the change topic.
 *
 * @param kind the record's kind (its header)
 * @param key the JSON key bytes, or null
 * @param value the JSON value bytes
 * @param schema the schema header bytes, or null
 * @param describe what the record is, for error messages ({@code ks.t key {"id":1}})
 */
record OutRecord(RecordKind kind, byte[] key, byte[] value, byte[] schema, String describe) {

  /** The serialized size Kafka will see, roughly: key, value, headers and record overhead. */
  long sizeBytes() {
    long headers = 32 + (schema == null ? 0 : schema.length + 16);
    return (key == null ? 0 : key.length) + value.length + headers + 64;
  }
}
