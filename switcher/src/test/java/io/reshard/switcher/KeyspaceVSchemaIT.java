package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code keyspace init} and {@code keyspace set-vschema} check the vschema against the four shard
 * servers' real tables and rows: each refusal names its reason (every one at once) and leaves no
 * shard map, fence row or new version behind; a vschema that fits is published, and set-vschema
 * replaces it keeping the shards and epochs, but not while a workflow of the keyspace is
 * unfinished.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KeyspaceVSchemaIT {
  /** The good vschema: messages by channel, users by id with a lookup on email. */
  static final String GOOD =
      """
      {"sharded": true,
       "vindexes": {"hash": {"type": "hash"}, "xxhash": {"type": "xxhash"},
                    "email_lookup": {"type": "consistent_lookup_unique", "owner": "users",
                       "params": {"table": "email_lookup", "from": "email", "to": "id"}}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]},
                  "users": {"column_vindexes": [{"column": "id", "name": "hash"},
                                                {"column": "email", "name": "email_lookup"}]},
                  "email_lookup": {"column_vindexes": [{"column": "email", "name": "xxhash"}]}}}
      """;

  private final TestCluster cluster;
  private final String ks;
  private final ShardMapTopicConfig topic;
  private final List<ShardServer> shards;

  KeyspaceVSchemaIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ks = cluster.database();
    this.topic = WrittenNothing.shardMapTopic(cluster);
    this.shards = WrittenNothing.shards(cluster);
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB",
          "CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR(64) NOT NULL) ENGINE=InnoDB",
          "CREATE TABLE email_lookup (email VARCHAR(64) PRIMARY KEY, id BIGINT NOT NULL)"
              + " ENGINE=InnoDB",
          "CREATE TABLE notes (id BIGINT PRIMARY KEY, owner_id BIGINT NULL) ENGINE=InnoDB");
    }
    // seven notes without an owner on the first shard: their sharding key is NULL
    cluster.execute(
        cluster.shards().get(0),
        "INSERT INTO notes VALUES (1, NULL), (2, NULL), (3, NULL), (4, NULL), (5, NULL),"
            + " (6, NULL), (7, NULL), (8, 32)"); // owner 32: on -40 by hash and by xxhash
  }

  @AfterAll
  void dropTheAccentedDatabase() throws Exception {
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(s, "DROP DATABASE IF EXISTS `café`");
    }
  }

  private SwitchRefusedException initRefused(String keyspace, String vschema) {
    return assertThrows(
        SwitchRefusedException.class,
        () -> new KeyspaceInitPhase(keyspace, VSchema.parse(vschema), shards, topic).run());
  }

  private void assertNothingWritten(String keyspace) throws Exception {
    assertEquals(List.of(), ShardMapTopic.history(topic, keyspace), "no shard map");
    assertEquals(0, WrittenNothing.fenceRowsAnywhere(cluster, keyspace), "no fence row");
  }

  /** A vschema with {@code tables} and the vindexes hash, xxhash and numeric. */
  private static String vschema(boolean sharded, String tables) {
    return "{\"sharded\": "
        + sharded
        + ", \"vindexes\": {\"hash\": {\"type\": \"hash\"}, \"xxhash\": {\"type\": \"xxhash\"},"
        + " \"numeric\": {\"type\": \"numeric\"}},"
        + " \"tables\": {"
        + tables
        + "}}";
  }

  private static String placed(String table, String column, String vindex) {
    return "\""
        + table
        + "\": {\"column_vindexes\": [{\"column\": \""
        + column
        + "\", \"name\": \""
        + vindex
        + "\"}]}";
  }

  @Test
  @Order(1)
  void aColumnTheTableLacksIsRefusedOnEveryShard() throws Exception {
    SwitchRefusedException e = initRefused(ks, vschema(true, placed("messages", "chan", "hash")));
    String everyShard =
        String.join(", ", shards.stream().map(s -> s.shard() + " on " + s.endpointRef()).toList());
    assertEquals(
        "keyspace init of "
            + ks
            + " refused: table messages has no column chan, which its vindex hash names; its"
            + " columns are [id, channel_id, body] (on "
            + everyShard
            + "). Nothing was written",
        e.getMessage());
    assertNothingWritten(ks);
  }

  @Test
  @Order(2)
  void aHashVindexOnAVarcharColumnIsRefusedNamingTheTypesThatFit() throws Exception {
    SwitchRefusedException e = initRefused(ks, vschema(true, placed("users", "email", "hash")));
    assertTrue(
        e.getMessage()
            .contains(
                "table users: its primary vindex hash (type hash) cannot map column email of type"
                    + " varchar(64); the vindex types that map it: xxhash, binary_md5"),
        e.getMessage());
    assertNothingWritten(ks);
  }

  @Test
  @Order(3)
  void anUnshardedVSchemaIsRefused() throws Exception {
    SwitchRefusedException e =
        initRefused(ks, vschema(false, placed("messages", "channel_id", "hash")));
    assertTrue(e.getMessage().contains("the vschema is not sharded"), e.getMessage());
    assertNothingWritten(ks);
  }

  @Test
  @Order(4)
  void aLookupTableThatDoesNotExistIsRefused() throws Exception {
    String v =
        """
        {"sharded": true,
         "vindexes": {"hash": {"type": "hash"},
                      "owner_lookup": {"type": "consistent_lookup_unique",
                         "params": {"table": "owner_lookup", "from": "owner_id", "to": "id"}}},
         "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"},
                                                     {"column": "id", "name": "owner_lookup"}]}}}
        """;
    String m = initRefused(ks, v).getMessage();
    assertTrue(
        m.contains(
            "lookup vindex owner_lookup: its table owner_lookup is not a table of the vschema"
                + " with a primary vindex"),
        m);
    assertTrue(
        m.contains(
            "lookup vindex owner_lookup: its table owner_lookup does not exist in database "
                + ks
                + "; create it (on -40"),
        m);
    assertNothingWritten(ks);
  }

  @Test
  @Order(5)
  void rowsWithANullShardingKeyAreCountedWithSomeOfTheirKeys() throws Exception {
    SwitchRefusedException e = initRefused(ks, vschema(true, placed("notes", "owner_id", "hash")));
    assertTrue(
        e.getMessage()
            .contains(
                "table notes: 7 rows have a NULL sharding key owner_id (primary key id=1, id=2,"
                    + " id=3, id=4, id=5 and 2 more): a NULL has no keyspace id"),
        e.getMessage());
    assertTrue(e.getMessage().contains("(on -40 on "), "found on the first shard only");
    assertFalse(e.getMessage().contains("40-80 on"), e.getMessage());
    assertNothingWritten(ks);
  }

  @Test
  @Order(6)
  void aKeyspaceNamedCafeIsRefusedBeforeAnythingIsWritten() throws Exception {
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE DATABASE IF NOT EXISTS `café`",
          "CREATE TABLE IF NOT EXISTS `café`.messages (id BIGINT PRIMARY KEY,"
              + " channel_id BIGINT NOT NULL, body VARCHAR(100)) ENGINE=InnoDB");
    }
    SwitchRefusedException e =
        initRefused("café", vschema(true, placed("messages", "channel_id", "hash")));
    assertEquals(
        "keyspace init of café refused: keyspace name \"café\" has 'é' (U+00E9): a keyspace"
            + " name is 1 to 64 ASCII letters, digits and '_', not starting with a digit, since it"
            + " names the database on every shard, the change topics <prefix>.<keyspace>.<shard>"
            + " and the shard map's records; use such a name for the keyspace and its database."
            + " Nothing was written",
        e.getMessage());
    assertNothingWritten("café");
  }

  @Test
  @Order(7)
  void everyReasonComesInOneRefusal() throws Exception {
    String v =
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"},"
            + " \"lk\": {\"type\": \"lookup_unique\", \"params\": {\"table\": \"lk\","
            + " \"from\": \"body\", \"to\": \"id\"}}}, \"tables\": {"
            + placed("messages", "chan", "hash")
            + ", "
            + placed("users", "email", "hash")
            + ", "
            + placed("notes", "owner_id", "hash")
            + ", "
            + placed("orders", "id", "hash")
            + "}}";
    String m = initRefused(ks, v).getMessage();
    assertTrue(m.startsWith("keyspace init of " + ks + " refused, for 6 reasons"), m);
    for (String reason :
        List.of(
            "lookup vindex lk: its table lk is not a table of the vschema",
            "table messages has no column chan",
            "table users: its primary vindex hash (type hash) cannot map column email",
            "table notes: 7 rows have a NULL sharding key owner_id",
            "table orders of the vschema does not exist in database " + ks,
            "lookup vindex lk: its table lk does not exist")) {
      assertTrue(m.contains(reason), reason + " in " + m);
    }
    assertNothingWritten(ks);
  }

  @Test
  @Order(8)
  void rowsOnAShardThatDoesNotOwnThemAreRefusedWithTheirKeys() throws Exception {
    // channels 3 and 5 hash into 40-80, channel 1 into -40: two messages sit on the wrong shard
    ClusterDescriptor.Server first = cluster.shards().get(0);
    cluster.execute(
        first, "INSERT INTO messages VALUES (101, 3, 'x'), (102, 5, 'y'), (103, 1, 'z')");
    try {
      String m = initRefused(ks, GOOD).getMessage();
      assertTrue(
          m.contains(
              "table messages: 2 rows have a keyspace id outside this shard's range -40 (primary"
                  + " key id=101 (keyspace id 4eb190c9a2fa169c), id=102"),
          m);
      assertTrue(m.contains("reshard keyspace-id"), "it says how to find the owner: " + m);
      assertFalse(m.contains("id=103"), m);
      assertNothingWritten(ks);
    } finally {
      cluster.execute(first, "DELETE FROM messages WHERE id IN (101, 102, 103)");
    }
  }

  @Test
  @Order(10)
  void aVSchemaThatFitsIsPublishedAndCanThenBeReplaced() throws Exception {
    ShardMap v1 = new KeyspaceInitPhase(ks, VSchema.parse(GOOD), shards, topic).run();
    assertEquals(1, v1.version());
    assertEquals(4, WrittenNothing.fenceRowsAnywhere(cluster, ks));
    SwitchRefusedException again = initRefused(ks, GOOD);
    assertTrue(
        again.getMessage().contains("has a shard map already (version 1"), again.getMessage());
    assertTrue(again.getMessage().contains("keyspace set-vschema"), again.getMessage());

    VSchema v2 =
        VSchema.parse(
            vschema(
                true,
                placed("messages", "channel_id", "xxhash") + ", " + placed("users", "id", "hash")));
    SetVSchemaPhase.Result r = setVSchema(v2);
    assertTrue(r.published());
    List<ShardMap> history = ShardMapTopic.history(topic, ks);
    assertEquals(List.of(1L, 2L), history.stream().map(ShardMap::version).toList());
    assertEquals(v2, history.get(1).vschema());
    assertEquals(
        v1.shards(), history.get(1).shards(), "the same shards, servers, roles and epochs");

    SetVSchemaPhase.Result same = setVSchema(v2);
    assertFalse(same.published(), "the same vschema publishes nothing");
    assertEquals(2, ShardMapTopic.history(topic, ks).size());
  }

  @Test
  @Order(11)
  void setVSchemaIsRefusedWhileAWorkflowOfTheKeyspaceIsUnfinished() throws Exception {
    VSchema v3 = VSchema.parse(GOOD);
    Instant t = Instant.now();
    Workflow moving =
        Workflow.create("moving", ks, List.of("c0-"), List.of("c0-e0", "e0-"), "1-1-1", t);
    try (KafkaWorkflowStore store = workflows()) {
      store.save(moving);
      SwitchRefusedException e = assertThrows(SwitchRefusedException.class, () -> setVSchema(v3));
      assertEquals(
          "the vschema of keyspace "
              + ks
              + " not replaced: workflow moving (CREATED) moves keyspace "
              + ks
              + " and places its rows by the vschema it started with; complete or cancel it"
              + " first. Nothing was written",
          e.getMessage());
      assertEquals(2, ShardMapTopic.history(topic, ks).size(), "no new version");

      store.save(moving.transition(WorkflowState.CANCELLED, t));
      assertTrue(setVSchema(v3).published(), "a cancelled workflow no longer holds it");
      assertEquals(3, ShardMapTopic.history(topic, ks).size());
    }
  }

  @Test
  @Order(12)
  void setVSchemaRefusesABadVSchemaWithEveryReason() throws Exception {
    VSchema bad =
        VSchema.parse(
            vschema(
                false,
                placed("messages", "chan", "hash")
                    + ", "
                    + placed("users", "email", "numeric")
                    + ", "
                    + placed("notes", "owner_id", "xxhash")));
    SwitchRefusedException e = assertThrows(SwitchRefusedException.class, () -> setVSchema(bad));
    String m = e.getMessage();
    assertTrue(m.startsWith("the vschema of keyspace " + ks + " not replaced, for 4 reasons"), m);
    assertTrue(m.contains("the vschema is not sharded"), m);
    assertTrue(m.contains("table messages has no column chan"), m);
    assertTrue(m.contains("cannot map column email of type varchar(64)"), m);
    assertTrue(m.contains("table notes: 7 rows have a NULL sharding key owner_id"), m);
    assertEquals(3, ShardMapTopic.history(topic, ks).size(), "no new version");
  }

  @Test
  @Order(13)
  void setVSchemaWithoutAShardMapIsRefused() throws Exception {
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                new SetVSchemaPhase(
                        ks + "_none", VSchema.parse(GOOD), topic, workflows(), this::server)
                    .run());
    assertTrue(
        e.getMessage().contains("has no shard map; publish one first with `reshard keyspace init"),
        e.getMessage());
  }

  @Test
  @Order(14)
  void anUnshardedSequenceKeyspaceIsPublishedWithItsOneShardAndNoFence() throws Exception {
    String seq = ks + "_seq";
    String v = "{\"tables\": {\"messages_seq\": {\"type\": \"sequence\"}}}";
    ClusterDescriptor.Server host = cluster.shards().get(0);
    List<ShardServer> one = List.of(WrittenNothing.server("-", host));
    SwitchRefusedException noDatabase =
        assertThrows(
            SwitchRefusedException.class,
            () -> new KeyspaceInitPhase(seq, VSchema.parse(v), one, topic).run());
    assertTrue(noDatabase.getMessage().contains("has no database " + seq), noDatabase.getMessage());
    cluster.execute(host, "CREATE DATABASE `" + seq + "`");
    SwitchRefusedException noTable =
        assertThrows(
            SwitchRefusedException.class,
            () -> new KeyspaceInitPhase(seq, VSchema.parse(v), one, topic).run());
    assertTrue(
        noTable.getMessage().contains("table messages_seq, which the vschema declares, is not in"),
        noTable.getMessage());
    SwitchRefusedException twoShards =
        assertThrows(
            SwitchRefusedException.class,
            () -> new KeyspaceInitPhase(seq, VSchema.parse(v), shards, topic).run());
    assertTrue(
        twoShards.getMessage().contains("has exactly one shard, -, on one server"),
        twoShards.getMessage());
    cluster.execute(
        host,
        "CREATE TABLE `" + seq + "`.messages_seq (id INT PRIMARY KEY, foo INT) ENGINE=InnoDB");
    SwitchRefusedException badLayout =
        assertThrows(
            SwitchRefusedException.class,
            () -> new KeyspaceInitPhase(seq, VSchema.parse(v), one, topic).run());
    assertTrue(
        badLayout.getMessage().contains("sequence table messages_seq cannot be read as one"),
        badLayout.getMessage());
    cluster.execute(host, "DROP TABLE `" + seq + "`.messages_seq");
    assertNothingWritten(seq);

    try (var c = java.sql.DriverManager.getConnection(host.jdbcUrl(seq), host.user(), "")) {
      io.reshard.router.Sequence.createTable(c, "messages_seq", 1, 100);
    }
    ShardMap v1 = new KeyspaceInitPhase(seq, VSchema.parse(v), one, topic).run();
    assertEquals(1, v1.version());
    assertEquals(1, v1.shards().size());
    assertEquals("-", v1.shards().get(0).name());
    assertEquals(host.name(), v1.shards().get(0).endpoint());
    assertFalse(v1.vschema().sharded());
    assertEquals(List.of(v1), ShardMapTopic.history(topic, seq));
    assertEquals(0, WrittenNothing.fenceRowsAnywhere(cluster, seq), "no fence row");
  }

  private SetVSchemaPhase.Result setVSchema(VSchema v) throws Exception {
    try (KafkaWorkflowStore store = workflows()) {
      return new SetVSchemaPhase(ks, v, topic, store, this::server).run();
    }
  }

  private KafkaWorkflowStore workflows() {
    return WrittenNothing.store(cluster);
  }

  /** The shard map's endpoint references are the cluster's server names. */
  private ShardServer server(String endpointRef, String shard) {
    return cluster.descriptor().mariadb().stream()
        .filter(s -> s.name().equals(endpointRef))
        .findFirst()
        .map(s -> WrittenNothing.server(shard, s))
        .orElseThrow(() -> new IllegalArgumentException("no server " + endpointRef));
  }
}
