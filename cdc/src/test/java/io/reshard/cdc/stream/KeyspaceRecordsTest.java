package io.reshard.cdc.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cdc.RecordKind;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

class KeyspaceRecordsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final TableSchema ITEMS =
      new TableSchema(
          "ks",
          "items",
          List.of(
              ColumnDef.of("id", ColumnKind.INTEGER, "bigint"),
              ColumnDef.of("n", ColumnKind.INTEGER, "int")),
          List.of("id"));
  private static final VSchema VSCHEMA =
      VSchema.parse(
          "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
              + " \"tables\": {\"items\": {\"column_vindexes\": [{\"column\": \"id\","
              + " \"name\": \"hash\"}]}}}");

  private final KeyspaceRecords records =
      new KeyspaceRecords(
          "ks", "reshard.ks", new KeyspacePartitions(16), KeyspaceStreamConfig.Format.ENVELOPE);

  KeyspaceRecordsTest() {
    records.vschema(VSCHEMA);
  }

  @Test
  void aRowGoesToThePartitionOfItsKeyspaceId() throws Exception {
    List<ProducerRecord<byte[], byte[]>> out = of(change("c", "ks", "items", null, row(7, 0)));
    assertEquals(1, out.size());
    assertEquals(partition(7), out.get(0).partition());
    assertEquals("reshard.ks", out.get(0).topic());
    assertEquals("{\"id\":7}", new String(out.get(0).key(), StandardCharsets.UTF_8));
  }

  @Test
  void anUpdateThatMovesTheRowToAnotherPartitionIsADeleteThereAndACreateHere() throws Exception {
    long a = 1;
    long b = 2;
    while (partition(b) == partition(a)) {
      b++;
    }
    List<ProducerRecord<byte[], byte[]>> out = of(change("u", "ks", "items", row(a, 3), row(b, 3)));
    assertEquals(2, out.size());
    JsonNode delete = JSON.readTree(out.get(0).value());
    assertEquals(partition(a), out.get(0).partition());
    assertEquals("d", delete.get("op").asText());
    assertTrue(delete.get("after").isNull());
    assertEquals(a, delete.get("before").get("id").asLong());
    assertEquals("{\"id\":" + a + "}", new String(out.get(0).key(), StandardCharsets.UTF_8));
    JsonNode create = JSON.readTree(out.get(1).value());
    assertEquals(partition(b), out.get(1).partition());
    assertEquals("c", create.get("op").asText());
    assertTrue(create.get("before").isNull());
    assertEquals(b, create.get("after").get("id").asLong());
  }

  @Test
  void anUpdateOfThePrimaryKeyIsADeleteAndACreateEvenInOnePartition() throws Exception {
    long a = 1;
    long b = 2;
    while (partition(b) != partition(a)) {
      b++;
    }
    List<ProducerRecord<byte[], byte[]>> out = of(change("u", "ks", "items", row(a, 3), row(b, 3)));
    assertEquals(List.of("d", "c"), out.stream().map(KeyspaceRecordsTest::op).toList());
    assertEquals(
        List.of(partition(a), partition(a)), out.stream().map(ProducerRecord::partition).toList());
    List<ProducerRecord<byte[], byte[]>> same =
        of(change("u", "ks", "items", row(a, 3), row(a, 4)));
    assertEquals(List.of("u"), same.stream().map(KeyspaceRecordsTest::op).toList());
  }

  private static String op(ProducerRecord<byte[], byte[]> r) {
    try {
      return JSON.readTree(r.value()).get("op").asText();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void reshardsOwnRowsMarkATransactionAndOtherDatabasesAreLeftOut() throws Exception {
    ChangeRecord fence = change("u", "_reshard", "fence", row(1, 1), row(1, 2));
    ChangeRecord stream = change("u", "_reshard", "streams", row(1, 1), row(1, 2));
    ChangeRecord item = change("c", "ks", "items", null, row(9, 0));
    assertFalse(KeyspaceRecords.writtenByReshard(List.of(item, fence)));
    assertTrue(KeyspaceRecords.writtenByReshard(List.of(item, stream)));
    assertEquals(1, of(item, fence).size(), "the fence row is not the keyspace's");
    assertEquals(0, of(change("c", "ks", "notinvschema", null, row(1, 0))).size());
  }

  @Test
  void aTruncateOfAShardGoesToEveryPartitionItsRangeOverlaps() throws Exception {
    ChangeRecord t = change("t", "ks", "items", null, null);
    List<ProducerRecord<byte[], byte[]>> out = records.of("80-c0", List.of(t), List.of(raw(t)));
    assertEquals(List.of(8, 9, 10, 11), out.stream().map(ProducerRecord::partition).toList());
  }

  @Test
  void theConnectFormCarriesItsSchemaInTheRecordAndNotInAHeader() throws Exception {
    KeyspaceRecords connect =
        new KeyspaceRecords(
            "ks",
            "reshard.ks",
            new KeyspacePartitions(16),
            KeyspaceStreamConfig.Format.CONNECT_JSON);
    connect.vschema(VSCHEMA);
    ChangeRecord c = change("c", "ks", "items", null, row(7, 3));
    ConsumerRecord<byte[], byte[]> in = raw(c);
    in.headers().add(ChangeRecords.SCHEMA_HEADER, "{}".getBytes(StandardCharsets.UTF_8));
    in.headers().add(ChangeRecords.KIND_HEADER, "data".getBytes(StandardCharsets.UTF_8));
    ProducerRecord<byte[], byte[]> out = connect.of("-", List.of(c), List.of(in)).get(0);
    JsonNode value = JSON.readTree(out.value());
    assertEquals(7, value.get("payload").get("after").get("id").asLong());
    assertEquals(3, value.get("payload").get("after").get("n").asInt());
    assertTrue(value.get("schema").get("name").asText().endsWith(".Envelope"), value.toString());
    JsonNode key = JSON.readTree(out.key());
    assertEquals(7, key.get("payload").get("id").asLong());
    assertEquals(partition(7), out.partition());
    assertEquals(null, out.headers().lastHeader(ChangeRecords.SCHEMA_HEADER));
    assertEquals("data", new String(out.headers().lastHeader(ChangeRecords.KIND_HEADER).value()));
  }

  private static int partition(long id) {
    return new KeyspacePartitions(16).of(HASH.keyspaceId(id));
  }

  private List<ProducerRecord<byte[], byte[]>> of(ChangeRecord... changes) throws Exception {
    List<ConsumerRecord<byte[], byte[]>> raw = new java.util.ArrayList<>();
    for (ChangeRecord c : changes) {
      raw.add(raw(c));
    }
    return records.of("-", List.of(changes), raw);
  }

  private static ConsumerRecord<byte[], byte[]> raw(ChangeRecord c) throws Exception {
    byte[] key =
        c.key() == null ? null : JSON.writeValueAsString(c.key()).getBytes(StandardCharsets.UTF_8);
    return new ConsumerRecord<>(
        "reshard.ks.-", 0, c.offset(), key, JSON.writeValueAsBytes(c.value()));
  }

  private static Map<String, Object> row(long id, int n) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", id);
    m.put("n", n);
    return m;
  }

  private static ChangeRecord change(
      String op, String db, String table, Map<String, Object> before, Map<String, Object> after) {
    Map<String, Object> image = after != null ? after : before;
    Map<String, Object> key = image == null ? null : Map.of("id", image.get("id"));
    Map<String, Object> value = new LinkedHashMap<>();
    value.put("before", before);
    value.put("after", after);
    value.put("op", op);
    TableSchema schema =
        table.equals("items") ? ITEMS : new TableSchema(db, table, ITEMS.columns(), List.of("id"));
    return new ChangeRecord(
        RecordKind.DATA,
        0,
        op,
        db,
        table,
        "0-1-1",
        schema,
        key,
        before,
        after,
        1,
        0,
        null,
        null,
        JSON.valueToTree(value));
  }
}
