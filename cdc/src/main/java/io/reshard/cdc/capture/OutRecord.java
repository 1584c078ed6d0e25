package io.reshard.cdc.capture;

import io.reshard.cdc.RecordKind;
import java.nio.charset.StandardCharsets;

/**
 * One encoded record ready for the change topic.
 *
 * @param kind the record's kind (its header)
 * @param key the JSON key bytes, or null
 * @param value the JSON value bytes
 * @param schema the schema header bytes, or null
 * @param subject what the record is about ({@code ks.t}, {@code BEGIN <gtid>}, ...), for error
 *     messages
 * @param keyed true if {@link #describe} names the key after the subject (row changes)
 */
record OutRecord(
    RecordKind kind, byte[] key, byte[] value, byte[] schema, String subject, boolean keyed) {

  /** A record described by {@code subject} alone. */
  OutRecord(RecordKind kind, byte[] key, byte[] value, byte[] schema, String subject) {
    this(kind, key, value, schema, subject, false);
  }

  /**
   * What the record is, for error messages ({@code ks.t key {"id":1}}). Built only when asked: the
   * key's text is not needed for the records that are published without trouble.
   */
  String describe() {
    if (!keyed) {
      return subject;
    }
    return subject + " key " + (key == null ? "none" : new String(key, StandardCharsets.UTF_8));
  }

  /**
   * The serialized size Kafka will see, at least as large as the producer's own estimate (which it
   * checks against {@code max.request.size} and {@code buffer.memory}): key, value and schema
   * header bytes, plus {@link #OVERHEAD_BYTES}.
   */
  long sizeBytes() {
    return (key == null ? 0 : key.length)
        + value.length
        + (schema == null ? 0 : schema.length)
        + OVERHEAD_BYTES;
  }

  /**
   * More than a record batch of one record adds: the batch header (61 bytes), the record's own
   * overhead and length varints (at most 31), and the two headers' names, kind value and varints
   * (under 50); measured 11 bytes more than the previous estimate of 112 for a 4 MB record.
   */
  static final int OVERHEAD_BYTES = 256;
}
