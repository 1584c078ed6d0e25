package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.RecordKind;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/** What capture writes, read back through the public {@link ChangeRecords} parser. */
class RecordFormatTest {
  private static final CaptureConfig CONFIG =
      CaptureConfig.from(
          Map.of(
              "source.host",
              "h",
              "source.user",
              "cdc",
              "source.server.id",
              "900",
              "keyspace",
              "ks",
              "shard",
              "-80",
              "kafka.bootstrap.servers",
              "k:9092",
              "topic.prefix",
              "p"));
  private static final Clock CLOCK =
      Clock.fixed(Instant.ofEpochMilli(1_700_000_000_123L), ZoneOffset.UTC);

  private final RecordEncoder encoder = new RecordEncoder(CONFIG, CLOCK);
  private final TableSchema schema =
      new TableSchema(
          "ks",
          "t",
          List.of(
              new ColumnDef(
                  "id",
                  ColumnKind.INTEGER,
                  "bigint",
                  true,
                  0,
                  false,
                  0,
                  0,
                  null,
                  List.of(),
                  false,
                  false),
              new ColumnDef(
                  "name",
                  ColumnKind.TEXT,
                  "varchar",
                  false,
                  40,
                  false,
                  0,
                  0,
                  "utf8mb4",
                  List.of(),
                  true,
                  false),
              new ColumnDef(
                  "bin",
                  ColumnKind.BYTES,
                  "binary",
                  false,
                  2,
                  true,
                  0,
                  0,
                  "binary",
                  List.of(),
                  true,
                  false),
              new ColumnDef(
                  "v",
                  ColumnKind.INTEGER,
                  "int",
                  false,
                  0,
                  false,
                  0,
                  0,
                  null,
                  List.of(),
                  true,
                  true)),
          List.of("id"));
  private final CapturedTable table =
      new CapturedTable(schema, encoder.schemaJson(schema), new int[] {0});

  @Test
  void insertEnvelope() {
    Object[] after = {new BigInteger("18446744073709551615"), "caf\u00e9", new byte[] {1, 0}, 7L};
    SourceInfo src =
        new SourceInfo(1, "1-1-9", "mariadb-bin.000001", 1234, 0, "ks", "t", 1_700_000_000_000L);
    OutRecord out = encoder.row(table, "c", null, after, src, 1, 1);
    assertEquals("{\"id\":18446744073709551615}", new String(out.key(), StandardCharsets.UTF_8));
    String value = new String(out.value(), StandardCharsets.UTF_8);
    assertEquals(
        "{\"before\":null,\"after\":{\"id\":18446744073709551615,\"name\":\"café\",\"bin\":\"AQA=\",\"v\":7},"
            + "\"source\":{\"version\":\"reshard-0.1\",\"connector\":\"mariadb\",\"name\":\"p\","
            + "\"snapshot\":\"false\",\"server_id\":1,\"keyspace\":\"ks\",\"shard\":\"-80\","
            + "\"gtid\":\"1-1-9\",\"file\":\"mariadb-bin.000001\",\"pos\":1234,\"row\":0,"
            + "\"db\":\"ks\",\"table\":\"t\",\"ts_ms\":1700000000000},\"op\":\"c\","
            + "\"ts_ms\":1700000000123,\"transaction\":{\"id\":\"1-1-9\",\"total_order\":1,"
            + "\"data_collection_order\":1}}",
        value);
    ChangeRecord r = ChangeRecords.parse(consumerRecord(out, 5));
    assertEquals(RecordKind.DATA, r.kind());
    assertEquals("c", r.op());
    assertEquals("1-1-9", r.gtid());
    assertEquals(after[0], r.key().get("id"));
    assertEquals("caf\u00e9", r.after().get("name"));
    assertArrayEquals(new byte[] {1, 0}, (byte[]) r.after().get("bin"));
    assertArrayEquals("caf\u00e9".getBytes(StandardCharsets.UTF_8), r.exactBytes("name", true));
    assertTrue(r.schema().column("v").generated());
    assertNull(r.before());
  }

