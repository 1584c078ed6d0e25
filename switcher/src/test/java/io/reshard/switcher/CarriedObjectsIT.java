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
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Create carries the views, procedures and functions that use only moved tables to the targets,
 * with their definer and SQL security, and lists the others in a warning the record keeps; it
 * refuses a carried object whose definer is no user of the targets and, with {@code
 * --triggers=follow-writes}, a trigger that uses a table not moved, before anything is written.
 * Moved: {@code orders} and {@code items}; not moved: {@code customers} (not in the vschema). The
 * split is {@code c0-} (the fourth shard server) into the two spares.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CarriedObjectsIT {
  private static final String VSCHEMA =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
          + "\"orders\": {\"column_vindexes\": [{\"column\": \"customer_id\", \"name\": \"hash\"}]},"
          + " \"items\": {\"column_vindexes\": [{\"column\": \"customer_id\", \"name\":"
          + " \"hash\"}]}}}";

  private final TestCluster cluster;
  private final ShardMapTopicConfig topic;
  private final KafkaWorkflowStore store;
  private final WorkflowEngine engine;

  CarriedObjectsIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.topic = WrittenNothing.shardMapTopic(cluster);
    this.store = WrittenNothing.store(cluster);
    this.engine = new WorkflowEngine(store, Clock.systemUTC());
    cluster.execute(
        cluster.shards().get(3),
        "CREATE TABLE orders (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, total INT)"
            + " ENGINE=InnoDB",
        "CREATE TABLE items (id BIGINT PRIMARY KEY, customer_id BIGINT NOT NULL, order_id BIGINT)"
            + " ENGINE=InnoDB",
        "CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB",
        "CREATE TABLE customers_log (id BIGINT PRIMARY KEY) ENGINE=InnoDB",
        "CREATE SQL SECURITY INVOKER VIEW big_orders AS SELECT id, total FROM orders"
            + " WHERE total > 100",
        "CREATE VIEW order_lines AS SELECT o.id, COUNT(i.id) AS n FROM orders o"
            + " JOIN items i ON i.order_id = o.id GROUP BY o.id",
        "CREATE VIEW biggest AS SELECT MAX(total) AS m FROM big_orders",
        "CREATE VIEW named_orders AS SELECT o.id, c.name FROM orders o"
            + " JOIN customers c ON c.id = o.customer_id",
        "CREATE PROCEDURE order_count(OUT n BIGINT) SELECT COUNT(*) INTO n FROM orders",
        "CREATE FUNCTION twice(x INT) RETURNS INT DETERMINISTIC RETURN x * 2",
        "CREATE PROCEDURE rename_customer(IN i BIGINT, IN n VARCHAR(20))"
            + " UPDATE customers SET name = n WHERE id = i",
        // refused: a definer that exists on no target, and a trigger writing a table not moved
        "CREATE DEFINER = `ghost`@`%` VIEW ghostly AS SELECT id FROM orders",
        "CREATE TRIGGER log_customer AFTER INSERT ON orders FOR EACH ROW"
            + " INSERT INTO customers_log VALUES (NEW.customer_id)");
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP DATABASE `" + cluster.database() + "`");
    }
  }

  @AfterAll
  void close() {
    store.close();
  }

  @Test
  void viewsAndRoutinesOfMovedTablesAreCreatedOnTheTargetsAndTheOthersListed() throws Exception {
    String ks = cluster.database();
    String refused;
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        WorkflowRunner runner = new WorkflowRunner(spec("objects-refused"), engine, publisher)) {
      refused = assertThrows(SwitchRefusedException.class, runner::create).getMessage();
    }
    assertTrue(refused.startsWith("workflow objects-refused not created, for 2 reasons"), refused);
    assertTrue(
        refused.contains("view ghostly has definer ghost@%, a user that does not exist on the"),
        refused);
    assertTrue(refused.contains("(on target c0-e0 on "), refused);
    assertTrue(
        refused.contains(
            "trigger log_customer (on orders) uses table customers_log, which the workflow does"
                + " not move"),
        refused);
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      assertFalse(WrittenNothing.databaseExists(spare, ks), "no database on " + spare.name());
    }
    assertTrue(store.load("objects-refused").isEmpty(), "no workflow record");

    cluster.execute(cluster.shards().get(3), "DROP VIEW ghostly", "DROP TRIGGER log_customer");
    Workflow w;
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        WorkflowRunner runner = new WorkflowRunner(spec("objects"), engine, publisher)) {
      w = runner.create();
    }
    SchemaObjects o = w.schemaObjects();
    assertEquals(
        List.of(
            "view big_orders",
            "view order_lines",
            "view biggest", // after the view it uses
            "function twice",
            "procedure order_count"),
        o.carried());
    assertEquals(
        List.of(
            "view named_orders uses table customers",
            "procedure rename_customer uses table customers"),
        o.notCarried().stream().filter(n -> !n.startsWith("table ")).toList());
    assertTrue(
        o.notCarried()
            .contains("table customers is in no vschema table: it stays on the sources only"),
        "a table the vschema does not name is in the warning: " + o.notCarried());
    assertTrue(o.warning().contains("view named_orders uses table customers"), o.warning());
    SchemaObjects stored = store.load("objects").orElseThrow().schemaObjects();
    assertEquals(o.notCarried(), stored.notCarried(), "the record keeps the warning");
    assertEquals(TriggerMode.FOLLOW_WRITES, stored.triggers());
    assertTrue(stored.triggerDefinitions().isEmpty(), "no trigger left on the moved tables");

    String views =
        "SELECT CONCAT_WS(' ', TABLE_NAME, DEFINER, SECURITY_TYPE) FROM information_schema.VIEWS"
            + " WHERE TABLE_SCHEMA = '"
            + ks
            + "' AND TABLE_NAME <> 'named_orders' ORDER BY BINARY TABLE_NAME";
    String routines =
        "SELECT CONCAT_WS(' ', ROUTINE_NAME, ROUTINE_TYPE, DEFINER, SECURITY_TYPE)"
            + " FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = '"
            + ks
            + "' AND ROUTINE_NAME <> 'rename_customer' ORDER BY BINARY ROUTINE_NAME";
    List<String> sourceViews;
    List<String> sourceRoutines;
    try (Connection c = cluster.connect(cluster.shards().get(3));
        Statement st = c.createStatement()) {
      sourceViews = rows(st, views);
      sourceRoutines = rows(st, routines);
    }
    assertEquals(3, sourceViews.size(), sourceViews.toString());
    assertTrue(sourceViews.get(0).matches("big_orders \\S+ INVOKER"), sourceViews.toString());
    assertEquals(2, sourceRoutines.size(), sourceRoutines.toString());
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      try (Connection c = cluster.connect(spare);
          Statement st = c.createStatement()) {
        // the same views and routines, each with the source's definer and SQL security
        assertEquals(sourceViews, rows(st, views), spare.name());
        assertEquals(sourceRoutines, rows(st, routines), spare.name());
        assertEquals(
            List.of(),
            rows(
                st,
                "SELECT TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_NAME = 'named_orders'"
                    + " UNION SELECT ROUTINE_NAME FROM information_schema.ROUTINES"
                    + " WHERE ROUTINE_NAME = 'rename_customer'"),
            "what uses customers is not on " + spare.name());
        st.execute("USE `" + ks + "`");
        assertEquals(List.of("14"), rows(st, "SELECT twice(7)"), "the function works");
        assertEquals(List.of(), rows(st, "SELECT * FROM biggest WHERE m IS NOT NULL"));
      }
    }
  }

  private WorkflowSpec spec(String name) {
    return new WorkflowSpec(
        name,
        cluster.database(),
        VSchema.parse(VSCHEMA),
        List.of(WrittenNothing.server("c0-", cluster.shards().get(3))),
        List.of(
            WrittenNothing.server("c0-e0", cluster.spares().get(0)),
            WrittenNothing.server("e0-", cluster.spares().get(1))),
        cluster.bootstrap(),
        cluster.topicPrefix(),
        topic.topic(),
        Duration.ofSeconds(5),
        Duration.ofSeconds(2),
        Duration.ofSeconds(30),
        io.reshard.switcher.AutoIncrementMode.SEQUENCE,
        java.util.Map.of(),
        TriggerMode.FOLLOW_WRITES);
  }

  private static List<String> rows(Statement st, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
