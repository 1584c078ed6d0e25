package io.reshard.cdc;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The change topic's contract, for capture and for every consumer: topic names, header names, and
 * {@link #parse} to read a record back into a {@link ChangeRecord} with values in {@link
 * ValueCodec}'s representation.
 *
 * <p>Format (one topic per source shard, {@code <prefix>.<keyspace>.<shard>}, one partition):
 *
 * <ul>
 *   <li>headers: {@value #KIND_HEADER} = {@code data|schema|begin|end|heartbeat|gap}; DATA records
 *       with a row image also carry {@value #SCHEMA_HEADER} = the table's {@link TableSchema} as
 *       JSON, so values can be decoded without other records.
 *   <li>DATA key: the primary key as a JSON object (null for a table without one, and for
 *       truncates); value: Debezium's envelope {@code before}, {@code after}, {@code source}
 *       (connector, name, server_id, gtid, file, pos, row, db, table, ts_ms, keyspace, shard),
 *       {@code op}, {@code ts_ms}, {@code transaction} (id, total_order, data_collection_order),
 *       and {@code before_raw} / {@code after_raw} (column to base64) only for text that cannot
 *       reproduce its stored bytes.
 *   <li>BEGIN / END key {@code {"id": gtid}}; value Debezium's transaction metadata: status, id,
 *       event_count (END), data_collections (END), ts_ms.
 *   <li>SCHEMA key {@code {"databaseName": db}}; value: source, ts_ms, databaseName, ddl,
 *       tableChanges (type, id, and the table's columns as read after the statement).
 *   <li>HEARTBEAT key {@code {"keyspace", "shard"}}; value: source (with the GTID position
 *       reached), ts_ms, position ({@link CapturePosition#toJsonNode()}).
 *   <li>GAP key {@code {"keyspace", "shard"}}; value: source (with the GTID position after the
 *       gap), ts_ms, from and to (positions, as a heartbeat's), reason: the changes after {@code
 *       from} up to {@code to} were not captured ({@link CaptureSkip}).
 * </ul>
 *
 * <p>Thread-safe.
 */
public final class ChangeRecords {

  /** Header naming each record's kind. */
  public static final String KIND_HEADER = "reshard.kind";

  /** Header of row records: the table's schema as JSON. */
  public static final String SCHEMA_HEADER = "reshard.schema";

  /**
   * The records' parser. Jackson refuses strings longer than 20,000,000 chars by default; one value
   * of a row can be as long as the source allows (a 60 MiB LONGBLOB is 80 MiB of base64), so the
   * length is not limited here: the record's size was bounded by capture and by Kafka.
   */
  private static final ObjectMapper JSON =
      new ObjectMapper(
              com.fasterxml.jackson.core.JsonFactory.builder()
                  .streamReadConstraints(
                      com.fasterxml.jackson.core.StreamReadConstraints.builder()
                          .maxStringLength(Integer.MAX_VALUE)
                          .build())
                  .build())
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  /** Distinct table schemas kept parsed; far more than a keyspace's tables times its DDLs. */
  private static final int SCHEMA_CACHE_SIZE = 1024;

  private static final java.util.concurrent.ConcurrentHashMap<String, TableSchema> SCHEMAS =
      new java.util.concurrent.ConcurrentHashMap<>();

  private ChangeRecords() {}

  /** The change topic of a source shard: {@code <prefix>.<keyspace>.<shard>}. */
  public static String changeTopic(String prefix, String keyspace, String shard) {
    return prefix + "." + keyspace + "." + shard;
  }

  /**
   * Consumer properties for reading a change topic as capture meant it: {@code read_committed} (so
   * aborted batches of a crashed capture stay invisible), byte-array deserializers, no group
   * (assign partitions yourself) unless {@code groupId} is given.
   */
  public static Properties consumerProperties(String bootstrap, String groupId) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    if (groupId != null) {
      p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    }
    return p;
  }

  /**
   * Parses one record of a change topic.
   *
   * @throws IllegalArgumentException if the record lacks the kind header or is not valid JSON of
   *     its kind
   */
  public static ChangeRecord parse(ConsumerRecord<byte[], byte[]> record) {
    RecordKind kind = RecordKind.fromHeader(header(record, KIND_HEADER, true));
    try {
      JsonNode v = JSON.readTree(record.value());
      return switch (kind) {
        case DATA -> data(record, v);
        case SCHEMA ->
            new ChangeRecord(
                kind,
                record.offset(),
                null,
                text(v, "databaseName"),
                text(v.path("source"), "table"),
                text(v.path("source"), "gtid"),
                null,
                null,
                null,
                null,
                0,
                0,
                text(v, "ddl"),
                null,
                v);
        case BEGIN, END ->
            new ChangeRecord(
                kind,
                record.offset(),
                null,
                null,
                null,
                text(v, "id"),
                null,
                null,
                null,
                null,
                0,
                v.path("event_count").asLong(0),
                null,
                null,
                v);
        case HEARTBEAT, GAP ->
            new ChangeRecord(
                kind,
                record.offset(),
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                0,
                0,
                null,
                CapturePosition.fromJsonNode(v.get(kind == RecordKind.GAP ? "to" : "position")),
                v);
      };
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "record at offset " + record.offset() + " is not JSON: " + e.getMessage(), e);
    }
  }

  private static ChangeRecord data(ConsumerRecord<byte[], byte[]> record, JsonNode v)
      throws IOException {
    JsonNode source = v.path("source");
    String op = text(v, "op");
    String schemaJson = header(record, SCHEMA_HEADER, false);
    TableSchema schema = schemaJson == null ? null : schema(schemaJson);
    Map<String, Object> key = null;
    if (record.key() != null && schema != null) {
      key = image(schema, JSON.readTree(record.key()), null);
    }
    return new ChangeRecord(
        RecordKind.DATA,
        record.offset(),
        op,
        text(source, "db"),
        text(source, "table"),
        text(source, "gtid"),
        schema,
        key,
        schema == null ? null : image(schema, v.get("before"), v.get("before_raw")),
        schema == null ? null : image(schema, v.get("after"), v.get("after_raw")),
        v.path("transaction").path("total_order").asLong(0),
        0,
        text(v, "ddl"),
        null,
        v);
  }

  /**
   * The schema of a header, parsed once per distinct header text: every row of a table carries the
   * same header, and parsing it per record cost more than the row. Bounded: a stream with more
   * distinct schemas than {@link #SCHEMA_CACHE_SIZE} empties the cache and starts over.
   */
  private static TableSchema schema(String json) throws IOException {
    TableSchema cached = SCHEMAS.get(json);
    if (cached != null) {
      return cached;
    }
    TableSchema parsed = JSON.readValue(json, TableSchema.class);
    if (SCHEMAS.size() >= SCHEMA_CACHE_SIZE) {
      SCHEMAS.clear();
    }
    SCHEMAS.put(json, parsed);
    return parsed;
  }

  /** Decodes an image (or a key): only the columns present in the JSON object, in table order. */
  private static Map<String, Object> image(TableSchema schema, JsonNode values, JsonNode raw) {
    if (values == null || values.isNull()) {
      return null;
    }
    Map<String, Object> out = new LinkedHashMap<>();
    for (ColumnDef c : schema.columns()) {
      if (values.has(c.name())) {
        JsonNode r = raw == null ? null : raw.get(c.name());
        out.put(c.name(), ValueCodec.fromJson(c, values.get(c.name()), r));
      }
    }
    return out;
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name, boolean required) {
    Header h = r.headers().lastHeader(name);
    if (h == null) {
      if (required) {
        throw new IllegalArgumentException(
            "record at offset " + r.offset() + " has no " + name + " header");
      }
      return null;
    }
    return new String(h.value(), StandardCharsets.UTF_8);
  }

  private static String text(JsonNode n, String field) {
    JsonNode f = n.get(field);
    return f == null || f.isNull() ? null : f.asText();
  }
}
