package io.reshard.cdc.capture;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CapturePosition;
import io.reshard.cdc.ColumnDef;
import io.reshard.cdc.RecordKind;
import io.reshard.cdc.TableSchema;
import io.reshard.cdc.ValueCodec;
import java.io.IOException;
import java.time.Clock;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * Encodes change-topic records in the format {@link io.reshard.cdc.ChangeRecords} documents:
 * Debezium's data envelope, transaction metadata, schema-change and heartbeat values, as JSON.
 * {@code ts_ms} at the top level is the capture time from the injected clock. Not thread-safe (used
 * by the engine thread only).
 */
final class RecordEncoder {
  private static final String VERSION = "reshard-0.1";

  private final ObjectMapper json = new ObjectMapper();
  private final JsonFactory factory = json.getFactory();

  /** Reused by every streamed record: {@link ByteArrayBuilder#toByteArray} copies out of it. */
  private final ByteArrayBuilder buffer = new ByteArrayBuilder(4096);

  private final CaptureConfig config;
  private final Clock clock;
  // read once: the config's getters parse their text on every call
  private final String topicPrefix;
  private final String keyspace;
  private final String shard;

  RecordEncoder(CaptureConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.topicPrefix = config.topicPrefix();
    this.keyspace = config.keyspace();
    this.shard = config.shard();
  }

  /**
   * A row change: {@code op} c, u or d; {@code before}/{@code after} null where absent.
   *
   * <p>Written with a streaming generator into a reused buffer, field by field in the order the
   * tree form of the envelope has ({@code before}, {@code before_raw}, {@code after}, {@code
   * after_raw}, {@code source}, {@code op}, {@code ts_ms}, {@code transaction}), so the bytes are
   * the same as {@code writeValueAsBytes} of that tree: this is the capture hot path, where the
   * tree cost half the CPU.
   */
  OutRecord row(
      CapturedTable table,
      String op,
      Object[] before,
      Object[] after,
      SourceInfo source,
      long totalOrder,
      long collectionOrder) {
    TableSchema schema = table.schema();
    byte[] value;
    try (JsonGenerator g = generator()) {
      g.writeStartObject();
      image(g, "before", "before_raw", schema, before);
      image(g, "after", "after_raw", schema, after);
      g.writeFieldName("source");
      source(g, source);
      g.writeStringField("op", op);
      g.writeNumberField("ts_ms", clock.millis());
      g.writeObjectFieldStart("transaction");
      writeStringOrNull(g, "id", source.gtid());
      g.writeNumberField("total_order", totalOrder);
      g.writeNumberField("data_collection_order", collectionOrder);
      g.writeEndObject();
      g.writeEndObject();
    } catch (IOException e) {
      throw new IllegalStateException("writing into memory cannot fail", e);
    }
    value = buffer.toByteArray();
    byte[] key = key(table, after != null ? after : before);
    return new OutRecord(
        RecordKind.DATA, key, value, table.schemaJson(), schema.qualifiedName(), true);
  }

  /** A truncate of a table, or of some of its partitions: {@code op} t. */
  OutRecord truncate(SourceInfo source, String ddl, List<String> partitions) {
    ObjectNode v = json.createObjectNode();
    v.putNull("before");
    v.putNull("after");
    v.set("source", source(source));
    v.put("op", "t");
    v.put("ts_ms", clock.millis());
    v.put("ddl", ddl);
    if (!partitions.isEmpty()) {
      ArrayNode p = v.putArray("partitions");
      partitions.forEach(p::add);
    }
    return new OutRecord(
        RecordKind.DATA, null, bytes(v), null, "truncate of " + source.db() + "." + source.table());
  }

  /** Transaction BEGIN. */
  OutRecord begin(String gtid, long sourceMillis) {
    ObjectNode v = json.createObjectNode();
    v.put("status", "BEGIN");
    v.put("id", gtid);
    v.putNull("event_count");
    v.putNull("data_collections");
    v.put("ts_ms", sourceMillis);
    return new OutRecord(RecordKind.BEGIN, txKey(gtid), bytes(v), null, "BEGIN " + gtid);
  }

  /** Transaction END with its row-change counts. */
  OutRecord end(String gtid, long events, Map<String, Long> perTable, long sourceMillis) {
    ObjectNode v = json.createObjectNode();
    v.put("status", "END");
    v.put("id", gtid);
    v.put("event_count", events);
    ArrayNode collections = v.putArray("data_collections");
    perTable.forEach(
        (t, n) -> collections.addObject().put("data_collection", t).put("event_count", n));
    v.put("ts_ms", sourceMillis);
    return new OutRecord(RecordKind.END, txKey(gtid), bytes(v), null, "END " + gtid);
  }

  /**
   * One table a DDL statement changed.
   *
   * @param type Debezium's change type: CREATE, ALTER or DROP
   * @param db the database
   * @param table the table
   * @param after the table as read after the statement, or null (dropped)
   */
  record TableChange(String type, String db, String table, TableSchema after) {}

  /** A schema change: the statement and the tables it changed (none for database-level DDL). */
  OutRecord schemaChange(SourceInfo source, String ddl, List<TableChange> tables) {
    ObjectNode v = json.createObjectNode();
    v.set("source", source(source));
    v.put("ts_ms", clock.millis());
    v.put("databaseName", source.db());
    v.putNull("schemaName");
    v.put("ddl", ddl);
    ArrayNode changes = v.putArray("tableChanges");
    for (TableChange c : tables) {
      ObjectNode change = changes.addObject();
      change.put("type", c.type());
      change.put("id", "\"" + c.db() + "\".\"" + c.table() + "\"");
      if (c.after() != null) {
        ObjectNode t = change.putObject("table");
        ArrayNode pk = t.putArray("primaryKeyColumnNames");
        c.after().primaryKey().forEach(pk::add);
        t.set("columns", json.valueToTree(c.after().columns()));
      }
    }
    ObjectNode key = json.createObjectNode().put("databaseName", source.db());
    return new OutRecord(RecordKind.SCHEMA, bytes(key), bytes(v), null, "DDL " + ddl);
  }

