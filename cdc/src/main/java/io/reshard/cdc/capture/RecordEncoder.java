package io.reshard.cdc.capture;

import com.fasterxml.jackson.core.JsonProcessingException;
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
import java.time.Clock;
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
  private final CaptureConfig config;
  private final Clock clock;

  RecordEncoder(CaptureConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
  }

  /** A row change: {@code op} c, u or d; {@code before}/{@code after} null where absent. */
  OutRecord row(
      CapturedTable table,
      String op,
      Object[] before,
      Object[] after,
      SourceInfo source,
      long totalOrder,
      long collectionOrder) {
    ObjectNode v = json.createObjectNode();
    image(v, "before", table.schema(), before);
    image(v, "after", table.schema(), after);
    v.set("source", source(source));
    v.put("op", op);
    v.put("ts_ms", clock.millis());
    ObjectNode tx = v.putObject("transaction");
    tx.put("id", source.gtid());
    tx.put("total_order", totalOrder);
    tx.put("data_collection_order", collectionOrder);
    ObjectNode key = key(table, after != null ? after : before);
    String describe = table.schema().qualifiedName() + " key " + (key == null ? "none" : key);
    return new OutRecord(RecordKind.DATA, bytes(key), bytes(v), table.schemaJson(), describe);
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

  private void image(ObjectNode v, String field, TableSchema schema, Object[] row) {
    if (row == null) {
      v.putNull(field);
      return;
    }
    ObjectNode image = v.putObject(field);
    ObjectNode raw = null;
    List<ColumnDef> columns = schema.columns();
    for (int i = 0; i < columns.size(); i++) {
      ColumnDef c = columns.get(i);
      image.set(c.name(), ValueCodec.toJson(c, row[i]));
      JsonNode r = ValueCodec.rawJson(c, row[i]);
      if (r != null) {
        raw = raw == null ? v.putObject(field + "_raw") : raw;
        raw.set(c.name(), r);
      }
    }
  }

  private ObjectNode key(CapturedTable table, Object[] row) {
    int[] pk = table.primaryKeyIndexes();
    if (pk.length == 0) {
      return null;
    }
    ObjectNode key = json.createObjectNode();
    for (int i : pk) {
      ColumnDef c = table.schema().columns().get(i);
      key.set(c.name(), ValueCodec.toJson(c, row[i]));
    }
    return key;
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
