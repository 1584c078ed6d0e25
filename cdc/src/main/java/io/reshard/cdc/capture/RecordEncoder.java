package io.reshard.cdc.capture;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.RecordKind;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.io.IOException;
import java.time.Clock;
import java.util.Base64;
import java.util.IdentityHashMap;
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

  // the envelope's names and constant values, UTF-8 encoded and quoted once
  private static final SerializedString BEFORE = new SerializedString("before");
  private static final SerializedString BEFORE_RAW = new SerializedString("before_raw");
  private static final SerializedString AFTER = new SerializedString("after");
  private static final SerializedString AFTER_RAW = new SerializedString("after_raw");
  private static final SerializedString SOURCE = new SerializedString("source");
  private static final SerializedString OP = new SerializedString("op");
  private static final SerializedString TS_MS = new SerializedString("ts_ms");
  private static final SerializedString TRANSACTION = new SerializedString("transaction");
  private static final SerializedString ID = new SerializedString("id");
  private static final SerializedString TOTAL_ORDER = new SerializedString("total_order");
  private static final SerializedString DATA_COLLECTION_ORDER =
      new SerializedString("data_collection_order");
  private static final SerializedString VERSION_NAME = new SerializedString("version");
  private static final SerializedString VERSION_VALUE = new SerializedString(VERSION);
  private static final SerializedString CONNECTOR = new SerializedString("connector");
  private static final SerializedString MARIADB = new SerializedString("mariadb");
  private static final SerializedString NAME = new SerializedString("name");
  private static final SerializedString SNAPSHOT = new SerializedString("snapshot");
  private static final SerializedString FALSE = new SerializedString("false");
  private static final SerializedString SERVER_ID = new SerializedString("server_id");
  private static final SerializedString KEYSPACE = new SerializedString("keyspace");
  private static final SerializedString SHARD = new SerializedString("shard");
  private static final SerializedString GTID = new SerializedString("gtid");
  private static final SerializedString FILE = new SerializedString("file");
  private static final SerializedString POS = new SerializedString("pos");
  private static final SerializedString ROW = new SerializedString("row");
  private static final SerializedString DB = new SerializedString("db");
  private static final SerializedString TABLE = new SerializedString("table");

  /** Schema versions whose encoded column names are kept; far more than DDLs between restarts. */
  private static final int MAX_CACHED_SCHEMAS = 1024;

  private final ObjectMapper json = new ObjectMapper();
  private final JsonFactory factory = json.getFactory();

  /** Reused by every streamed record: {@link #take} copies out of it. */
  private final ByteArrayBuilder buffer = new ByteArrayBuilder(4096);

  /**
   * One generator for every streamed record (creating one per record cost 7 % of capture's CPU),
   * writing into {@link #buffer}; records are root values taken one at a time.
   */
  private JsonGenerator generator;

  private final Map<TableSchema, SerializedString[]> columnNames = new IdentityHashMap<>();
  private final LastString gtid = new LastString();
  private final LastString file = new LastString();
  private final LastString db = new LastString();
  private final LastString tableName = new LastString();

  private final CaptureConfig config;
  private final Clock clock;
  // read once: the config's getters parse their text on every call
  private final String topicPrefix;
  private final String keyspace;
  private final String shard;
  private final SerializedString topicPrefixJson;
  private final SerializedString keyspaceJson;
  private final SerializedString shardJson;

  RecordEncoder(CaptureConfig config, Clock clock) {
    this.config = config;
    this.clock = clock;
    this.topicPrefix = config.topicPrefix();
    this.keyspace = config.keyspace();
    this.shard = config.shard();
    this.topicPrefixJson = topicPrefix == null ? null : new SerializedString(topicPrefix);
    this.keyspaceJson = keyspace == null ? null : new SerializedString(keyspace);
    this.shardJson = shard == null ? null : new SerializedString(shard);
    this.generator = newGenerator();
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
    SerializedString[] names = columnNames(schema);
    byte[] value;
    try {
      JsonGenerator g = generator;
      g.writeStartObject();
      image(g, BEFORE, BEFORE_RAW, schema, names, before);
      image(g, AFTER, AFTER_RAW, schema, names, after);
      g.writeFieldName(SOURCE);
      source(g, source);
      g.writeFieldName(OP);
      g.writeString(op);
      g.writeFieldName(TS_MS);
      g.writeNumber(clock.millis());
      g.writeFieldName(TRANSACTION);
      g.writeStartObject();
      g.writeFieldName(ID);
      writeStringOrNull(g, source.gtid() == null ? null : gtid.of(source.gtid()));
      g.writeFieldName(TOTAL_ORDER);
      g.writeNumber(totalOrder);
      g.writeFieldName(DATA_COLLECTION_ORDER);
      g.writeNumber(collectionOrder);
      g.writeEndObject();
      g.writeEndObject();
      value = take();
    } catch (IOException e) {
      throw writeFailed(e);
    }
    byte[] key = key(table, names, after != null ? after : before);
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

  /**
   * A gap: the changes after {@code from} up to {@code to} were not captured, for {@code reason}.
   * Keyed like a heartbeat; its {@code source} block carries {@code to}, like a heartbeat's.
   */
  OutRecord gap(CapturePosition from, CapturePosition to, String reason, long serverId) {
    ObjectNode v = json.createObjectNode();
    ObjectNode s = sourceBase(serverId);
    s.put("gtid", to.gtids().toString());
    s.put("file", to.binlogFile());
    s.put("pos", to.binlogPosition());
    s.put("ts_ms", to.timestampMillis());
    v.set("source", s);
    v.put("ts_ms", clock.millis());
    v.set("from", from.toJsonNode());
    v.set("to", to.toJsonNode());
    v.put("reason", reason);
    ObjectNode key =
        json.createObjectNode().put("keyspace", config.keyspace()).put("shard", config.shard());
    return new OutRecord(RecordKind.GAP, bytes(key), bytes(v), null, "gap to " + to.gtids());
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
      JsonGenerator g,
      SerializedString field,
      SerializedString rawField,
      TableSchema schema,
      SerializedString[] names,
      Object[] row)
      throws IOException {
    g.writeFieldName(field);
    if (row == null) {
      g.writeNull();
      return;
    }
    List<ColumnDef> columns = schema.columns();
    boolean anyRaw = false;
    g.writeStartObject();
    for (int i = 0; i < names.length; i++) {
      ColumnDef c = columns.get(i);
      g.writeFieldName(names[i]);
      writeValue(g, c, row[i]);
      anyRaw |= row[i] instanceof byte[] && c.kind() == ColumnKind.TEXT;
    }
    g.writeEndObject();
    if (anyRaw) {
      g.writeFieldName(rawField);
      g.writeStartObject();
      for (int i = 0; i < names.length; i++) {
        ColumnDef c = columns.get(i);
        if (ValueCodec.hasRaw(c, row[i])) {
          g.writeFieldName(names[i]);
          g.writeString(Base64.getEncoder().encodeToString((byte[]) row[i]));
        }
      }
      g.writeEndObject();
    }
  }

  /** One cell's JSON: {@link AsciiText} as its bytes, anything else as {@link ValueCodec} says. */
  private static void writeValue(JsonGenerator g, ColumnDef column, Object value)
      throws IOException {
    if (value instanceof AsciiText a) {
      g.writeUTF8String(a.bytes(), 0, a.bytes().length);
    } else {
      ValueCodec.writeJson(g, column, value);
    }
  }

  /** The record key: the primary key's columns as a JSON object, or null without a key. */
  private byte[] key(CapturedTable table, SerializedString[] names, Object[] row) {
    int[] pk = table.primaryKeyIndexes();
    if (pk.length == 0) {
      return null;
    }
    List<ColumnDef> columns = table.schema().columns();
    try {
      generator.writeStartObject();
      for (int i : pk) {
        generator.writeFieldName(names[i]);
        writeValue(generator, columns.get(i), row[i]);
      }
      generator.writeEndObject();
      return take();
    } catch (IOException e) {
      throw writeFailed(e);
    }
  }

  /** The {@code source} block, streamed: the same fields in the same order as {@link #source}. */
  private void source(JsonGenerator g, SourceInfo s) throws IOException {
    g.writeStartObject();
    g.writeFieldName(VERSION_NAME);
    g.writeString(VERSION_VALUE);
    g.writeFieldName(CONNECTOR);
    g.writeString(MARIADB);
    g.writeFieldName(NAME);
    writeStringOrNull(g, topicPrefixJson);
    g.writeFieldName(SNAPSHOT);
    g.writeString(FALSE);
    g.writeFieldName(SERVER_ID);
    g.writeNumber(s.serverId());
    g.writeFieldName(KEYSPACE);
    writeStringOrNull(g, keyspaceJson);
    g.writeFieldName(SHARD);
    writeStringOrNull(g, shardJson);
    g.writeFieldName(GTID);
    writeStringOrNull(g, s.gtid() == null ? null : gtid.of(s.gtid()));
    g.writeFieldName(FILE);
    writeStringOrNull(g, s.file() == null ? null : file.of(s.file()));
    g.writeFieldName(POS);
    g.writeNumber(s.pos());
    g.writeFieldName(ROW);
    g.writeNumber(s.row());
    g.writeFieldName(DB);
    writeStringOrNull(g, s.db() == null ? null : db.of(s.db()));
    g.writeFieldName(TABLE);
    writeStringOrNull(g, s.table() == null ? null : tableName.of(s.table()));
    g.writeFieldName(TS_MS);
    g.writeNumber(s.tsMillis());
    g.writeEndObject();
  }

  private static void writeStringOrNull(JsonGenerator g, SerializedString value)
      throws IOException {
    if (value == null) {
      g.writeNull();
    } else {
      g.writeString(value);
    }
  }

  /**
   * The bytes written since the last call: flushed out of the generator, copied, buffer emptied.
   */
  private byte[] take() throws IOException {
    generator.flush();
    byte[] out = buffer.toByteArray();
    buffer.reset();
    return out;
  }

  /** A failed write leaves the generator mid-document: start a new one for whatever comes next. */
  private IllegalStateException writeFailed(IOException e) {
    buffer.reset();
    generator = newGenerator();
    return new IllegalStateException("writing JSON into memory failed", e);
  }

  private JsonGenerator newGenerator() {
    try {
      JsonGenerator g = factory.createGenerator(buffer);
      g.setRootValueSeparator(null); // records are taken one root value at a time
      return g;
    } catch (IOException e) {
      throw new IllegalStateException("a generator over memory always opens", e);
    }
  }

  /** The column names of a schema, encoded once per schema version. */
  private SerializedString[] columnNames(TableSchema schema) {
    SerializedString[] names = columnNames.get(schema);
    if (names == null) {
      if (columnNames.size() >= MAX_CACHED_SCHEMAS) {
        columnNames.clear();
      }
      List<ColumnDef> columns = schema.columns();
      names = new SerializedString[columns.size()];
      for (int i = 0; i < names.length; i++) {
        names[i] = new SerializedString(columns.get(i).name());
      }
      columnNames.put(schema, names);
    }
    return names;
  }

  /**
   * The encoded form of the last string seen in one field: consecutive rows share their GTID, file,
   * database and table, usually as the same String object, so each is escaped and encoded once.
   */
  private static final class LastString {
    private String text;
    private SerializedString encoded;

    SerializedString of(String s) {
      if (s != text && !s.equals(text)) {
        text = s;
        encoded = new SerializedString(s);
      }
      return encoded;
    }
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