  /** A heartbeat carrying the position reached. */
  OutRecord heartbeat(CapturePosition position, long serverId) {
    ObjectNode v = json.createObjectNode();
    ObjectNode s = sourceBase(serverId);
    s.put("gtid", position.gtids().toString());
    s.put("file", position.binlogFile());
    s.put("pos", position.binlogPosition());
    s.put("ts_ms", position.timestampMillis());
    v.set("source", s);
    v.put("ts_ms", clock.millis());
    v.set("position", position.toJsonNode());
    ObjectNode key =
        json.createObjectNode().put("keyspace", config.keyspace()).put("shard", config.shard());
    return new OutRecord(RecordKind.HEARTBEAT, bytes(key), bytes(v), null, "heartbeat");
  }

  /** The offsets-topic key of this shard: {@code {"keyspace": ..., "shard": ...}}. */
  byte[] offsetsKey() {
    return bytes(
        json.createObjectNode().put("keyspace", config.keyspace()).put("shard", config.shard()));
  }

  /** The schema header of a table: its {@link TableSchema} as compact JSON. */
  byte[] schemaJson(TableSchema schema) {
    try {
      return json.writeValueAsBytes(schema);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a schema always serializes", e);
    }
  }

  private static void image(
      JsonGenerator g, String field, String rawField, TableSchema schema, Object[] row)
      throws IOException {
    if (row == null) {
      g.writeNullField(field);
      return;
    }
    List<ColumnDef> columns = schema.columns();
    boolean anyRaw = false;
    g.writeObjectFieldStart(field);
    for (int i = 0; i < columns.size(); i++) {
      ColumnDef c = columns.get(i);
      g.writeFieldName(c.name());
      ValueCodec.writeJson(g, c, row[i]);
      anyRaw |= ValueCodec.hasRaw(c, row[i]);
    }
    g.writeEndObject();
    if (anyRaw) {
      g.writeObjectFieldStart(rawField);
      for (int i = 0; i < columns.size(); i++) {
        ColumnDef c = columns.get(i);
        if (ValueCodec.hasRaw(c, row[i])) {
          g.writeStringField(c.name(), Base64.getEncoder().encodeToString((byte[]) row[i]));
        }
      }
      g.writeEndObject();
    }
  }

  /** The record key: the primary key's columns as a JSON object, or null without a key. */
  private byte[] key(CapturedTable table, Object[] row) {
    int[] pk = table.primaryKeyIndexes();
    if (pk.length == 0) {
      return null;
    }
    List<ColumnDef> columns = table.schema().columns();
    try (JsonGenerator g = generator()) {
      g.writeStartObject();
      for (int i : pk) {
        ColumnDef c = columns.get(i);
        g.writeFieldName(c.name());
        ValueCodec.writeJson(g, c, row[i]);
      }
      g.writeEndObject();
    } catch (IOException e) {
      throw new IllegalStateException("writing into memory cannot fail", e);
    }
    return buffer.toByteArray();
  }

  /** The {@code source} block, streamed: the same fields in the same order as {@link #source}. */
  private void source(JsonGenerator g, SourceInfo s) throws IOException {
    g.writeStartObject();
    g.writeStringField("version", VERSION);
    g.writeStringField("connector", "mariadb");
    writeStringOrNull(g, "name", topicPrefix);
    g.writeStringField("snapshot", "false");
    g.writeNumberField("server_id", s.serverId());
    writeStringOrNull(g, "keyspace", keyspace);
    writeStringOrNull(g, "shard", shard);
    writeStringOrNull(g, "gtid", s.gtid());
    writeStringOrNull(g, "file", s.file());
    g.writeNumberField("pos", s.pos());
    g.writeNumberField("row", s.row());
    writeStringOrNull(g, "db", s.db());
    writeStringOrNull(g, "table", s.table());
    g.writeNumberField("ts_ms", s.tsMillis());
    g.writeEndObject();
  }

  private static void writeStringOrNull(JsonGenerator g, String field, String value)
      throws IOException {
    if (value == null) {
      g.writeNullField(field);
    } else {
      g.writeStringField(field, value);
    }
  }

  /** A generator over the reused buffer, emptied first; close it to flush into the buffer. */
  private JsonGenerator generator() throws IOException {
    buffer.reset();
    return factory.createGenerator(buffer);
  }

  private ObjectNode source(SourceInfo s) {
    ObjectNode n = sourceBase(s.serverId());
    n.put("gtid", s.gtid());
    n.put("file", s.file());
    n.put("pos", s.pos());
    n.put("row", s.row());
    n.put("db", s.db());
    n.put("table", s.table());
    n.put("ts_ms", s.tsMillis());
    return n;
  }

  private ObjectNode sourceBase(long serverId) {
    ObjectNode n = json.createObjectNode();
    n.put("version", VERSION);
    n.put("connector", "mariadb");
    n.put("name", config.topicPrefix());
    n.put("snapshot", "false");
    n.put("server_id", serverId);
    n.put("keyspace", config.keyspace());
    n.put("shard", config.shard());
    return n;
  }

  private byte[] txKey(String gtid) {
    return bytes(json.createObjectNode().put("id", gtid));
  }

  private byte[] bytes(JsonNode n) {
    if (n == null) {
      return null;
    }
    try {
      return json.writeValueAsBytes(n);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }
}
