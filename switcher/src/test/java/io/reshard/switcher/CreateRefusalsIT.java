package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A workflow's create refuses a vschema that does not fit the source's tables or rows, a keyspace
 * name outside the rule, and a target equal to the source, with every reason at once, before
 * anything is written anywhere: afterwards the targets have no database, no server has a fence row
 * of the keyspace, no change topic exists and no workflow record is stored. The split is {@code
 * c0-} (the fourth shard server) into {@code c0-e0} and {@code e0-} (the two spares).
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CreateRefusalsIT {
  private final TestCluster cluster;
  private final String ks;
  private final ShardMapTopicConfig topic;
  private final KafkaWorkflowStore store;
  private final WorkflowEngine engine;

  CreateRefusalsIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ks = cluster.database();
    this.topic = WrittenNothing.shardMapTopic(cluster);
    this.store = WrittenNothing.store(cluster);
    this.engine = new WorkflowEngine(store, Clock.systemUTC());
    ClusterDescriptor.Server source = cluster.shards().get(3);
    cluster.execute(
        source,
        "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
            + " body VARCHAR(100)) ENGINE=InnoDB",
        "CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR(64) NOT NULL) ENGINE=InnoDB",
        "CREATE TABLE notes (id BIGINT PRIMARY KEY, owner_id BIGINT NULL) ENGINE=InnoDB",
        "INSERT INTO notes VALUES (10, NULL), (11, 5), (12, NULL)",
        "CREATE TABLE prices (id BIGINT PRIMARY KEY, price DOUBLE NOT NULL) ENGINE=InnoDB",
        "INSERT INTO prices VALUES (1, 0.1)",
        "CREATE TABLE tagged (tags SET('a','b','c') NOT NULL, n BIGINT NOT NULL,"
            + " PRIMARY KEY (tags, n)) ENGINE=InnoDB",
        "CREATE TABLE wide (w " + wideEnum() + " NOT NULL PRIMARY KEY, n BIGINT) ENGINE=InnoDB",
        "CREATE TABLE counters (id BIGINT AUTO_INCREMENT PRIMARY KEY, n BIGINT) ENGINE=InnoDB",
        "CREATE DATABASE IF NOT EXISTS `café`",
        "CREATE TABLE IF NOT EXISTS `café`.messages (id BIGINT PRIMARY KEY,"
            + " channel_id BIGINT NOT NULL, body VARCHAR(100)) ENGINE=InnoDB");
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP DATABASE `" + ks + "`"); // a create that writes makes it again
    }
  }

  @AfterAll
  void close() throws Exception {
    store.close();
    cluster.execute(cluster.shards().get(3), "DROP DATABASE IF EXISTS `café`");
  }

  private WorkflowSpec spec(String keyspace, String name, String vschema, String... targets) {
    List<ShardServer> t =
        java.util.stream.IntStream.range(0, targets.length)
            .mapToObj(i -> WrittenNothing.server(targets[i], cluster.spares().get(i)))
            .toList();
    return new WorkflowSpec(
        name,
        keyspace,
        VSchema.parse(vschema),
        List.of(WrittenNothing.server("c0-", cluster.shards().get(3))),
        t,
        cluster.bootstrap(),
        cluster.topicPrefix(),
        topic.topic(),
        Duration.ofSeconds(5),
        Duration.ofSeconds(2),
        Duration.ofSeconds(30));
  }

  private String refused(WorkflowSpec spec) throws Exception {
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, spec.keyspace());
        WorkflowRunner runner = new WorkflowRunner(spec, engine, publisher)) {
      String m = assertThrows(SwitchRefusedException.class, runner::create).getMessage();
      assertNothingWritten(spec);
      return m;
    }
  }

  private void assertNothingWritten(WorkflowSpec spec) throws Exception {
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      assertFalse(
          WrittenNothing.databaseExists(spare, spec.keyspace()),
          "no database on target " + spare.name());
    }
    assertEquals(0, WrittenNothing.fenceRowsAnywhere(cluster, spec.keyspace()), "no fence row");
    Set<String> topics = WrittenNothing.topics(cluster);
    String changeTopic = cluster.topicPrefix() + "." + spec.keyspace() + ".";
    assertTrue(
        topics.stream().noneMatch(t -> t.startsWith(changeTopic)), "no change topic: " + topics);
    assertTrue(store.load(spec.name()).isEmpty(), "no workflow record");
  }

  private static String vschema(boolean sharded, String... tables) {
    return "{\"sharded\": "
        + sharded
        + ", \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
        + String.join(", ", tables)
        + "}}";
  }

  private static String placed(String table, String column) {
    return "\""
        + table
        + "\": {\"column_vindexes\": [{\"column\": \""
        + column
        + "\","
        + " \"name\": \"hash\"}]}";
  }

  @Test
  void aVSchemaColumnTheSourceTableLacksIsRefused() throws Exception {
    String m =
        refused(spec(ks, "nocolumn", vschema(true, placed("messages", "chan")), "c0-e0", "e0-"));
    assertEquals(
        "workflow nocolumn not created: table messages has no column chan, which its vindex hash"
            + " names; its columns are [id, channel_id, body] (on source c0-). Nothing was"
            + " written",
        m);
  }

  @Test
  void aHashVindexOnAVarcharColumnIsRefused() throws Exception {
    String m =
        refused(spec(ks, "varchar", vschema(true, placed("users", "email")), "c0-e0", "e0-"));
    assertTrue(
        m.contains(
            "table users: its primary vindex hash (type hash) cannot map column email of type"
                + " varchar(64); the vindex types that map it: xxhash, binary_md5"),
        m);
  }

  @Test
  void anUnshardedVSchemaIsRefused() throws Exception {
    String m =
        refused(
            spec(
                ks, "unsharded", vschema(false, placed("messages", "channel_id")), "c0-e0", "e0-"));
    assertTrue(m.contains("the vschema is not sharded"), m);
  }

  @Test
  void sourceRowsWithANullShardingKeyAreCountedAndShown() throws Exception {
    String m =
        refused(spec(ks, "nulls", vschema(true, placed("notes", "owner_id")), "c0-e0", "e0-"));
    assertTrue(
        m.contains(
            "table notes: 2 rows have a NULL sharding key owner_id (primary key id=10, id=12)"),
        m);
  }

  @Test
  void aKeyspaceNamedCafeIsRefusedBeforeAnyTargetIsTouched() throws Exception {
    String m =
        refused(
            spec(
                "café", "accent", vschema(true, placed("messages", "channel_id")), "c0-e0", "e0-"));
    assertTrue(m.startsWith("workflow accent not created: keyspace name \"café\" has 'é'"), m);
  }

  @Test
  void aTargetEqualToTheSourceIsRefusedForThatReasonAmongAllTheOthers() throws Exception {
    String m =
        refused(
            spec(
                ks,
                "several",
                vschema(
                    false,
                    placed("messages", "chan"),
                    placed("users", "email"),
                    placed("notes", "owner_id"),
                    placed("orders", "id")),
                "c0-"));
    assertTrue(m.startsWith("workflow several not created, for 7 reasons"), m);
    for (String reason :
        List.of(
            "target c0- is the range of source c0- itself",
            "the vschema is not sharded",
            "table messages has no column chan",
            "cannot map column email of type varchar(64)",
            "table notes: 2 rows have a NULL sharding key owner_id",
            // the owner of note 11 hashes outside c0-: the split would leave it behind
            "table notes: 1 row has a keyspace id outside this shard's range c0- (primary key id=11",
            "table orders of the vschema does not exist in database " + ks)) {
      assertTrue(m.contains(reason), reason + " in " + m);
    }
    assertFalse(m.contains("does not exist on source"), "not a missing table on the source: " + m);
  }

  /** An ENUM of one label more than an ENUM primary key may have. */
  private static String wideEnum() {
    StringBuilder b = new StringBuilder("ENUM(");
    for (int i = 0; i <= io.reshard.core.schema.ColumnDef.MAX_ENUM_KEY_LABELS; i++) {
      b.append(i == 0 ? "'" : ",'").append("w").append(i).append("'");
    }
    return b.append(")").toString();
  }

  /**
   * A sharding column no placement can give every path alike (a DOUBLE, which the copy read as text
   * and apply refused), a SET in a primary key and an ENUM key of too many labels are refused
   * together, each naming table, column, type and what to do; nothing is written. The DOUBLE was
   * accepted before the one placement rule: its create went through.
   */
  @Test
  void keyAndShardingColumnTypesNotSupportedEndToEndAreRefusedTogether() throws Exception {
    String vschema =
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"},"
            + " \"xx\": {\"type\": \"xxhash\"}}, \"tables\": {"
            + "\"prices\": {\"column_vindexes\": [{\"column\": \"price\", \"name\": \"xx\"}]}, "
            + placed("tagged", "n")
            + ", "
            + placed("wide", "n")
            + "}}";
    String m = refused(spec(ks, "types", vschema, "c0-e0", "e0-"));
    assertTrue(m.startsWith("workflow types not created, for 3 reasons"), m);
    for (String reason :
        List.of(
            "table prices: column price of type double cannot be a sharding column: a"
                + " floating-point value has no exact text form that the copy, the change stream"
                + " and router-lib would all place alike; place the table by an integer, string,"
                + " ENUM, SET, DECIMAL, temporal or binary column (on source c0-)",
            "table "
                + ks
                + ".tagged has primary-key column tags of type set('a','b','c'), which"
                + " the copy cannot read in key order and compare exactly; supported key types are",
            "or leave the table out of the vschema",
            "table " + ks + ".wide has primary-key column w of type enum(",
            "an ENUM of 257 labels, more than the 256 an ENUM key may have")) {
      assertTrue(m.contains(reason), reason + " in " + m);
    }
  }

  @Test
  void anAutoIncrementTableWithoutASequenceIsRefusedUnlessTheApplicationAssignsIds()
      throws Exception {
    String m =
        refused(spec(ks, "autoinc", vschema(true, placed("counters", "id")), "c0-e0", "e0-"));
    assertTrue(
        m.contains(
            "table counters has the AUTO_INCREMENT column id: after the split every target would go"
                + " on from the same AUTO_INCREMENT value"),
        m);
    assertTrue(m.contains("--auto-increment=leave"), m);
    // leave: the application assigns ids; only the other table's reason remains
    String left =
        refused(
            spec(
                    ks,
                    "autoinc-leave",
                    vschema(true, placed("counters", "id"), placed("users", "email")),
                    "c0-e0",
                    "e0-")
                .withAutoIncrement(AutoIncrementMode.LEAVE, java.util.Map.of()));
    assertFalse(left.contains("AUTO_INCREMENT"), left);
    assertTrue(left.contains("users"), left);
  }

  @Test
  void aSequenceWithoutItsKeyspaceOrColumnIsRefused() throws Exception {
    String counters =
        "\"counters\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}],"
            + " \"auto_increment\": {\"column\": \"idd\", \"sequence\": \"noseq.counters_seq\"}}";
    String m = refused(spec(ks, "noseq", vschema(true, counters), "c0-e0", "e0-"));
    assertTrue(m.contains("table counters has no column idd, which its auto_increment names"), m);
    assertTrue(
        m.contains(
            "sequence noseq.counters_seq: keyspace noseq has no shard map with a server this daemon"
                + " knows"),
        m);
    assertFalse(m.contains("AUTO_INCREMENT column"), "a sequence is named: " + m);
  }
}