  @Test
  void textThatIsNotExactTravelsRawBesideIt() {
    Object[] after = {1L, new byte[] {(byte) 0xC3, 0x28}, null, null};
    SourceInfo src = new SourceInfo(1, "1-1-9", "f", 1, 0, "ks", "t", 0);
    ChangeRecord r =
        ChangeRecords.parse(consumerRecord(encoder.row(table, "c", null, after, src, 1, 1), 0));
    assertTrue(r.value().has("after_raw"));
    assertArrayEquals(new byte[] {(byte) 0xC3, 0x28}, r.exactBytes("name", true));
  }

  @Test
  void streamedUpdateEqualsTheTreeFormByteForByte() throws Exception {
    // before: raw text and NULLs; after: exact text, BigInteger key; a null GTID in the source
    Object[] before = {-5L, new byte[] {(byte) 0xC3, 0x28}, null, null};
    Object[] after = {
      new BigInteger("18446744073709551615"), "a\"b\\c\u0001", new byte[] {9, 9}, 3L
    };
    SourceInfo src = new SourceInfo(7, null, "f\u00e9", 99, 3, "ks", "t", 12);
    OutRecord out = encoder.row(table, "u", before, after, src, 4, 2);

    com.fasterxml.jackson.databind.ObjectMapper m =
        new com.fasterxml.jackson.databind.ObjectMapper();
    com.fasterxml.jackson.databind.node.ObjectNode v = m.createObjectNode();
    treeImage(v, "before", before);
    treeImage(v, "after", after);
    com.fasterxml.jackson.databind.node.ObjectNode s = v.putObject("source");
    s.put("version", "reshard-0.1").put("connector", "mariadb").put("name", "p");
    s.put("snapshot", "false").put("server_id", 7L).put("keyspace", "ks").put("shard", "-80");
    s.putNull("gtid");
    s.put("file", "f\u00e9").put("pos", 99L).put("row", 3).put("db", "ks").put("table", "t");
    s.put("ts_ms", 12L);
    v.put("op", "u").put("ts_ms", CLOCK.millis());
    v.putObject("transaction")
        .putNull("id")
        .put("total_order", 4L)
        .put("data_collection_order", 2L);
    assertEquals(m.writeValueAsString(v), new String(out.value(), StandardCharsets.UTF_8));
    assertEquals("{\"id\":18446744073709551615}", new String(out.key(), StandardCharsets.UTF_8));
    assertEquals("ks.t key {\"id\":18446744073709551615}", out.describe());
  }

  @Test
  void asciiTextIsWrittenAsTheSameJsonAsItsString() {
    byte[] every = new byte[128]; // every ASCII byte, control characters, quote and backslash too
    for (int i = 0; i < every.length; i++) {
      every[i] = (byte) i;
    }
    String text = new String(every, StandardCharsets.US_ASCII);
    SourceInfo src = new SourceInfo(1, "1-1-9", "f", 1, 0, "ks", "t", 0);
    OutRecord fromString =
        encoder.row(
            table,
            "u",
            new Object[] {1L, text, null, null},
            new Object[] {1L, "x", null, null},
            src,
            1,
            1);
    OutRecord fromBytes =
        encoder.row(
            table,
            "u",
            new Object[] {1L, AsciiText.of("utf8mb4", every), null, null},
            new Object[] {1L, AsciiText.of("latin1", new byte[] {'x'}), null, null},
            src,
            1,
            1);
    assertEquals(
        new String(fromString.value(), StandardCharsets.UTF_8),
        new String(fromBytes.value(), StandardCharsets.UTF_8));
    assertEquals(text, ChangeRecords.parse(consumerRecord(fromBytes, 0)).before().get("name"));
    // not ASCII, or a charset where ASCII bytes are not ASCII characters: the decoded form
    assertNull(AsciiText.of("utf8mb4", new byte[] {'a', (byte) 0xC3, (byte) 0xA9}));
    assertNull(AsciiText.of("utf16", new byte[] {0, 'a'}));
    assertNull(AsciiText.of(null, new byte[] {'a'}));
  }

