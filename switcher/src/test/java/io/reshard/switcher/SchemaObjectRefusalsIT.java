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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Create refuses moved tables whose foreign keys cascade and tables with triggers, naming every
 * such key and every trigger at once (it used to name only the first cascading key of each table,
 * and to accept triggers, which the reverse streams then fired on the source), before anything is
 * written. The split is {@code c0-} (the fourth shard server) into the two spares.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SchemaObjectRefusalsIT {
  private final TestCluster cluster;
  private final ShardMapTopicConfig topic;
  private final KafkaWorkflowStore store;
  private final WorkflowEngine engine;

  SchemaObjectRefusalsIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.topic = WrittenNothing.shardMapTopic(cluster);
    this.store = WrittenNothing.store(cluster);
    this.engine = new WorkflowEngine(store, Clock.systemUTC());
    cluster.execute(
        cluster.shards().get(3),
        "CREATE TABLE parent (id BIGINT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB",
        "CREATE TABLE child (id BIGINT PRIMARY KEY, a BIGINT, b BIGINT,"
            + " CONSTRAINT fk_a FOREIGN KEY (a) REFERENCES parent (id) ON DELETE CASCADE,"
            + " CONSTRAINT fk_b FOREIGN KEY (b) REFERENCES parent (id) ON UPDATE SET NULL)"
            + " ENGINE=InnoDB",
        "CREATE TABLE child2 (id BIGINT PRIMARY KEY, c BIGINT, d BIGINT,"
            + " CONSTRAINT fk_c FOREIGN KEY (c) REFERENCES parent (id),"
            + " CONSTRAINT fk_d FOREIGN KEY (d) REFERENCES parent (id) ON DELETE CASCADE"
            + " ON UPDATE CASCADE) ENGINE=InnoDB",
        "CREATE TABLE audited (id BIGINT PRIMARY KEY, v INT, changed DATETIME) ENGINE=InnoDB",
        "CREATE TRIGGER stamp_insert BEFORE INSERT ON audited FOR EACH ROW"
            + " SET NEW.changed = NOW()",
        "CREATE TRIGGER stamp_update BEFORE UPDATE ON audited FOR EACH ROW"
            + " SET NEW.changed = NOW()");
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP DATABASE `" + cluster.database() + "`");
    }
  }

  @AfterAll
  void close() {
    store.close();
  }

  @Test
  void everyCascadingForeignKeyAndEveryTriggerIsNamedAtOnceAndNothingIsWritten() throws Exception {
    String ks = cluster.database();
    String vschema =
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
            + String.join(
                ", ",
                List.of("parent", "child", "child2", "audited").stream()
                    .map(
                        t ->
                            "\""
                                + t
                                + "\": {\"column_vindexes\": [{\"column\": \"id\", \"name\":"
                                + " \"hash\"}]}")
                    .toList())
            + "}}";
    WorkflowSpec spec =
        new WorkflowSpec(
            "objects",
            ks,
            VSchema.parse(vschema),
            List.of(WrittenNothing.server("c0-", cluster.shards().get(3))),
            List.of(
                WrittenNothing.server("c0-e0", cluster.spares().get(0)),
                WrittenNothing.server("e0-", cluster.spares().get(1))),
            cluster.bootstrap(),
            cluster.topicPrefix(),
            topic.topic(),
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30));
    String m;
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        WorkflowRunner runner = new WorkflowRunner(spec, engine, publisher)) {
      m = assertThrows(SwitchRefusedException.class, runner::create).getMessage();
    }
    assertTrue(m.startsWith("workflow objects not created, for 4 reasons"), m);
    for (String reason :
        List.of(
            "child has foreign key fk_a (to parent) with ON DELETE CASCADE ON UPDATE RESTRICT",
            "child has foreign key fk_b (to parent) with ON DELETE RESTRICT ON UPDATE SET NULL",
            "child2 has foreign key fk_d (to parent) with ON DELETE CASCADE ON UPDATE CASCADE",
            "ALTER TABLE child DROP FOREIGN KEY fk_a",
            "audited has 2 triggers: stamp_insert (BEFORE INSERT), stamp_update (BEFORE UPDATE)",
            "DROP TRIGGER")) {
      assertTrue(m.contains(reason), reason + " in " + m);
    }
    assertFalse(m.contains("fk_c"), "a foreign key that does not cascade is not refused: " + m);
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      assertFalse(WrittenNothing.databaseExists(spare, ks), "no database on " + spare.name());
    }
    assertEquals(0, WrittenNothing.fenceRowsAnywhere(cluster, ks), "no fence row");
    assertTrue(store.load("objects").isEmpty(), "no workflow record");
  }
}
