package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.router.ShardMapTopic.Key;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ShardMapTopicTest {
  private static final VSchema VSCHEMA = VSchema.parse(VSchemaTest.customerVSchemaJson());

  private static ShardMap v1(String keyspace) {
    return ShardMap.first(
        keyspace,
        VSCHEMA,
        List.of(new ShardAssignment(KeyRange.parse("-"), "shard-0", true, true)));
  }

  @Test
  void aKeyIsTheKeyspaceAndTheVersionPaddedToNineteenDigits() {
    assertEquals("commerce/0000000000000000003", new Key("commerce", 3).toString());
    assertEquals(
        "commerce/" + Long.MAX_VALUE, new Key("commerce", Long.MAX_VALUE).toString(), "max fits");
    assertEquals("customer/0000000000000000001", Key.of(v1("customer")).toString());
  }

  @Test
  void aKeyParsesBackToItself() {
    for (long v : new long[] {1, 9, 10, 1234567, Long.MAX_VALUE}) {
      Key k = new Key("com.merce-2_x", v);
      assertEquals(k, Key.parse(k.toString()));
    }
  }

  @Test
  void keysSortAsKeyspaceThenVersionInPlainStringOrder() {
    List<Key> ordered =
        List.of(
            new Key("a", 1),
            new Key("a", 9),
            new Key("a", 10),
            new Key("a", 100),
            new Key("b", 2),
            new Key("b", 11));
    List<Key> shuffled = new ArrayList<>(ordered);
    Collections.reverse(shuffled);
    List<String> strings = new ArrayList<>(shuffled.stream().map(Key::toString).toList());
    Collections.sort(strings);
    assertEquals(ordered.stream().map(Key::toString).toList(), strings);
    Collections.sort(shuffled);
    assertEquals(ordered, shuffled);
  }

  @Test
  void malformedKeysAreRefusedNamingTheKey() {
    for (String bad :
        new String[] {
          "commerce",
          "commerce/3",
          "/0000000000000000003",
          "commerce/000000000000000000x",
          "commerce/00000000000000000003",
          "commerce/0000000000000000000",
          "commerce/9999999999999999999",
          "commerce/-000000000000000003",
          ""
        }) {
      ShardMapException e = assertThrows(ShardMapException.class, () -> Key.parse(bad), bad);
      assertTrue(e.getMessage().contains("'" + bad + "'"), e.getMessage());
    }
    assertThrows(ShardMapException.class, () -> Key.parse(null));
  }

  @Test
  void aKeyspaceNameWithASlashOrBlankCannotNameRecords() {
    assertThrows(IllegalArgumentException.class, () -> new Key("a/b", 1));
    assertThrows(IllegalArgumentException.class, () -> new Key(" ", 1));
    assertThrows(IllegalArgumentException.class, () -> new Key("a", 0));
  }

  @Test
  void decodeReturnsTheMapOfItsKeyspaceOnly() {
    ShardMap map = v1("customer");
    String key = Key.of(map).toString();
    assertEquals(Optional.of(map), ShardMapTopic.decode("customer", key, map.toJson()));
    assertEquals(
        Optional.empty(),
        ShardMapTopic.decode("other", key, "not even json"),
        "another keyspace's value is not parsed");
  }

  @Test
  void decodeRefusesAValueThatDisagreesWithItsKeyOrIsMissing() {
    ShardMap map = v1("customer");
    ShardMapException mismatch =
        assertThrows(
            ShardMapException.class,
            () -> ShardMapTopic.decode("customer", "customer/0000000000000000002", map.toJson()));
    assertTrue(mismatch.getMessage().contains("customer v1"), mismatch.getMessage());
    assertThrows(
        ShardMapException.class,
        () -> ShardMapTopic.decode("customer", "customer/0000000000000000001", null));
    assertThrows(
        IllegalArgumentException.class,
        () -> ShardMapTopic.decode("customer", "customer/0000000000000000001", "{}"));
  }

  @Test
  void theRecordCarriesTheKeyAndTheJsonOnTheOnlyPartition() {
    ShardMap map = v1("customer");
    var record = ShardMapTopic.record("t", map);
    assertEquals("t", record.topic());
    assertEquals(0, record.partition());
    assertEquals("customer/0000000000000000001", record.key());
    assertEquals(map, ShardMap.fromJson(record.value()));
  }

  @Test
  void theConfigHasDefaultsAndTheTransactionalIdIsFixedPerKeyspace() {
    ShardMapTopicConfig c = ShardMapTopicConfig.of("localhost:9092");
    assertEquals("reshard.shardmaps", c.topic());
    assertEquals("reshard-shardmap-commerce", c.transactionalId("commerce"));
    assertEquals(Duration.ofSeconds(30), c.timeout());
    var producer = ShardMapTopic.producerProperties(c, "commerce");
    assertEquals("reshard-shardmap-commerce", producer.get("transactional.id"));
    assertEquals("all", producer.get("acks"));
    assertEquals(true, producer.get("enable.idempotence"));
    assertEquals(10, producer.get("retry.backoff.ms"));
    var consumer = ShardMapTopic.consumerProperties(c);
    assertEquals("read_committed", consumer.get("isolation.level"));
    assertEquals("earliest", consumer.get("auto.offset.reset"));
  }

  @Test
  void theConfigReportsEveryProblemAtOnce() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                ShardMapTopicConfig.builder()
                    .topic("bad topic")
                    .transactionalIdPrefix(" ")
                    .timeout(Duration.ZERO)
                    .clientProperty("isolation.level", "read_uncommitted")
                    .clientProperty("security.protocol", "SSL")
                    .build());
    String m = e.getMessage();
    for (String part :
        new String[] {
          "bootstrapServers", "'bad topic'", "transactionalIdPrefix", "timeout", "isolation.level"
        }) {
      assertTrue(m.contains(part), part + " in " + m);
    }
    assertTrue(!m.contains("security.protocol"), m);
  }
}
