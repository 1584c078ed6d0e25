package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.Sequence;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A shop schema as applications have them, moved by the CLI and the daemon under 8 router writers:
 * customers, their orders (AUTO_INCREMENT ids from a sequence keyspace) and an order log, each
 * order's log rows and its customer's order counter written by triggers, cascading and plain
 * foreign keys, coupons whose ids the application assigns, two views, a function and a procedure,
 * and a view over a table that is not moved.
 *
 * <p>{@code create} first refuses, naming every reason at once: both cascading foreign keys, the
 * four triggers and the AUTO_INCREMENT table without a sequence; nothing is written. With the
 * documented choices (the keys made RESTRICT, {@code --triggers=follow-writes}, {@code
 * --auto-increment=leave}) {@code c0-} is split, writes switched, reversed and switched again while
 * the writers insert, update and delete orders. Afterwards, by plain SQL, the owners hold exactly
 * the rows the acknowledged writes imply: every order's note rewritten once by its insert trigger,
 * its {@code edits} (the update trigger's count) equal to its acknowledged updates, one log row per
 * acknowledged write of it, every customer's counter equal to its live orders, no id twice, and the
 * source (filled by the reverse streams) holds the same rows as the targets. A trigger that fired
 * on an applied, copied or reversed row would add a second {@code +}, a second count or a log row.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShopSchemaWorkflowIT {
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");
  private static final List<String> TABLES = List.of("customers", "orders", "order_log", "coupons");

  /** Where each moved table's sharding column is in {@code SELECT *}. */
  private static final Map<String, Integer> KEY_COLUMN =
      Map.of("customers", 0, "orders", 1, "order_log", 2, "coupons", 1);

  private static final int CUSTOMERS = 160;
  private static final int WRITERS = 8;

  private final TestCluster cluster;
  private final CliSession ops;
  private final String ks;
  private final String seq;
  private final ClusterDescriptor.Server seqServer;
  private final ClusterDescriptor.Server source;

  /** Order id to its state, as the acknowledged writes left it. */
  private final Map<Long, Order> orders = new ConcurrentHashMap<>();

  /** An order: its customer, its acknowledged updates, whether its delete was acknowledged. */
  private record Order(long customer, int updates, boolean deleted) {}

  ShopSchemaWorkflowIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
    this.ks = cluster.database();
    this.seq = ks + "_seq";
    this.seqServer = cluster.shards().get(0);
    this.source = cluster.shards().get(3);
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(s, schema());
    }
    cluster.execute(seqServer, "CREATE DATABASE `" + seq + "`");
    try (Connection c = cluster.connect(seqServer)) {
      c.setCatalog(seq);
      Sequence.createTable(c, "orders_seq", 1, 25); // small blocks: many reservations
    }
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    ops.close();
    cluster.execute(seqServer, "DROP DATABASE IF EXISTS `" + seq + "`");
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(s, "SET GLOBAL read_only = OFF");
    }
  }

  @Test
  void theShopMovesWithEveryTriggerFiredOncePerApplicationWrite() throws Exception {
    initKeyspaces();
    ops.startDaemon("keyspace.stream.enabled=false"); // the stream is KeyspaceStreamIT's

    Run refused = createShop();
    assertEquals(3, refused.exit(), refused.out() + refused.err());
    String why = refused.out() + refused.err();
    for (String named :
        List.of(
            "fk_orders_customer",
            "fk_log_customer",
            "orders_bi",
            "orders_ai",
            "orders_bu",
            "orders_ad",
            "coupons has the AUTO_INCREMENT column id")) {
      assertTrue(why.contains(named), "the refusal names " + named + ": " + why);
    }
    assertTrue(!why.contains("fk_coupon_customer"), "a plain foreign key is no reason: " + why);
    assertNotEquals(0, ops.cli("workflow", "status", "shop").exit(), "no workflow was stored");
    for (ClusterDescriptor.Server t : cluster.spares()) {
      assertEquals(0, count(t, "SELECT COUNT(*) FROM information_schema.TABLES" + inKs()));
    }

    for (ClusterDescriptor.Server s : cluster.shards()) { // the refusal's advice: RESTRICT
      cluster.execute(
          s,
          "ALTER TABLE orders DROP FOREIGN KEY fk_orders_customer",
          "ALTER TABLE orders ADD CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id)"
              + " REFERENCES customers (id)",
          "ALTER TABLE order_log DROP FOREIGN KEY fk_log_customer",
          "ALTER TABLE order_log ADD CONSTRAINT fk_log_customer FOREIGN KEY (customer_id)"
              + " REFERENCES customers (id)");
    }

    AtomicInteger errors = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(ops.topic(), ks);
        KafkaShardMapSource seqMaps = KafkaShardMapSource.start(ops.topic(), seq);
        Router router = Router.builder(maps, ops.endpoints()).sequenceKeyspace(seqMaps).build()) {
      seed(router);
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < WRITERS; t++) {
        int thread = t;
        writers.add(pool.submit(() -> write(router, thread, stop, errors)));
      }
      long serverChosen = serverChosenOrderOnC0();

      Run created = createShop("--triggers=follow-writes", "--auto-increment=leave");
      assertEquals(0, created.exit(), created.out() + created.err());
      assertTrue(
          created.out().contains("WARNING") && created.out().contains("settings_view"),
          "create warns of the view over a table not moved: " + created.out());
      assertCarried();
      JsonNode status = ops.status("shop");
      assertTrue(
          status.path("schema_warning").asText().contains("settings_view"),
          "status keeps the view over a table not moved: " + status);
      ops.awaitCopyDone("shop");
      CliSession.assertClean(ops.diff("shop"));
      assertEquals(0, ops.cli("workflow", "switch-traffic", "shop", "--reads").exit());

      switchWrites();
      assertTriggers(0, 4, "after the write switch: on the targets only");
      assertTrue(
          nextId() > serverChosen,
          "the write switch raised the sequence above " + serverChosen + ": " + nextId());
      Thread.sleep(1500);
      Run reverse = ops.cli("workflow", "reverse-traffic", "shop");
      assertEquals(0, reverse.exit(), reverse.out() + reverse.err());
      assertTriggers(4, 0, "after reverse traffic: on the source only");
      Thread.sleep(1500);
      CliSession.assertClean(ops.diff("shop"));
      switchWrites();
      assertTriggers(0, 4, "after the second switch: on the targets only");
      Thread.sleep(1500);
      stop.set(true);
      for (Future<?> w : writers) {
        w.get();
      }
      assertEquals(0, errors.get(), "every write through the router succeeded");
      assertTrue(orders.size() > 200, "orders acknowledged: " + orders.size());

      ShardMap map = maps.current();
      assertOwnersHoldTheAcknowledgedRows(map);
      assertSourceHoldsWhatTheTargetsHold();
      assertRoutinesWorkOnATarget();
      assertEquals(0, ops.cli("workflow", "complete", "shop").exit(), "complete");
      assertTriggers(0, 4, "after complete: on the targets");
      assertMergeBackOntoTheRetiredNameIsRefused();
      System.err.println(
          "[shop schema] "
              + orders.size()
              + " orders, "
              + orders.values().stream().mapToInt(Order::updates).sum()
              + " updates, "
              + orders.values().stream().filter(Order::deleted).count()
              + " deletes acknowledged; every row as written, on its owner and on the source");
    } finally {
      stop.set(true);
      pool.shutdownNow();
    }
  }

  // ---- the schema and the keyspaces ----------------------------------------------------------

  private static String[] schema() {
    return new String[] {
      "CREATE TABLE customers (id BIGINT PRIMARY KEY, name VARCHAR(50) NOT NULL,"
          + " orders INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
      "CREATE TABLE orders (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
          + " customer_id BIGINT NOT NULL, note VARCHAR(50) NOT NULL,"
          + " amount INT NOT NULL DEFAULT 0, edits INT NOT NULL DEFAULT 0, KEY (customer_id),"
          + " CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id) REFERENCES customers (id)"
          + " ON DELETE CASCADE) ENGINE=InnoDB",
      "CREATE TABLE order_log (order_id BIGINT NOT NULL, seq INT NOT NULL,"
          + " customer_id BIGINT NOT NULL, what VARCHAR(10) NOT NULL,"
          + " PRIMARY KEY (order_id, seq), KEY (customer_id), CONSTRAINT fk_log_customer"
          + " FOREIGN KEY (customer_id) REFERENCES customers (id) ON UPDATE CASCADE)"
          + " ENGINE=InnoDB",
      "CREATE TABLE coupons (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
          + " customer_id BIGINT NOT NULL, code VARCHAR(20) NOT NULL, CONSTRAINT"
          + " fk_coupon_customer FOREIGN KEY (customer_id) REFERENCES customers (id))"
          + " ENGINE=InnoDB",
      "CREATE TABLE settings (k VARCHAR(20) PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB",
      "CREATE TRIGGER orders_bi BEFORE INSERT ON orders FOR EACH ROW"
          + " SET NEW.note = CONCAT(NEW.note, '+'), NEW.edits = 0",
      "CREATE TRIGGER orders_ai AFTER INSERT ON orders FOR EACH ROW BEGIN"
          + " INSERT INTO order_log VALUES (NEW.id, 0, NEW.customer_id, 'insert');"
          + " UPDATE customers SET orders = orders + 1 WHERE id = NEW.customer_id; END",
      "CREATE TRIGGER orders_bu BEFORE UPDATE ON orders FOR EACH ROW BEGIN"
          + " SET NEW.edits = OLD.edits + 1;"
          + " INSERT INTO order_log VALUES (NEW.id, NEW.edits, NEW.customer_id, 'update'); END",
      "CREATE TRIGGER orders_ad AFTER DELETE ON orders FOR EACH ROW BEGIN"
          + " INSERT INTO order_log VALUES (OLD.id, -1, OLD.customer_id, 'delete');"
          + " UPDATE customers SET orders = orders - 1 WHERE id = OLD.customer_id; END",
      "CREATE VIEW customer_orders AS SELECT c.id, c.name, COUNT(o.id) AS n FROM customers c"
          + " LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name",
      "CREATE VIEW coupon_codes AS SELECT customer_id, code FROM coupons",
      "CREATE VIEW settings_view AS SELECT k, v FROM settings",
      "CREATE FUNCTION orders_of(cid BIGINT) RETURNS INT READS SQL DATA"
          + " RETURN (SELECT COUNT(*) FROM orders WHERE customer_id = cid)",
      "CREATE PROCEDURE customer_report(IN cid BIGINT) READS SQL DATA"
          + " SELECT id, name, n FROM customer_orders WHERE id = cid"
    };
  }

  private void initKeyspaces() throws Exception {
    ops.initKeyspace(
        seq,
        "{\"tables\": {\"orders_seq\": {\"type\": \"sequence\"}}}",
        "--shards=-",
        "--servers=" + seqServer.name());
    ops.initKeyspace(
        ks,
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
            + "\"customers\": {\"column_vindexes\": [{\"column\": \"id\", \"name\":"
            + " \"hash\"}]},"
            + " \"orders\": {\"column_vindexes\": [{\"column\": \"customer_id\", \"name\":"
            + " \"hash\"}], \"auto_increment\": {\"column\": \"id\", \"sequence\": \""
            + seq
            + ".orders_seq\"}},"
            + " \"order_log\": {\"column_vindexes\": [{\"column\": \"customer_id\","
            + " \"name\": \"hash\"}]},"
            + " \"coupons\": {\"column_vindexes\": [{\"column\": \"customer_id\","
            + " \"name\": \"hash\"}]}}}",
        "--shards=" + String.join(",", SHARDS));
  }

  private Run createShop(String... choices) throws Exception {
    List<String> args =
        new ArrayList<>(
            List.of(
                "workflow", "create", "--keyspace", ks, "--source", "c0-", "--targets=c0-e0,e0-"));
    args.addAll(List.of(choices));
    args.add("shop");
    return ops.cli(args.toArray(String[]::new));
  }

  private void switchWrites() throws Exception {
    Run writes = ops.cli("workflow", "switch-traffic", "shop", "--writes");
    assertEquals(0, writes.exit(), writes.out() + writes.err());
  }

  // ---- the application ---------------------------------------------------------------------

  /** Customers (ids the application picks), a coupon for every fourth, one order each. */
  private void seed(Router router) {
    for (long c = 1; c <= CUSTOMERS; c++) {
      router.insert("customers", Map.of("id", c, "name", "customer " + c));
      if (c % 4 == 0) {
        router.insert("coupons", Map.of("id", c, "customer_id", c, "code", "C" + c));
      }
      insertOrder(router, c);
    }
  }

  /**
   * Writer {@code thread}: on its own customers ({@code id % WRITERS == thread}) inserts orders,
   * increments their amount and deletes some, until {@code stop}. Only acknowledged writes are
   * counted; a write that fails is counted in {@code errors}.
   */
  private void write(Router router, int thread, AtomicBoolean stop, AtomicInteger errors) {
    Random random = new Random(thread);
    List<Long> live = new ArrayList<>();
    while (!stop.get()) {
      long customer = thread + WRITERS * (1 + random.nextInt(CUSTOMERS / WRITERS - 1));
      int action = random.nextInt(10);
      try {
        if (live.isEmpty() || action < 4) {
          live.add(insertOrder(router, customer));
        } else if (action < 9) {
          long id = live.get(random.nextInt(live.size()));
          Order o = orders.get(id);
          int n =
              router.inTransaction(
                  tx ->
                      tx.update(
                          "orders",
                          o.customer(),
                          "UPDATE orders SET amount = amount + 1 WHERE id = ?",
                          id));
          assertEquals(1, n, "order " + id + " updated");
          orders.put(id, new Order(o.customer(), o.updates() + 1, false));
        } else {
          long id = live.remove(random.nextInt(live.size()));
          Order o = orders.get(id);
          assertEquals(
              1, router.delete("orders", Map.of("customer_id", o.customer(), "id", id)), "" + id);
          orders.put(id, new Order(o.customer(), o.updates(), true));
        }
        Thread.sleep(5);
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | AssertionError e) {
        errors.incrementAndGet();
        System.err.println("[shop schema] writer " + thread + ": " + e);
      }
    }
  }

  private long insertOrder(Router router, long customer) {
    Object id = router.insert("orders", Map.of("customer_id", customer, "note", "o")).get("id");
    long orderId = ((Number) id).longValue();
    Order before = orders.putIfAbsent(orderId, new Order(customer, 0, false));
    assertEquals(null, before, "the sequence gave id " + orderId + " twice");
    return orderId;
  }

  /**
   * An order inserted by plain SQL on c0-'s server, whose id the server picks, far above the
   * sequence's; returns that id.
   */
  private long serverChosenOrderOnC0() throws Exception {
    long customer = 1;
    while (!KeyRange.parse("c0-").contains(HASH.keyspaceId(customer))) {
      customer++;
    }
    try (Connection c = cluster.connect(source);
        Statement st = c.createStatement()) {
      long id = 3_000_000;
      st.execute("ALTER TABLE orders AUTO_INCREMENT = " + id);
      st.execute("INSERT INTO orders (customer_id, note) VALUES (" + customer + ", 'o')");
      try (ResultSet rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
        rs.next();
        assertEquals(id, rs.getLong(1));
      }
      orders.put(id, new Order(customer, 0, false));
      return id;
    }
  }

  // ---- checks ----------------------------------------------------------------------------

  /** The targets got both views over moved tables, the function and the procedure; no trigger. */
  private void assertCarried() throws Exception {
    for (ClusterDescriptor.Server t : cluster.spares()) {
      assertEquals(
          List.of("coupon_codes", "customer_orders"),
          strings(t, "SELECT TABLE_NAME FROM information_schema.VIEWS" + inKs() + " ORDER BY 1"),
          t.name() + ": views over moved tables only");
      assertEquals(
          List.of("customer_report PROCEDURE", "orders_of FUNCTION"),
          strings(
              t,
              "SELECT CONCAT(ROUTINE_NAME, ' ', ROUTINE_TYPE) FROM information_schema.ROUTINES"
                  + " WHERE ROUTINE_SCHEMA = '"
                  + ks
                  + "' ORDER BY 1"),
          t.name() + ": routines");
    }
    assertTriggers(4, 0, "while the targets are filled: on the source only");
  }

  private void assertTriggers(long onSource, long onEachTarget, String when) throws Exception {
    String sql = "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '" + ks;
    assertEquals(onSource, count(source, sql + "'"), when + ": source");
    for (ClusterDescriptor.Server t : cluster.spares()) {
      assertEquals(onEachTarget, count(t, sql + "'"), when + ": " + t.name());
    }
  }

  /**
   * On the write-serving shards of {@code map}: every row in the shard's range and none outside it;
   * each acknowledged order once, its note rewritten once, edits and amount its updates, its log
   * rows one per write, every customer's counter its live orders.
   */
  private void assertOwnersHoldTheAcknowledgedRows(ShardMap map) throws Exception {
    Map<Long, String> expectedOrders = new TreeMap<>();
    Map<Long, String> expectedLog = new TreeMap<>();
    Map<Long, Integer> expectedCounters = new TreeMap<>();
    for (long c = 1; c <= CUSTOMERS; c++) {
      expectedCounters.put(c, 0);
    }
    orders.forEach(
        (id, o) -> {
          if (!o.deleted()) {
            expectedOrders.put(
                id, o.customer() + " o+ edits " + o.updates() + " amount " + o.updates());
            expectedCounters.merge(o.customer(), 1, Integer::sum);
          }
          expectedLog.put(id, "log rows " + (1 + o.updates() + (o.deleted() ? 1 : 0)));
        });
    Map<Long, String> actualOrders = new TreeMap<>();
    Map<Long, String> actualLog = new TreeMap<>();
    Map<Long, Integer> actualCounters = new TreeMap<>();
    List<String> misplaced = new ArrayList<>();
    for (Shard shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      ClusterDescriptor.Server s = ops.server(shard.endpoint());
      for (List<Object> r : rows(s, "SELECT id, customer_id, note, edits, amount FROM orders")) {
        long id = ((Number) r.get(0)).longValue();
        placed(shard, r.get(1), "order " + id, misplaced);
        String was =
            actualOrders.put(
                id, r.get(1) + " " + r.get(2) + " edits " + r.get(3) + " amount " + r.get(4));
        assertEquals(null, was, "order " + id + " is on two owners");
      }
      for (List<Object> r :
          rows(s, "SELECT order_id, COUNT(*), MIN(customer_id) FROM order_log GROUP BY order_id")) {
        long id = ((Number) r.get(0)).longValue();
        placed(shard, r.get(2), "log of order " + id, misplaced);
        actualLog.merge(id, "log rows " + r.get(1), (a, b) -> a + " and " + b);
      }
      for (List<Object> r : rows(s, "SELECT id, orders FROM customers")) {
        placed(shard, r.get(0), "customer " + r.get(0), misplaced);
        actualCounters.merge(
            ((Number) r.get(0)).longValue(), ((Number) r.get(1)).intValue(), (a, b) -> -1);
      }
      for (List<Object> r : rows(s, "SELECT id, customer_id FROM coupons")) {
        placed(shard, r.get(1), "coupon " + r.get(0), misplaced);
      }
    }
    assertEquals(List.of(), misplaced, "rows outside their owner's range");
    assertEquals(expectedOrders, actualOrders, "orders on their owners");
    assertEquals(expectedLog, actualLog, "one log row per acknowledged write of each order");
    assertEquals(expectedCounters, actualCounters, "each customer's counter: its live orders");
  }

  private static void placed(Shard shard, Object key, String what, List<String> misplaced) {
    if (!shard.range().contains(HASH.keyspaceId(((Number) key).longValue()))) {
      misplaced.add(what + " on " + shard.range());
    }
  }

  /** The source, filled by the reverse streams, holds what both targets hold (waits 60 s). */
  private void assertSourceHoldsWhatTheTargetsHold() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      Map<String, List<String>> onSource = new TreeMap<>();
      Map<String, List<String>> onTargets = new TreeMap<>();
      for (String table : TABLES) {
        String sql = "SELECT * FROM " + table;
        List<String> s = new ArrayList<>();
        for (List<Object> r : rows(source, sql)) {
          long key = ((Number) r.get(KEY_COLUMN.get(table))).longValue();
          if (KeyRange.parse("c0-").contains(HASH.keyspaceId(key))) {
            s.add(r.toString());
          }
        }
        List<String> t = new ArrayList<>();
        for (ClusterDescriptor.Server target : cluster.spares()) {
          rows(target, sql).forEach(r -> t.add(r.toString()));
        }
        s.sort(null);
        t.sort(null);
        onSource.put(table, s);
        onTargets.put(table, t);
      }
      if (onSource.equals(onTargets)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        assertEquals(onTargets, onSource, "the source holds what the targets hold");
      }
      Thread.sleep(500);
    }
  }

  /** The carried view, function and procedure answer on a target as on the owner's rows. */
  private void assertRoutinesWorkOnATarget() throws Exception {
    ClusterDescriptor.Server target = cluster.spares().get(1);
    List<List<Object>> customers =
        rows(target, "SELECT id, orders FROM customers ORDER BY id LIMIT 3");
    assertTrue(!customers.isEmpty(), "the target holds customers");
    for (List<Object> c : customers) {
      Object id = c.get(0);
      assertEquals(
          List.of(List.of(c.get(1).toString(), c.get(1).toString(), c.get(1).toString())),
          rows(
                  target,
                  "SELECT n, orders_of("
                      + id
                      + "), (SELECT orders FROM customers WHERE id = "
                      + id
                      + ") FROM customer_orders WHERE id = "
                      + id)
              .stream()
              .map(r -> r.stream().map(Object::toString).toList())
              .toList(),
          "customer " + id + ": view, function and counter agree");
      assertEquals(1, rows(target, "CALL customer_report(" + id + ")").size(), "procedure");
    }
  }

  /**
   * Merging the targets back into {@code c0-} on another server would give that server the retired
   * shard's change topic and stored capture position: refused, naming both servers; nothing
   * written.
   */
  private void assertMergeBackOntoTheRetiredNameIsRefused() throws Exception {
    String other = cluster.shards().get(0).name();
    Run back =
        ops.cli(
            "workflow",
            "create",
            "--keyspace",
            ks,
            "--source=c0-e0,e0-",
            "--targets=c0-",
            "--target-servers=" + other,
            "back");
    assertEquals(3, back.exit(), back.out() + back.err());
    assertTrue(
        back.err()
            .contains(
                "target c0- has the name of an earlier shard of "
                    + ks
                    + ", captured on "
                    + source.name()
                    + " (workflow shop)"),
        back.err());
    assertNotEquals(0, ops.cli("workflow", "status", "back").exit(), "no workflow was stored");
  }

  // ---- plain SQL ---------------------------------------------------------------------------

  private long nextId() throws Exception {
    try (Connection c = cluster.connect(seqServer);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT next_id FROM `" + seq + "`.orders_seq WHERE id = 0")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private String inKs() {
    return " WHERE TABLE_SCHEMA = '" + ks + "'";
  }

  private long count(ClusterDescriptor.Server s, String sql) throws Exception {
    return ((Number) rows(s, sql).get(0).get(0)).longValue();
  }

  private List<String> strings(ClusterDescriptor.Server s, String sql) throws Exception {
    return rows(s, sql).stream().map(r -> String.valueOf(r.get(0))).toList();
  }

  /** The rows {@code sql} returns on {@code s} in the keyspace's database. */
  private List<List<Object>> rows(ClusterDescriptor.Server s, String sql) throws Exception {
    List<List<Object>> out = new ArrayList<>();
    try (Connection c = cluster.connect(s)) {
      c.setCatalog(ks);
      try (Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(sql)) {
        ResultSetMetaData md = rs.getMetaData();
        while (rs.next()) {
          List<Object> row = new ArrayList<>();
          for (int i = 1; i <= md.getColumnCount(); i++) {
            row.add(rs.getObject(i));
          }
          out.add(row);
        }
      }
    }
    return out;
  }
}
