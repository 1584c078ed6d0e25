package io.reshard.cdc.stream;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.FloatNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A keyspace-topic row record in the form Kafka Connect's {@code JsonConverter} reads with {@code
 * schemas.enable=true}, so that stock Debezium tooling (the JDBC sink connector, SMTs) can consume
 * it: key {@code {"schema": ..., "payload": {primary key}}}, value {@code {"schema": ...,
 * "payload": {before, after, source, transaction, op, ts_ms}}}. A pure function of the record;
 * {@link #of} is thread-safe.
 *
 * <p>Names are Debezium's (its {@code TableSchemaBuilder}, {@code SchemaFactory}): with {@code P =
 * source.name} (the topic prefix), the envelope is {@code P.db.table.Envelope} (version 2), its row
 * images {@code P.db.table.Value} (optional), the key {@code P.db.table.Key}, the source block
 * {@code io.debezium.connector.<source.connector>.Source} ({@code mariadb}, as Debezium's MariaDB
 * connector names it; the fields of Debezium's binlog source block, {@code keyspace} and {@code
 * shard} added), the transaction block {@code event.block} (version 1; null when the change has no
 * GTID). The envelope adds {@code before_raw} / {@code after_raw} (optional maps of column to
 * bytes) for text whose stored bytes its string cannot reproduce; a truncate's adds {@code ddl} and
 * {@code partitions}.
 *
 * <p>Column types, chosen so that every value stays exact and {@code JsonConverter} gives the sink
 * a Java value it binds without loss:
 *
 * <table>
 *   <caption>Connect schema per column kind</caption>
 *   <tr><th>kind</th><th>Connect schema</th><th>payload</th></tr>
 *   <tr><td>INTEGER</td><td>{@code int8} TINYINT, {@code int16} TINYINT UNSIGNED and SMALLINT,
 *       {@code int32} SMALLINT UNSIGNED, MEDIUMINT and INT, {@code int64} INT UNSIGNED and BIGINT;
 *       BIGINT UNSIGNED (and an integer of unknown width, unsigned) {@code Decimal} scale 0,
 *       precision 20, as Debezium's {@code bigint.unsigned.handling.mode=precise}</td>
 *       <td>number (18446744073709551615 as it is)</td></tr>
 *   <tr><td>DECIMAL(p,s)</td><td>{@code org.apache.kafka.connect.data.Decimal} (bytes, scale s,
 *       {@code connect.decimal.precision} p): the sink binds a {@code BigDecimal} and creates
 *       {@code DECIMAL(p,s)}</td><td>number with exactly s fraction digits, in plain notation
 *       ({@code decimal.format=NUMERIC}; {@code JsonConverter} reads it exactly)</td></tr>
 *   <tr><td>FLOAT, DOUBLE</td><td>{@code float32}, {@code float64}</td>
 *       <td>number, the shortest with the same bits</td></tr>
 *   <tr><td>BIT, BYTES</td><td>{@code bytes}: BIT big-endian, as the server shows it, so not
 *       {@code io.debezium.data.Bits} (little-endian); spatial values in the server's own format
 *       (SRID, then WKB), not Debezium's geometry struct</td><td>base64</td></tr>
 *   <tr><td>DATE, DATETIME, TIMESTAMP, TIME</td><td>{@code string}: MariaDB's own text (zero
 *       dates kept, TIMESTAMP in UTC, TIME up to 838 hours); Debezium's {@code io.debezium.time}
 *       types are epoch numbers, or ISO text with a zone, that cannot hold them</td>
 *       <td>string</td></tr>
 *   <tr><td>YEAR</td><td>{@code io.debezium.time.Year} ({@code int32}): the sink creates
 *       YEAR</td><td>number (0 for 0000)</td></tr>
 *   <tr><td>ENUM, SET</td><td>{@code io.debezium.data.Enum} / {@code io.debezium.data.EnumSet}
 *       with {@code allowed} = the labels joined by {@code ,}; plain {@code string} when a label
 *       holds {@code ,}, {@code '} or {@code \} (which that list, and the sink's DDL, cannot carry)
 *       </td><td>string: the label, the labels joined by {@code ,}</td></tr>
 *   <tr><td>JSON (MySQL's)</td><td>{@code io.debezium.data.Json}</td><td>string</td></tr>
 *   <tr><td>TEXT (MariaDB's JSON too), OTHER</td><td>{@code string}</td><td>string; where the
 *       charset cannot reproduce the bytes, the lossy text here and the bytes in {@code
 *       *_raw}</td></tr>
 * </table>
 *
 * <p>A consumer reads a string, not a number, for temporal columns, and a {@code BigDecimal} for
 * DECIMAL and BIGINT UNSIGNED. A row column is optional unless it is NOT NULL and not generated; a
 * key column is required. Schema parameters of Debezium's {@code column.propagate.source.type} are
 * not set.
 *
 * <p>For a reader on Kafka Connect: {@code JsonConverter} (Jackson's default limits) refuses a
 * string longer than 20,000,000 chars, so a value above about 15 MB of bytes (its base64) or 20
 * million chars of text cannot be read in this form. A record that still carries the {@code
 * reshard.schema} header needs {@code header.converter} {@code StringConverter} or {@code
 * ByteArrayConverter}: Connect's default {@code SimpleHeaderConverter} reads that JSON as a map
 * without a value schema, which the JDBC sink (3.5) refuses when it makes a struct of the headers.
 */
public final class ConnectJson {

  /** Distinct table schemas whose Connect schemas are kept; as {@code ChangeRecords}' cache. */
  private static final int CACHE_SIZE = 1024;

  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  /** Writes DECIMAL values as their digits: {@code 0.000001}, never {@code 1E-6}. */
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);

  private static final ConcurrentHashMap<Names, Schemas> CACHE = new ConcurrentHashMap<>();

  private ConnectJson() {}

  /**
   * A record in the Connect form.
   *
   * @param key the key's JSON ({@code schema} and {@code payload}), or null for a null key
   * @param value the value's JSON ({@code schema} and {@code payload})
   */
  public record Converted(byte[] key, byte[] value) {}

  /**
   * The Connect form of one row record of the keyspace topic.
   *
   * @param key the record's key (the primary key as a JSON object), or null
   * @param value the record's value: the envelope as capture wrote it
   * @param schema the table, from the record's {@code reshard.schema} header; null only for a
   *     truncate (which has no header), whose row images then have no fields
   * @throws IllegalArgumentException if the value is not a row change's envelope, a key is not a
   *     JSON object, or a value does not fit its column's kind
   */
  public static Converted of(byte[] key, JsonNode value, TableSchema schema) {
    if (value == null || !value.isObject() || !value.path("op").isTextual()) {
      throw new IllegalArgumentException("not a row change's envelope: " + value);
    }
    JsonNode source = value.path("source");
    boolean truncate = "t".equals(value.get("op").asText());
    if (schema == null && !truncate) {
      throw new IllegalArgumentException(
          "a row change of "
              + source.path("db").asText()
              + "."
              + source.path("table").asText()
              + " needs its table's schema");
    }
    Names names =
        new Names(
            text(source, "name"),
            text(source, "connector"),
            schema != null ? schema.database() : text(source, "db"),
            schema != null ? schema.table() : text(source, "table"));
    Schemas schemas = schema == null ? null : schemas(names, schema);
    ObjectNode envelope =
        truncate ? ConnectSchemas.truncateEnvelope(names, schema) : schemas.envelope();
    ObjectNode payload = NODES.objectNode();
    payload.set("before", image(schema, value.get("before")));
    payload.set("after", image(schema, value.get("after")));
    payload.set("source", source.deepCopy());
    payload.set("transaction", transaction(value.get("transaction")));
    payload.set("op", value.get("op"));
    payload.set("ts_ms", orNull(value.get("ts_ms")));
    payload.set("before_raw", orNull(value.get("before_raw")));
    payload.set("after_raw", orNull(value.get("after_raw")));
    if (truncate) {
      payload.set("ddl", orNull(value.get("ddl")));
      payload.set("partitions", orNull(value.get("partitions")));
    }
    byte[] keyOut = key == null || schemas == null ? null : bytes(schemas.key(), key(schema, key));
    return new Converted(keyOut, bytes(envelope, payload));
  }

  /** The key payload: the primary key's columns, in key order, typed as in the row images. */
  private static ObjectNode key(TableSchema schema, byte[] key) {
    JsonNode in;
    try {
      in = JSON.readTree(key);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "the key of a row of " + schema.qualifiedName() + " is not JSON: " + e.getMessage(), e);
    }
    if (in == null || !in.isObject()) {
      throw new IllegalArgumentException(
          "the key of a row of " + schema.qualifiedName() + " is not a JSON object: " + in);
    }
    ObjectNode out = NODES.objectNode();
    for (ColumnDef c : schema.keyColumns()) {
      out.set(c.name(), value(schema, c, in.get(c.name())));
    }
    return out;
  }

  /** A row image with every column of the schema (null where the image lacks one), or null. */
  private static JsonNode image(TableSchema schema, JsonNode in) {
    if (in == null || in.isNull()) {
      return NullNode.instance;
    }
    ObjectNode out = NODES.objectNode();
    if (schema != null) {
      for (ColumnDef c : schema.columns()) {
        out.set(c.name(), value(schema, c, in.get(c.name())));
      }
    }
    return out;
  }

  /**
   * One value as its Connect schema reads it: DECIMAL's text as the number it spells, FLOAT and
   * DOUBLE as a float and a double (the shortest text with the same bits; capture wrote them so,
   * and a parser may have read them into a {@code BigDecimal}); every other value as it is.
   */
  private static JsonNode value(TableSchema schema, ColumnDef c, JsonNode v) {
    if (v == null || v.isNull()) {
      return NullNode.instance;
    }
    try {
      return switch (c.kind()) {
        case DECIMAL -> DecimalNode.valueOf(new BigDecimal(v.asText()));
        case FLOAT -> FloatNode.valueOf(number(v).floatValue());
        case DOUBLE -> DoubleNode.valueOf(number(v).doubleValue());
        case INTEGER, YEAR -> number(v);
        default -> v;
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          schema.qualifiedName() + "." + c.name() + " (" + c.kind() + ") holds " + v, e);
    }
  }

  private static JsonNode number(JsonNode v) {
    if (v.isNumber()) {
      return v;
    }
    return DecimalNode.valueOf(new BigDecimal(v.asText())); // a number written as text
  }

  /** The transaction block, or null when the change has no transaction id. */
  private static JsonNode transaction(JsonNode in) {
    if (in == null || !in.isObject() || !in.path("id").isTextual()) {
      return NullNode.instance;
    }
    ObjectNode out = NODES.objectNode();
    out.set("id", in.get("id"));
    out.put("total_order", in.path("total_order").asLong());
    out.put("data_collection_order", in.path("data_collection_order").asLong());
    return out;
  }

  private static Schemas schemas(Names names, TableSchema schema) {
    Schemas cached = CACHE.get(names);
    if (cached != null && cached.table().equals(schema)) {
      return cached;
    }
    Schemas built =
        new Schemas(
            schema,
            ConnectSchemas.key(names, schema),
            ConnectSchemas.envelope(names, ConnectSchemas.row(names, schema)));
    if (CACHE.size() >= CACHE_SIZE) {
      CACHE.clear();
    }
    CACHE.put(names, built);
    return built;
  }

  private static byte[] bytes(ObjectNode schema, JsonNode payload) {
    ObjectNode out = NODES.objectNode();
    out.set("schema", schema);
    out.set("payload", payload);
    try {
      return JSON.writeValueAsBytes(out);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serializes", e);
    }
  }

  private static JsonNode orNull(JsonNode n) {
    return n == null ? NullNode.instance : n;
  }

  private static String text(JsonNode n, String field) {
    JsonNode f = n.get(field);
    return f == null || f.isNull() ? null : f.asText();
  }

  /**
   * What the schema names are made of.
   *
   * @param server {@code source.name}, the topic prefix (Debezium's {@code topic.prefix}); may be
   *     null
   * @param connector {@code source.connector}
   * @param database the database
   * @param table the table
   */
  record Names(String server, String connector, String database, String table) {
    /** {@code server.database.table}, or {@code database.table} without a server name. */
    String prefix() {
      return (server == null || server.isEmpty() ? "" : server + ".") + database + "." + table;
    }
  }

  /** The key and envelope schemas of one table version. */
  private record Schemas(TableSchema table, ObjectNode key, ObjectNode envelope) {}
}