  private void treeImage(
      com.fasterxml.jackson.databind.node.ObjectNode v, String field, Object[] row) {
    com.fasterxml.jackson.databind.node.ObjectNode image = v.putObject(field);
    com.fasterxml.jackson.databind.node.ObjectNode raw = null;
    for (int i = 0; i < row.length; i++) {
      ColumnDef c = schema.columns().get(i);
      image.set(c.name(), io.reshard.core.value.ValueCodec.toJson(c, row[i]));
      com.fasterxml.jackson.databind.JsonNode r =
          io.reshard.core.value.ValueCodec.rawJson(c, row[i]);
      if (r != null) {
        raw = raw == null ? v.putObject(field + "_raw") : raw;
        raw.set(c.name(), r);
      }
    }
  }

  @Test
  void beginEndHeartbeatAndSchemaRecords() {
    ChangeRecord begin = ChangeRecords.parse(consumerRecord(encoder.begin("1-1-9", 5), 0));
    assertEquals(RecordKind.BEGIN, begin.kind());
    assertEquals("1-1-9", begin.gtid());
    ChangeRecord end =
        ChangeRecords.parse(consumerRecord(encoder.end("1-1-9", 3, Map.of("ks.t", 3L), 5), 1));
    assertEquals(3, end.eventCount());
    assertEquals(
        "ks.t", end.value().path("data_collections").get(0).path("data_collection").asText());
    CapturePosition pos = CapturePosition.at(GtidPosition.parse("1-1-9"));
    ChangeRecord hb = ChangeRecords.parse(consumerRecord(encoder.heartbeat(pos, 1), 2));
    assertEquals(pos, hb.position());
    SourceInfo src = new SourceInfo(1, "1-1-10", "f", 1, 0, "ks", "t", 0);
    ChangeRecord ddl =
        ChangeRecords.parse(
            consumerRecord(
                encoder.schemaChange(
                    src,
                    "ALTER TABLE t ADD c INT",
                    List.of(new RecordEncoder.TableChange("ALTER", "ks", "t", schema))),
                3));
    assertEquals(RecordKind.SCHEMA, ddl.kind());
    assertEquals("ALTER TABLE t ADD c INT", ddl.ddl());
    assertEquals("t", ddl.table());
    ChangeRecord truncate =
        ChangeRecords.parse(consumerRecord(encoder.truncate(src, "TRUNCATE t", List.of()), 4));
    assertEquals("t", truncate.op());
    assertEquals("TRUNCATE t", truncate.ddl());
  }

  @Test
  void aGapRecordNamesBothPositionsAndWhyAndParsesToTheLaterOne() {
    CapturePosition from =
        new CapturePosition(
            GtidPosition.parse("1-1-9"), "1-1-10", 2, Map.of("ks.t", 2L), "f", 100, 5);
    CapturePosition to =
        new CapturePosition(GtidPosition.parse("1-1-12"), null, 0, Map.of(), "f", 900, 7);
    OutRecord out = encoder.gap(from, to, "the row image of ks.t is not full", 0);
    assertEquals(RecordKind.GAP, out.kind());
    ChangeRecord gap = ChangeRecords.parse(consumerRecord(out, 5));
    assertEquals(RecordKind.GAP, gap.kind());
    assertEquals(to, gap.position());
    assertEquals(from, CapturePosition.fromJsonNode(gap.value().path("from")));
    assertEquals("the row image of ks.t is not full", gap.value().path("reason").asText());
    assertEquals("1-1-12", gap.value().path("source").path("gtid").asText());
    assertEquals("gap", RecordKind.GAP.headerValue());
    assertEquals(RecordKind.GAP, RecordKind.fromHeader("gap"));
  }

  private static ConsumerRecord<byte[], byte[]> consumerRecord(OutRecord out, long offset) {
    ConsumerRecord<byte[], byte[]> r =
        new ConsumerRecord<>("p.ks.-80", 0, offset, out.key(), out.value());
    r.headers()
        .add(ChangeRecords.KIND_HEADER, out.kind().headerValue().getBytes(StandardCharsets.UTF_8));
    if (out.schema() != null) {
      r.headers().add(ChangeRecords.SCHEMA_HEADER, out.schema());
    }
    return r;
  }
}
