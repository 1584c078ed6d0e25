package io.reshard.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.util.Map;

/**
 * One record of a change topic, parsed by {@link ChangeRecords#parse}. Which fields are set depends
 * on the kind:
 *
 * <ul>
 *   <li>DATA: {@code op} ({@code c}, {@code u}, {@code d}, {@code t}), {@code database}, {@code
 *       table}, {@code gtid}, {@code schema} (not for {@code t}), {@code key}, {@code before},
 *       {@code after} (column name to value as {@link ValueCodec} defines, in table order), {@code
 *       totalOrder} (1-based within the source transaction); {@code ddl} for {@code t}
 *   <li>SCHEMA: {@code database}, {@code table} (may be null), {@code gtid}, {@code ddl}
 *   <li>BEGIN, END: {@code gtid}; END also {@code eventCount}
 *   <li>HEARTBEAT: {@code position}
 *   <li>GAP: {@code position} = the position after the changes that were not captured; the one
 *       before them is {@code value.from}, the reason {@code value.reason}
 * </ul>
 *
 * {@code offset} is the record's Kafka offset, {@code value} its whole JSON value. Immutable.
 *
 * @param kind the record's kind
 * @param offset the Kafka offset
 * @param op the Debezium op letter, or null
 * @param database the source database, or null
 * @param table the source table, or null
 * @param gtid the source transaction's GTID, or null
 * @param schema the table's columns (from the record's schema header), or null
 * @param key the primary key values, or null
 * @param before the before image, or null
 * @param after the after image, or null
 * @param totalOrder the change's order in its source transaction (1-based), or 0
 * @param eventCount END: the transaction's row changes; else 0
 * @param ddl the statement of a SCHEMA record or a truncate, or null
 * @param position HEARTBEAT: the position reached; GAP: the position after the gap; else null
 * @param value the record's JSON value
 */
public record ChangeRecord(
    RecordKind kind,
    long offset,
    String op,
    String database,
    String table,
    String gtid,
    TableSchema schema,
    Map<String, Object> key,
    Map<String, Object> before,
    Map<String, Object> after,
    long totalOrder,
    long eventCount,
    String ddl,
    CapturePosition position,
    JsonNode value) {

  /**
   * The exact stored bytes of a string-like column in the after image (or the before image when
   * {@code after} is false), see {@link ValueCodec#exactBytes}. Null for NULL.
   *
   * @throws IllegalArgumentException if the record has no such image or column
   */
  public byte[] exactBytes(String column, boolean fromAfter) {
    Map<String, Object> image = fromAfter ? after : before;
    if (image == null || schema == null || !image.containsKey(column)) {
      throw new IllegalArgumentException(
          "record at offset "
              + offset
              + " has no "
              + (fromAfter ? "after" : "before")
              + " value for "
              + column);
    }
    return ValueCodec.exactBytes(schema.column(column), image.get(column));
  }
}
