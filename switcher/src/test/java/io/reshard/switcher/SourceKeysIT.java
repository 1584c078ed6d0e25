package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KeyRange;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A merge of {@code -40} and {@code 40-80} into {@code -80} whose sources hold some primary keys
 * twice is refused at create, naming each table, how many keys and the first few, before anything
 * is written. {@code orders} (keyed by {@code id}, placed by {@code customer_id}) has 6 ids on both
 * sources, found across the check's chunks; {@code tags} has a name that differs only in case,
 * equal in its case-insensitive collation (named as the second source holds it); {@code notes},
 * whose key holds its sharding column, has the same ids on both sources without any collision and
 * is not named.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SourceKeysIT {
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final String VSCHEMA =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
          + placed("orders")
          + ", "
          + placed("notes")
          + ", "
          + placed("tags")
          + "}}";

  private final TestCluster cluster;
  private final String ks;
  private final ShardMapTopicConfig topic;
  private final KafkaWorkflowStore store;

  SourceKeysIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ks = cluster.database();
    this.topic = WrittenNothing.shardMapTopic(cluster);
    this.store = WrittenNothing.store(cluster);
    seed(cluster.shards().get(0), customerIn("-40"), 1, 1200, "Red");
    seed(cluster.shards().get(1), customerIn("40-80"), 1195, 1210, "red");
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP DATABASE `" + ks + "`"); // a create that writes makes it again
    }
  }

  @AfterAll
  void close() {
    store.close();
  }

  @Test
  void keysOnBothSourcesOfAMergeAreNamedAndNothingIsWritten() throws Exception {
    WorkflowSpec spec =
        new WorkflowSpec(
            "merge",
            ks,
            VSchema.parse(VSCHEMA),
            List.of(
                WrittenNothing.server("-40", cluster.shards().get(0)),
                WrittenNothing.server("40-80", cluster.shards().get(1))),
            List.of(WrittenNothing.server("-80", cluster.spares().get(0))),
            cluster.bootstrap(),
            cluster.topicPrefix(),
            topic.topic(),
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30));
    String m;
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        WorkflowRunner runner =
            new WorkflowRunner(spec, new WorkflowEngine(store, Clock.systemUTC()), publisher)) {
      m = assertThrows(SwitchRefusedException.class, runner::create).getMessage();
    }
    assertTrue(
        m.contains(
            "table orders: 6 primary keys are on both sources -40 and 40-80, whose rows meet in"
                + " target -80 (as 40-80 holds them: id=1195, id=1196, id=1197, id=1198, id=1199 and 1 more): a target"
                + " holds each key once"),
        m);
    assertTrue(
        m.contains(
            "table tags: 1 primary key is on both sources -40 and 40-80, whose rows meet in"
                + " target -80 (as 40-80 holds them: name=red)"),
        m);
    assertFalse(m.contains("table notes"), "a key that holds the sharding column: " + m);
    assertFalse(WrittenNothing.databaseExists(cluster.spares().get(0), ks), "no target database");
    assertEquals(0, WrittenNothing.fenceRowsAnywhere(cluster, ks), "no fence row");
    assertTrue(store.load("merge").isEmpty(), "no workflow record");
  }

  /** Orders {@code from..to}, as many notes with the same ids, and one tag, on {@code s}. */
  private void seed(ClusterDescriptor.Server s, long customer, long from, long to, String tag)
      throws Exception {
    cluster.execute(
        s,
        "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL) ENGINE=InnoDB",
        "CREATE TABLE notes (customer_id BIGINT NOT NULL, id BIGINT NOT NULL,"
            + " PRIMARY KEY (customer_id, id)) ENGINE=InnoDB",
        "CREATE TABLE tags (name VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"
            + " PRIMARY KEY, customer_id BIGINT NOT NULL) ENGINE=InnoDB",
        "INSERT INTO orders SELECT seq, " + customer + " FROM seq_" + from + "_to_" + to,
        "INSERT INTO notes SELECT " + customer + ", seq FROM seq_" + from + "_to_" + to,
        "INSERT INTO tags VALUES ('"
            + tag
            + "', "
            + customer
            + "), ('"
            + tag
            + s.name()
            + "', "
            + customer
            + ")");
  }

  private static long customerIn(String range) {
    long c = 1;
    while (!KeyRange.parse(range).contains(HASH.keyspaceId(c))) {
      c++;
    }
    return c;
  }

  private static String placed(String table) {
    return "\""
        + table
        + "\": {\"column_vindexes\": [{\"column\": \"customer_id\", \"name\": \"hash\"}]}";
  }
}
