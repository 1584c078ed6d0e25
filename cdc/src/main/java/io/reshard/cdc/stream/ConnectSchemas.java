package io.reshard.cdc.stream;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.TableSchema;
import java.util.List;

/**
 * The Connect schemas of {@link ConnectJson}, in {@code JsonConverter}'s JSON form ({@code type},
 * {@code optional}, {@code name}, {@code version}, {@code parameters}, struct {@code fields} each
 * with its {@code field} name): the key, row-image, source, transaction-block and envelope schemas,
 * with Debezium's names and versions. The type of each column kind is documented on {@link
 * ConnectJson}. Stateless and thread-safe; the nodes it returns are new and the caller's.
 */
final class ConnectSchemas {

  /** Debezium's {@code Envelope.SCHEMA_VERSION}. */
  static final int ENVELOPE_VERSION = 2;

  /** The values of Debezium's {@code SnapshotRecord}: the {@code snapshot} field's enum. */
  static final String SNAPSHOT_VALUES =
      "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental";

  /** 2^64-1, the largest BIGINT UNSIGNED, has 20 digits. */
  static final int UNSIGNED_BIGINT_DIGITS = 20;

  /** Connect's logical type of an exact decimal: bytes, with its scale as a parameter. */
  static final String DECIMAL = "org.apache.kafka.connect.data.Decimal";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ConnectSchemas() {}

  /** The key: the primary key's columns, required, named {@code P.db.table.Key}. */
  static ObjectNode key(ConnectJson.Names names, TableSchema schema) {
    ObjectNode s = struct(names.prefix() + ".Key", false);
    ArrayNode fields = s.withArray("fields");
    for (ColumnDef c : schema.keyColumns()) {
      fields.add(field(c.name(), column(c, false)));
    }
    return s;
  }

  /** A row image: every column in table order, named {@code P.db.table.Value}, optional. */
  static ObjectNode row(ConnectJson.Names names, TableSchema schema) {
    ObjectNode s = struct(names.prefix() + ".Value", true);
    ArrayNode fields = s.withArray("fields");
    for (ColumnDef c : schema.columns()) {
      fields.add(field(c.name(), column(c, c.nullable() || c.generated())));
    }
    return s;
  }

  /** A data change's envelope, {@code P.db.table.Envelope}, around {@code row} (taken). */
  static ObjectNode envelope(ConnectJson.Names names, ObjectNode row) {
    ObjectNode s = struct(names.prefix() + ".Envelope", false);
    s.put("version", ENVELOPE_VERSION);
    ArrayNode fields = s.withArray("fields");
    fields.add(field("before", row));
    fields.add(field("after", row.deepCopy()));
    fields.add(field("source", source(names)));
    fields.add(field("transaction", transactionBlock()));
    fields.add(field("op", primitive("string", false)));
    fields.add(field("ts_ms", primitive("int64", true)));
    fields.add(field("before_raw", raw()));
    fields.add(field("after_raw", raw()));
    return s;
  }

  /**
   * A truncate's envelope: a data change's, plus {@code ddl} and {@code partitions} (the truncated
   * partitions, if not all); row images without fields when the table's schema is unknown.
   */
  static ObjectNode truncateEnvelope(ConnectJson.Names names, TableSchema schema) {
    ObjectNode row = schema != null ? row(names, schema) : struct(names.prefix() + ".Value", true);
    ObjectNode s = envelope(names, row);
    ArrayNode fields = s.withArray("fields");
    fields.add(field("ddl", primitive("string", true)));
    ObjectNode partitions = NODES.objectNode().put("type", "array").put("optional", true);
    partitions.set("items", primitive("string", false));
    fields.add(field("partitions", partitions));
    return s;
  }

  /**
   * Debezium's binlog source block ({@code BinlogSourceInfoStructMaker}), named {@code
   * io.debezium.connector.<connector>.Source}, with reshard's {@code keyspace} and {@code shard}.
   * Fields capture may leave null ({@code name}, {@code db}, {@code table}, {@code gtid}, {@code
   * file}) are optional here.
   */
  static ObjectNode source(ConnectJson.Names names) {
    String connector = names.connector() == null ? "mariadb" : names.connector();
    ObjectNode s = struct("io.debezium.connector." + connector + ".Source", false);
    s.put("version", 1);
    ArrayNode f = s.withArray("fields");
    f.add(field("version", primitive("string", false)));
    f.add(field("connector", primitive("string", false)));
    f.add(field("name", primitive("string", true)));
    f.add(field("ts_ms", primitive("int64", false)));
    ObjectNode snapshot = named(primitive("string", true), "io.debezium.data.Enum", 1);
    snapshot.putObject("parameters").put("allowed", SNAPSHOT_VALUES);
    snapshot.put("default", "false");
    f.add(field("snapshot", snapshot));
    f.add(field("db", primitive("string", true)));
    f.add(field("sequence", primitive("string", true)));
    f.add(field("ts_us", primitive("int64", true)));
    f.add(field("ts_ns", primitive("int64", true)));
    f.add(field("table", primitive("string", true)));
    f.add(field("server_id", primitive("int64", false)));
    f.add(field("gtid", primitive("string", true)));
    f.add(field("file", primitive("string", true)));
    f.add(field("pos", primitive("int64", false)));
    f.add(field("row", primitive("int32", false)));
    f.add(field("thread", primitive("int64", true)));
    f.add(field("query", primitive("string", true)));
    f.add(field("keyspace", primitive("string", true)));
    f.add(field("shard", primitive("string", true)));
    return s;
  }

