package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ShardMapTest {
  private static final VSchema VSCHEMA = VSchema.parse(VSchemaTest.customerVSchemaJson());

  private static ShardAssignment rw(String range, String endpoint) {
    return new ShardAssignment(KeyRange.parse(range), endpoint, true, true);
  }

  private static ShardAssignment a(String range, String endpoint, boolean reads, boolean writes) {
    return new ShardAssignment(KeyRange.parse(range), endpoint, reads, writes);
  }

  private static Shard shard(String range, long epoch, boolean reads, boolean writes) {
    return new Shard(KeyRange.parse(range), "shard" + range, epoch, reads, writes);
  }

  /** Shard name → epoch, for compact assertions. */
  private static Map<String, Long> epochs(ShardMap m) {
    return m.shards().stream().collect(Collectors.toMap(Shard::name, Shard::epoch));
  }

  private static ShardMap v1() {
    return ShardMap.first("customer", VSCHEMA, List.of(rw("80-", "shard-1"), rw("-80", "shard-0")));
  }

  @Test
  void theFirstVersionGivesEveryShardEpochOne() {
    ShardMap m = v1();
    assertEquals("customer", m.keyspace());
    assertEquals(1, m.version());
    assertEquals(Map.of("-80", 1L, "80-", 1L), epochs(m));
    assertEquals("-80", m.shards().get(0).name(), "shards are kept in range order");
    assertEquals("shard map customer v1 [-80 (r w e1), 80- (r w e1)]", m.toString());
  }

  @Test
  void onlyShardsWhoseWriteOwnershipChangedGetTheNewEpoch() {
    ShardMap v1 = v1();
    // v2: the copy phase of 80- -> 80-c0, c0-: the targets join, serving nothing.
    ShardMap v2 =
        v1.next(
            VSCHEMA,
            List.of(
                rw("-80", "shard-0"),
                rw("80-", "shard-1"),
                a("80-c0", "shard-2", false, false),
                a("c0-", "shard-3", false, false)));
    assertEquals(2, v2.version());
    assertEquals(Map.of("-80", 1L, "80-", 1L, "80-c0", 2L, "c0-", 2L), epochs(v2));
    // v3: reads switch to the targets; write ownership is unchanged everywhere.
    ShardMap v3 =
        v2.next(
            VSCHEMA,
            List.of(
                rw("-80", "shard-0"),
                a("80-", "shard-1", false, true),
                a("80-c0", "shard-2", true, false),
                a("c0-", "shard-3", true, false)));
    assertEquals(Map.of("-80", 1L, "80-", 1L, "80-c0", 2L, "c0-", 2L), epochs(v3));
    // v4: writes switch: the source and the targets change owner; -80 is untouched.
    ShardMap v4 =
        v3.next(
            VSCHEMA,
            List.of(
                rw("-80", "shard-0"),
                a("80-", "shard-1", false, false),
                rw("80-c0", "shard-2"),
                rw("c0-", "shard-3")));
    assertEquals(Map.of("-80", 1L, "80-", 4L, "80-c0", 4L, "c0-", 4L), epochs(v4));
  }

  @Test
  void aNewEndpointAloneKeepsTheEpoch() {
    ShardMap v2 = v1().next(VSCHEMA, List.of(rw("-80", "shard-9"), rw("80-", "shard-1")));
    assertEquals(Map.of("-80", 1L, "80-", 1L), epochs(v2));
    assertEquals("shard-9", v2.shard(KeyRange.parse("-8000")).orElseThrow().endpoint());
  }

  @Test
  void findsTheReadAndTheWriteShardOfAKsid() {
    ShardMap m =
        ShardMap.of(
            "customer",
            3,
            VSCHEMA,
            List.of(
                shard("-80", 1, true, true),
                shard("80-", 1, false, true),
                shard("80-c0", 2, true, false),
                shard("c0-", 2, true, false)));
    KeyspaceId k = Vindex.of(VindexType.HASH).keyspaceId(4L); // d2fd8867d50d2dfe
    assertEquals("c0-", m.readShardFor(k).name());
    assertEquals("80-", m.writeShardFor(k).name());
    KeyspaceId low = Vindex.of(VindexType.HASH).keyspaceId(1L); // 166b40b44aba4bd6
    assertEquals("-80", m.readShardFor(low).name());
    assertEquals("-80", m.writeShardFor(low).name());
    assertEquals("-80,80-c0,c0-", m.readPartition().toString());
    assertEquals("-80,80-", m.writePartition().toString());
  }

  @Test
  void roundTripsThroughJson() {
    ShardMap m =
        ShardMap.of(
            "customer",
            7,
            VSCHEMA,
            List.of(
                shard("-8000", 3, true, true),
                shard("80-", 5, false, true),
                shard("80-c0", 7, true, false),
                shard("c0-", 7, true, false)));
    String json = m.toJson();
    ShardMap back = ShardMap.fromJson(json);
    assertEquals(m, back);
    assertEquals(json, back.toJson());
    assertTrue(json.contains("\"serves_writes\" : true"), json);
    assertTrue(json.contains("\"name\" : \"-8000\""), "names keep their bytes: " + json);
    assertEquals(
        "product.customer_seq",
        back.vschema().toJson().at("/tables/customer/auto_increment/sequence").asText());
  }

  @Test
  void readsAHandWrittenDocumentIgnoringUnknownKeys() {
    String json =
        "{\"keyspace\": \"commerce\", \"version\": 2, \"published_by\": \"switcher-1\","
            + " \"vschema\": {\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
            + "   \"tables\": {\"t\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}},"
            + " \"shards\": [{\"name\": \"-\", \"endpoint\": \"db-0\", \"epoch\": 2,"
            + "   \"serves_reads\": true, \"serves_writes\": true, \"note\": \"x\"}]}";
    ShardMap m = ShardMap.fromJson(json);
    assertEquals("commerce", m.keyspace());
    assertEquals(2, m.version());
    Shard only = m.shards().get(0);
    assertEquals("db-0", only.endpoint());
    assertEquals(2, only.epoch());
    assertEquals(VindexType.HASH, m.vschema().primaryVindex("t").type());
  }

  @Test
  void refusesReadShardsThatAreNotAPartition() {
    ShardMapException e =
        assertThrows(
            ShardMapException.class,
            () ->
                ShardMap.of(
                    "customer",
                    2,
                    VSCHEMA,
                    List.of(
                        shard("-80", 1, true, true),
                        shard("80-", 1, false, true),
                        shard("80-c0", 2, true, false))));
    assertEquals(
        "invalid shard map customer v2: read shards: key ranges -80,80-c0 are not a partition of"
            + " the keyspace: gap c0-",
        e.getMessage());
  }

  @Test
  void refusesWriteShardsThatOverlap() {
    ShardMapException e =
        assertThrows(
            ShardMapException.class,
            () ->
                v1().next(
                        VSCHEMA,
                        List.of(rw("-80", "s0"), rw("80-", "s1"), a("80-c0", "s2", false, true))));
    assertEquals(1, e.problems().size(), e.getMessage());
    assertTrue(
        e.getMessage().contains("write shards: key ranges -80,80-c0,80- are not a partition")
            && e.getMessage().contains("overlap 80-c0 (between 80-c0 and 80-)"),
        e.getMessage());
  }

  @Test
  void listsEveryInvalidField() {
    ShardMapException e =
        assertThrows(
            ShardMapException.class,
            () ->
                ShardMap.of(
                    " ",
                    1,
                    VSCHEMA,
                    List.of(
                        new Shard(KeyRange.parse("-80"), "", 2, true, true),
                        shard("-8000", 1, false, false),
                        shard("80-", 0, true, true))));
    assertEquals(
        List.of(
            "the keyspace name is blank",
            "shard -80 has a blank endpoint",
            "shard -80 has epoch 2, not in [1, 1]",
            "shards -80 and -8000 have the same range",
            "shard 80- has epoch 0, not in [1, 1]"),
        e.problems());
    assertThrows(ShardMapException.class, () -> ShardMap.of("k", 0, VSCHEMA, List.of()));
  }

  @Test
  void refusesIncompleteOrMalformedDocuments() {
    ShardMapException missing =
        assertThrows(
            ShardMapException.class,
            () ->
                ShardMap.fromJson(
                    "{\"keyspace\": \"k\", \"version\": 1, \"vschema\": {},"
                        + " \"shards\": [{\"name\": \"-\", \"endpoint\": \"e\", \"epoch\": 1,"
                        + " \"serves_reads\": true}]}"));
    assertEquals(List.of("shard - has no \"serves_writes\""), missing.problems());
    ShardMapException badName =
        assertThrows(
            ShardMapException.class,
            () ->
                ShardMap.fromJson(
                    "{\"keyspace\": \"k\", \"version\": 1, \"vschema\": {}, \"shards\": [{\"name\":"
                        + " \"8-\", \"endpoint\": \"e\", \"epoch\": 1, \"serves_reads\": true,"
                        + " \"serves_writes\": true}]}"));
    assertTrue(badName.getMessage().contains("\"8-\""), badName.getMessage());
    ShardMapException notJson =
        assertThrows(ShardMapException.class, () -> ShardMap.fromJson("{\"version\": \"x\"}"));
    assertTrue(notJson.getMessage().contains("not a shard map document"), notJson.getMessage());
    assertThrows(
        VSchemaException.class,
        () ->
            ShardMap.fromJson(
                "{\"keyspace\": \"k\", \"version\": 1, \"vschema\": {\"vindexes\": {\"v\":"
                    + " {\"type\": \"nope\"}}}, \"shards\": []}"));
  }
}
