package io.reshard.cdc.stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.api.Test;

/**
 * The Connect form read back by Kafka Connect's own {@link JsonConverter} ({@code
 * schemas.enable=true}), as a sink's worker reads it: schemas per column kind, and values exact at
 * their extremes. Input records go through {@link ChangeRecords#parse}, as the stream reads them.
 */
class ConnectJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOPIC = "reshard.shop";
  private static final String MAX_U64 = "18446744073709551615";
  private static final String WIDEST_DECIMAL =
      "-99999999999999999999999999999999999.999999999999999999999999999999";

  private static final TableSchema ITEMS =
      new TableSchema(
          "shop",
          "items",
          List.of(
              column("id", ColumnKind.INTEGER, "bigint", true, 0, 0, 0, List.of(), false),
              column("tag", ColumnKind.BYTES, "binary", false, 4, 0, 0, List.of(), false),
              column("i8", ColumnKind.INTEGER, "tinyint", false, 0, 0, 0, List.of(), true),
              column("u8", ColumnKind.INTEGER, "tinyint", true, 0, 0, 0, List.of(), true),
              column("i16", ColumnKind.INTEGER, "smallint", false, 0, 0, 0, List.of(), true),
              column("u16", ColumnKind.INTEGER, "smallint", true, 0, 0, 0, List.of(), true),
              column("i24", ColumnKind.INTEGER, "mediumint", false, 0, 0, 0, List.of(), true),
              column("u24", ColumnKind.INTEGER, "mediumint", true, 0, 0, 0, List.of(), true),
              column("i32", ColumnKind.INTEGER, "int", false, 0, 0, 0, List.of(), true),
              column("u32", ColumnKind.INTEGER, "int", true, 0, 0, 0, List.of(), true),
              column("i64", ColumnKind.INTEGER, "bigint", false, 0, 0, 0, List.of(), true),
              column("d", ColumnKind.DECIMAL, "decimal", false, 0, 65, 30, List.of(), true),
              column("d2", ColumnKind.DECIMAL, "decimal", true, 0, 10, 2, List.of(), false),
              column("f", ColumnKind.FLOAT, "float", false, 0, 0, 0, List.of(), true),
              column("g", ColumnKind.DOUBLE, "double", false, 0, 0, 0, List.of(), true),
              column("b", ColumnKind.BIT, "bit", false, 16, 0, 0, List.of(), true),
              column("dt", ColumnKind.DATE, "date", false, 0, 0, 0, List.of(), true),
              column("dtm", ColumnKind.DATETIME, "datetime", false, 0, 0, 6, List.of(), true),
              column("ts", ColumnKind.TIMESTAMP, "timestamp", false, 0, 0, 3, List.of(), true),
              column("tm", ColumnKind.TIME, "time", false, 0, 0, 6, List.of(), true),
              column("y", ColumnKind.YEAR, "year", false, 0, 0, 0, List.of(), true),
              column("s", ColumnKind.TEXT, "varchar", false, 400, 0, 0, List.of(), true),
              column("bin", ColumnKind.BYTES, "varbinary", false, 16, 0, 0, List.of(), true),
              column("e", ColumnKind.ENUM, "enum", false, 0, 0, 0, List.of("small", "large"), true),
              column("e2", ColumnKind.ENUM, "enum", false, 0, 0, 0, List.of("a,b", "c"), true),
              column("st", ColumnKind.SET, "set", false, 0, 0, 0, List.of("x", "y", "z"), true),
              column("j", ColumnKind.JSON, "json", false, 0, 0, 0, List.of(), true),
              column("mj", ColumnKind.TEXT, "longtext", false, 0, 0, 0, List.of(), true)),
          List.of("id", "tag"));

  /** The extreme values, as {@link ValueCodec} represents them. */
  private static Map<String, Object> extremes() {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("id", new BigInteger(MAX_U64));
    v.put("tag", new byte[] {'a', 'b', 0, 0});
    v.put("i8", -128L);
    v.put("u8", 255L);
    v.put("i16", -32768L);
    v.put("u16", 65535L);
    v.put("i24", -8388608L);
    v.put("u24", 16777215L);
    v.put("i32", (long) Integer.MIN_VALUE);
    v.put("u32", 4294967295L);
    v.put("i64", Long.MIN_VALUE);
    v.put("d", WIDEST_DECIMAL);
    v.put("d2", "0.10");
    v.put("f", Float.MAX_VALUE);
    v.put("g", Double.MIN_VALUE);
    v.put("b", new byte[] {0x01, 0x02});
    v.put("dt", "0000-00-00");
    v.put("dtm", "0000-00-00 00:00:00.000000");
    v.put("ts", "2038-01-19 03:14:07.999");
    v.put("tm", "-838:59:59.000000");
    v.put("y", 0);
    v.put("s", "größe ✓ 😀");
    v.put("bin", new byte[] {0x00, (byte) 0xff, (byte) 0x80, 0x00});
    v.put("e", "large");
    v.put("e2", "a,b");
    v.put("st", "x,z");
    v.put("j", "{\"k\": [1, 2.50]}");
    v.put("mj", "{\"a\":1}");
    return v;
  }

  @Test
  void eachKindHasTheSchemaThatKeepsItsValuesExact() {
    Schema row = readValue(insert()).schema().field("after").schema();
    assertEquals("reshard.shop.items.Value", row.name());
    assertTrue(row.isOptional());
    assertDecimal(row.field("id").schema(), "0", "20");
    assertFalse(row.field("id").schema().isOptional(), "NOT NULL stays required");
    assertEquals(Schema.Type.BYTES, row.field("tag").schema().type());
    assertType(row, Schema.Type.INT8, "i8");
    assertType(row, Schema.Type.INT16, "u8", "i16");
    assertType(row, Schema.Type.INT32, "u16", "i24", "u24", "i32");
    assertType(row, Schema.Type.INT64, "u32", "i64");
    assertDecimal(row.field("d").schema(), "30", "65");
    assertDecimal(row.field("d2").schema(), "2", "10");
    assertType(row, Schema.Type.FLOAT32, "f");
    assertType(row, Schema.Type.FLOAT64, "g");
    assertType(row, Schema.Type.BYTES, "b", "bin");
    assertType(row, Schema.Type.STRING, "dt", "dtm", "ts", "tm", "s", "e2", "mj");
    assertType(row, Schema.Type.INT32, "y");
    assertEquals("io.debezium.time.Year", row.field("y").schema().name());
    assertEquals("io.debezium.data.Enum", row.field("e").schema().name());
    assertEquals(Map.of("allowed", "small,large"), row.field("e").schema().parameters());
    assertNull(row.field("e2").schema().name(), "a label with a comma: no allowed list");
    assertEquals("io.debezium.data.EnumSet", row.field("st").schema().name());
    assertEquals(Map.of("allowed", "x,y,z"), row.field("st").schema().parameters());
    assertEquals("io.debezium.data.Json", row.field("j").schema().name());
    for (String temporal : List.of("dt", "dtm", "ts", "tm", "b", "mj")) {
      assertNull(row.field(temporal).schema().name(), temporal + " carries no semantic name");
    }
  }

  @Test
  void jsonConverterReadsEveryExtremeValueBackExactly() {
    Struct after = ((Struct) readValue(insert()).value()).getStruct("after");
    assertEquals(new BigDecimal(MAX_U64), after.get("id"));
    assertArrayEquals(new byte[] {'a', 'b', 0, 0}, after.getBytes("tag"));
    assertEquals((byte) -128, after.get("i8"));
    assertEquals((short) 255, after.get("u8"));
    assertEquals((short) -32768, after.get("i16"));
    assertEquals(65535, after.get("u16"));
    assertEquals(-8388608, after.get("i24"));
    assertEquals(16777215, after.get("u24"));
    assertEquals(Integer.MIN_VALUE, after.get("i32"));
    assertEquals(4294967295L, after.get("u32"));
    assertEquals(Long.MIN_VALUE, after.get("i64"));
    assertEquals(new BigDecimal(WIDEST_DECIMAL), after.get("d")); // equals compares the scale too
    assertEquals(30, ((BigDecimal) after.get("d")).scale());
    assertEquals(new BigDecimal("0.10"), after.get("d2"));
    assertEquals(Float.MAX_VALUE, after.get("f"));
    assertEquals(Double.MIN_VALUE, after.get("g"));
    assertArrayEquals(new byte[] {0x01, 0x02}, after.getBytes("b"), "BIT big-endian");
    assertEquals("0000-00-00", after.get("dt"));
    assertEquals("0000-00-00 00:00:00.000000", after.get("dtm"));
    assertEquals("2038-01-19 03:14:07.999", after.get("ts"));
    assertEquals("-838:59:59.000000", after.get("tm"));
    assertEquals(0, after.get("y"));
    assertEquals("größe ✓ 😀", after.get("s"));
    assertArrayEquals(new byte[] {0x00, (byte) 0xff, (byte) 0x80, 0x00}, after.getBytes("bin"));
    assertEquals("large", after.get("e"));
    assertEquals("a,b", after.get("e2"));
    assertEquals("x,z", after.get("st"));
    assertEquals("{\"k\": [1, 2.50]}", after.get("j"));
    assertEquals("{\"a\":1}", after.get("mj"));
  }

  @Test
  void decimalsAreWrittenAsTheirDigits() {
    String value = new String(convert(insert()).value(), StandardCharsets.UTF_8);
    assertTrue(value.contains("\"d\":" + WIDEST_DECIMAL + ","), value);
    assertTrue(value.contains("\"d2\":0.10,"), value);
    assertTrue(value.contains("\"id\":" + MAX_U64 + ","), value);
  }

  @Test
  void theEnvelopeTheKeyAndTheSourceHaveDebeziumsNames() {
    SchemaAndValue value = readValue(insert());
    Schema envelope = value.schema();
    assertEquals("reshard.shop.items.Envelope", envelope.name()); // the sink's test: ".Envelope"
    assertEquals(2, envelope.version());
    assertEquals(envelope.field("before").schema(), envelope.field("after").schema());
    assertEquals("io.debezium.connector.mariadb.Source", envelope.field("source").schema().name());
    assertEquals("event.block", envelope.field("transaction").schema().name());
    Struct v = (Struct) value.value();
    assertEquals("c", v.getString("op"));
    assertEquals(1700000000123L, v.getInt64("ts_ms"));
    assertNull(v.get("before"));
    Struct source = v.getStruct("source");
    assertEquals("items", source.getString("table")); // collection.name.format=${source.table}
    assertEquals("shop", source.getString("db"));
    assertEquals("80-", source.getString("shard"));
    assertEquals(12345L, source.getInt64("pos"));
    assertEquals(2, source.getInt32("row"));
    assertEquals("false", source.getString("snapshot"));
    Struct tx = v.getStruct("transaction");
    assertEquals("0-1-42", tx.getString("id"));
    assertEquals(3L, tx.getInt64("total_order"));
    assertEquals(1L, tx.getInt64("data_collection_order"));

    SchemaAndValue key = readKey(insert());
    assertEquals("reshard.shop.items.Key", key.schema().name());
    assertEquals(List.of("id", "tag"), key.schema().fields().stream().map(f -> f.name()).toList());
    assertFalse(key.schema().field("id").schema().isOptional());
    Struct k = (Struct) key.value();
    assertEquals(new BigDecimal(MAX_U64), k.get("id"));
    assertArrayEquals(new byte[] {'a', 'b', 0, 0}, k.getBytes("tag"));
  }

  @Test
  void aDeleteHasANullAfterAndTheOldRowsKey() {
    Map<String, Object> before = extremes();
    ConsumerRecord<byte[], byte[]> delete = record("d", before, null, before, null);
    Struct v = (Struct) readValue(delete).value();
    assertEquals("d", v.getString("op"));
    assertNull(v.get("after"));
    assertEquals(new BigDecimal(WIDEST_DECIMAL), v.getStruct("before").get("d"));
    assertEquals(new BigDecimal(MAX_U64), ((Struct) readKey(delete).value()).get("id"));
  }

  @Test
  void textWhoseBytesItsStringCannotCarryKeepsThemInTheRawMap() {
    byte[] stored = {(byte) 0xc3, 0x28}; // not UTF-8
    ObjectNode raw = JSON.createObjectNode().put("s", Base64.getEncoder().encodeToString(stored));
    Struct v = (Struct) readValue(record("c", null, extremes(), extremes(), raw)).value();
    Map<?, ?> afterRaw = v.getMap("after_raw");
    assertArrayEquals(stored, (byte[]) afterRaw.get("s"));
    assertNull(v.get("before_raw"));
  }

  @Test
  void aChangeWithoutAGtidHasNoTransactionBlock() throws Exception {
    ObjectNode value = envelope("c", null, extremes(), null);
    ((ObjectNode) value.get("source")).putNull("gtid");
    ((ObjectNode) value.get("transaction")).putNull("id");
    ChangeRecord r = ChangeRecords.parse(consumerRecord(key(extremes()), value, true));
    Struct v = (Struct) readValue(ConnectJson.of(key(extremes()), r.value(), r.schema())).value();
    assertNull(v.get("transaction"));
    assertNull(v.getStruct("source").get("gtid"));
  }

  @Test
  void aTruncateNeedsNoTableSchema() throws Exception {
    ObjectNode value = JSON.createObjectNode();
    value.putNull("before");
    value.putNull("after");
    value.set("source", source());
    value.put("op", "t");
    value.put("ts_ms", 1L);
    value.put("ddl", "TRUNCATE TABLE items");
    ChangeRecord r = ChangeRecords.parse(consumerRecord(null, value, false));
    assertNull(r.schema());
    ConnectJson.Converted out = ConnectJson.of(null, r.value(), null);
    assertNull(out.key());
    SchemaAndValue read = converter(false).toConnectData(TOPIC, out.value());
    assertEquals("reshard.shop.items.Envelope", read.schema().name());
    Struct v = (Struct) read.value();
    assertEquals("t", v.getString("op"));
    assertEquals("TRUNCATE TABLE items", v.getString("ddl"));
    assertNull(v.get("after"));
  }

  @Test
  void aRowChangeWithoutItsSchemaOrWithAForeignValueIsRefused() throws Exception {
    ChangeRecord r = ChangeRecords.parse(insert());
    assertThrows(IllegalArgumentException.class, () -> ConnectJson.of(null, r.value(), null));
    ObjectNode bad = r.value().deepCopy();
    ((ObjectNode) bad.get("after")).put("d", "12,5");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> ConnectJson.of(null, bad, r.schema()));
    assertTrue(e.getMessage().contains("shop.items.d"), e.getMessage());
  }

  /**
   * The JDBC sink (3.5) turns every header into a field of a struct; Connect's default header
   * converter reads the {@code reshard.schema} header as a map without a value schema, which that
   * struct refuses, so the sink needs {@code header.converter} StringConverter (or
   * ByteArrayConverter), or records without that header.
   */
  @Test
  void theSchemaHeaderNeedsAStringHeaderConverter() throws Exception {
    byte[] header = JSON.writeValueAsBytes(ITEMS);
    assertThrows(DataException.class, () -> headerStruct(new SimpleHeaderConverter(), header));
    assertEquals(
        new String(header, StandardCharsets.UTF_8), headerStruct(new StringConverter(), header));
  }

  private static Object headerStruct(HeaderConverter converter, byte[] header) {
    converter.configure(Map.of("converter.type", "header"));
    SchemaAndValue h = converter.toConnectHeader(TOPIC, ChangeRecords.SCHEMA_HEADER, header);
    Schema s = SchemaBuilder.struct().field(ChangeRecords.SCHEMA_HEADER, h.schema()).build();
    return new Struct(s)
        .put(ChangeRecords.SCHEMA_HEADER, h.value())
        .get(ChangeRecords.SCHEMA_HEADER);
  }

  // ---------------------------------------------------------------- records

  private static ConsumerRecord<byte[], byte[]> insert() {
    return record("c", null, extremes(), extremes(), null);
  }

  private static ConsumerRecord<byte[], byte[]> record(
      String op,
      Map<String, Object> before,
      Map<String, Object> after,
      Map<String, Object> key,
      ObjectNode afterRaw) {
    ObjectNode value = envelope(op, before, after, afterRaw);
    return consumerRecord(key(key), value, true);
  }

  private static ObjectNode envelope(
      String op, Map<String, Object> before, Map<String, Object> after, ObjectNode afterRaw) {
    ObjectNode value = JSON.createObjectNode();
    value.set("before", image(before));
    value.set("after", image(after));
    if (afterRaw != null) {
      value.set("after_raw", afterRaw);
    }
    value.set("source", source());
    value.put("op", op);
    value.put("ts_ms", 1700000000123L);
    value
        .putObject("transaction")
        .put("id", "0-1-42")
        .put("total_order", 3)
        .put("data_collection_order", 1);
    return value;
  }

  private static ObjectNode source() {
    return JSON.createObjectNode()
        .put("version", "reshard-0.1")
        .put("connector", "mariadb")
        .put("name", "reshard")
        .put("snapshot", "false")
        .put("server_id", 7L)
        .put("keyspace", "shop")
        .put("shard", "80-")
        .put("gtid", "0-1-42")
        .put("file", "binlog.000003")
        .put("pos", 12345L)
        .put("row", 2)
        .put("db", "shop")
        .put("table", "items")
        .put("ts_ms", 1700000000000L);
  }

  private static JsonNode image(Map<String, Object> values) {
    if (values == null) {
      return JSON.nullNode();
    }
    ObjectNode out = JSON.createObjectNode();
    for (ColumnDef c : ITEMS.columns()) {
      out.set(c.name(), ValueCodec.toJson(c, values.get(c.name())));
    }
    return out;
  }

  private static byte[] key(Map<String, Object> values) {
    ObjectNode out = JSON.createObjectNode();
    for (ColumnDef c : ITEMS.keyColumns()) {
      out.set(c.name(), ValueCodec.toJson(c, values.get(c.name())));
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static ConsumerRecord<byte[], byte[]> consumerRecord(
      byte[] key, JsonNode value, boolean withSchema) {
    try {
      ConsumerRecord<byte[], byte[]> r =
          new ConsumerRecord<>(TOPIC, 3, 17L, key, JSON.writeValueAsBytes(value));
      r.headers().add(new RecordHeader(ChangeRecords.KIND_HEADER, "data".getBytes()));
      if (withSchema) {
        r.headers()
            .add(new RecordHeader(ChangeRecords.SCHEMA_HEADER, JSON.writeValueAsBytes(ITEMS)));
      }
      return r;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  // ---------------------------------------------------------------- reading back

  private static ConnectJson.Converted convert(ConsumerRecord<byte[], byte[]> in) {
    ChangeRecord r = ChangeRecords.parse(in);
    return ConnectJson.of(in.key(), r.value(), r.schema());
  }

  private static SchemaAndValue readValue(ConsumerRecord<byte[], byte[]> in) {
    return readValue(convert(in));
  }

  private static SchemaAndValue readValue(ConnectJson.Converted out) {
    return converter(false).toConnectData(TOPIC, out.value());
  }

  private static SchemaAndValue readKey(ConsumerRecord<byte[], byte[]> in) {
    return converter(true).toConnectData(TOPIC, convert(in).key());
  }

  private static JsonConverter converter(boolean isKey) {
    JsonConverter c = new JsonConverter();
    c.configure(Map.of("schemas.enable", "true"), isKey);
    return c;
  }

  private static void assertType(Schema row, Schema.Type type, String... columns) {
    for (String c : columns) {
      assertEquals(type, row.field(c).schema().type(), c);
    }
  }

  private static void assertDecimal(Schema s, String scale, String precision) {
    assertEquals(ConnectSchemas.DECIMAL, s.name());
    assertEquals(Schema.Type.BYTES, s.type());
    assertEquals(Map.of("scale", scale, "connect.decimal.precision", precision), s.parameters());
  }

  private static ColumnDef column(
      String name,
      ColumnKind kind,
      String type,
      boolean unsigned,
      long length,
      int precision,
      int scale,
      List<String> labels,
      boolean nullable) {
    String charset =
        switch (kind) {
          case TEXT, ENUM, SET -> "utf8mb4";
          case BYTES -> "binary";
          default -> null;
        };
    boolean fixed = "binary".equals(type);
    return new ColumnDef(
        name, kind, type, unsigned, length, fixed, precision, scale, charset, labels, nullable,
        false);
  }
}