  /** Debezium's {@code event.block}: the change's transaction id and orders. */
  static ObjectNode transactionBlock() {
    ObjectNode s = struct("event.block", true);
    s.put("version", 1);
    ArrayNode f = s.withArray("fields");
    f.add(field("id", primitive("string", false)));
    f.add(field("total_order", primitive("int64", false)));
    f.add(field("data_collection_order", primitive("int64", false)));
    return s;
  }

  /** One column's schema (see the table on {@link ConnectJson}). */
  static ObjectNode column(ColumnDef c, boolean optional) {
    return switch (c.kind()) {
      case INTEGER -> integer(c, optional);
      case DECIMAL -> decimal(c.precision(), c.scale(), optional);
      case FLOAT -> primitive("float", optional); // JsonConverter's names of float32, float64
      case DOUBLE -> primitive("double", optional);
      case BIT, BYTES -> primitive("bytes", optional);
      case YEAR -> named(primitive("int32", optional), "io.debezium.time.Year", 1);
      case ENUM -> labels(c.labels(), "io.debezium.data.Enum", optional);
      case SET -> labels(c.labels(), "io.debezium.data.EnumSet", optional);
      case JSON -> named(primitive("string", optional), "io.debezium.data.Json", 1);
      default -> primitive("string", optional); // TEXT, DATE, DATETIME, TIMESTAMP, TIME, OTHER
    };
  }

  /**
   * The narrowest Connect integer holding every value of the column's type; BIGINT UNSIGNED (and
   * any integer of unknown width) is a decimal of scale 0 when unsigned, since int64 stops at
   * 2^63-1.
   */
  private static ObjectNode integer(ColumnDef c, boolean optional) {
    String type = c.type() == null ? "" : c.type();
    boolean u = c.unsigned();
    String connect =
        switch (type) {
          case "tinyint" -> u ? "int16" : "int8";
          case "smallint" -> u ? "int32" : "int16";
          case "mediumint" -> "int32";
          case "int" -> u ? "int64" : "int32";
          default -> u ? null : "int64"; // bigint
        };
    return connect == null
        ? decimal(UNSIGNED_BIGINT_DIGITS, 0, optional)
        : primitive(connect, optional);
  }

  /** Connect's Decimal, with Debezium's {@code connect.decimal.precision} when known. */
  private static ObjectNode decimal(int precision, int scale, boolean optional) {
    ObjectNode s = named(primitive("bytes", optional), DECIMAL, 1);
    ObjectNode p = s.putObject("parameters").put("scale", Integer.toString(scale));
    if (precision > 0) {
      p.put("connect.decimal.precision", Integer.toString(precision));
    }
    return s;
  }

  private static ObjectNode labels(List<String> labels, String name, boolean optional) {
    String allowed = allowed(labels);
    if (allowed == null) {
      return primitive("string", optional);
    }
    ObjectNode s = named(primitive("string", optional), name, 1);
    s.putObject("parameters").put("allowed", allowed);
    return s;
  }

  /**
   * Debezium's {@code allowed} list of an ENUM or SET: the labels joined by {@code ,}; null if a
   * label holds {@code ,} (the list would split it), {@code '} or {@code \} (the JDBC sink of 3.5
   * writes the labels into its DDL unescaped).
   */
  static String allowed(List<String> labels) {
    for (String l : labels) {
      if (l.indexOf(',') >= 0 || l.indexOf('\'') >= 0 || l.indexOf('\\') >= 0) {
        return null;
      }
    }
    return String.join(",", labels);
  }

  /** The bytes of text its string cannot reproduce: a map of column name to bytes. */
  private static ObjectNode raw() {
    ObjectNode s = NODES.objectNode().put("type", "map");
    s.set("keys", primitive("string", false));
    s.set("values", primitive("bytes", false));
    s.put("optional", true);
    return s;
  }

  private static ObjectNode struct(String name, boolean optional) {
    ObjectNode s = NODES.objectNode().put("type", "struct");
    s.putArray("fields");
    s.put("optional", optional);
    s.put("name", name);
    return s;
  }

  private static ObjectNode primitive(String type, boolean optional) {
    return NODES.objectNode().put("type", type).put("optional", optional);
  }

  private static ObjectNode named(ObjectNode s, String name, int version) {
    return s.put("name", name).put("version", version);
  }

  /** A struct's field: the field's schema with its {@code field} name. */
  private static ObjectNode field(String name, ObjectNode schema) {
    return schema.put("field", name);
  }
}
