package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.state.StreamsTable;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * How an applier stops, and that each stop has a way on: one stop per statement (a partition drop
 * publishes a truncate and a schema record under one GTID), one stop on a record it cannot apply
 * with its thread kept (so that no one starts it again and again), and a resume that passes over
 * exactly the stopped record, also after the applier was restarted in between. Capture of shard
 * {@code 80-c0} into its topic, one applier into a spare; checked with plain SQL.
 */
@ExtendWith(LocalClusterExtension.class)
// every applier reads the topic from its start: the unreadable record goes in last
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApplyStopsIT {
  private static final String SHARD = "80-c0";
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"parts": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "plain": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}
      """;
  private static final String PARTS =
      "CREATE TABLE parts (id BIGINT PRIMARY KEY, v INT) PARTITION BY RANGE (id) (PARTITION p0"
          + " VALUES LESS THAN (1000000), PARTITION p1 VALUES LESS THAN (2000000), PARTITION p2"
          + " VALUES LESS THAN MAXVALUE)";

  private final TestCluster cluster;
  private final ClusterDescriptor.Server source;
  private final ClusterDescriptor.Server target;
  private final String topic;
  private CaptureEngine capture;

  ApplyStopsIT(TestCluster cluster) {
    this.cluster = cluster;
    this.source = cluster.shards().get(2);
    this.target = cluster.spares().get(0);
    this.topic = ChangeRecords.changeTopic(cluster.topicPrefix(), cluster.database(), SHARD);
  }

  @BeforeAll
  void startCapture() throws Exception {
    for (ClusterDescriptor.Server s : List.of(source, target)) {
      exec(s, PARTS, "CREATE TABLE plain (id BIGINT PRIMARY KEY, v INT)");
    }
    Map<String, String> m =
        CaptureConfig.forServer(
            source.host(),
            source.port(),
            source.user(),
            "",
            7131,
            cluster.database(),
            SHARD,
            cluster.bootstrap(),
            cluster.topicPrefix());
    m.put("heartbeat.interval.ms", "500");
    m.put("batch.max.wait.ms", "20");
    capture = new CaptureEngine(CaptureConfig.from(m));
    capture.start();
    GtidPosition now = position(source);
    waitFor(
        () -> capture.committedPosition().map(p -> p.gtids().covers(now)).orElse(false),
        Duration.ofSeconds(60));
  }

  @AfterAll
  void stopCapture() throws Exception {
    capture.close();
  }

  @Test
  @Order(1)
  void aPartitionDropStopsTheStreamOnceAndResumeGoesOnAfterARestart() throws Exception {
    GtidPosition p0 = position(source);
    long[] low = idsIn(1, 3);
    long[] mid = idsIn(1_000_000, 3);
    try (ApplyEngine a = applier("drop", p0)) {
      exec(source, "INSERT INTO parts VALUES " + values(low, 1) + ", " + values(mid, 2));
      exec(source, "ALTER TABLE parts DROP PARTITION p1");
      waitFor(() -> a.state() == StreamsTable.State.ERROR, Duration.ofSeconds(60));
      String error = a.lastError().orElseThrow();
      assertTrue(error.contains("ALTER TABLE parts DROP PARTITION p1"), error);
      assertTrue(error.contains("resume"), error);
      assertEquals(6, count(target, "SELECT COUNT(*) FROM parts"), "what came before the drop");
    }
    // the operator applies the statement to the target; the applier is restarted in between
    exec(target, "ALTER TABLE parts DROP PARTITION p1");
    long[] later = idsIn(2_000_000, 3);
    exec(source, "INSERT INTO parts VALUES " + values(later, 3));
    try (ApplyEngine a = applier("drop", p0)) {
      waitFor(() -> a.state() == StreamsTable.State.ERROR, Duration.ofSeconds(60));
      a.resumeAfterError();
      GtidPosition g = position(source);
      // the schema record of the same statement follows the truncate: it must not stop it again
      assertTrue(a.awaitApplied(topic, g, Duration.ofSeconds(60)), "applied: " + a.lastError());
      assertEquals(StreamsTable.State.RUNNING, a.state(), "state: " + a.lastError());
    }
    assertEquals(
        rows(source, "SELECT id, v FROM parts ORDER BY id"),
        rows(target, "SELECT id, v FROM parts ORDER BY id"));
    assertEquals(6, count(target, "SELECT COUNT(*) FROM parts"));
  }

  @Test
  @Order(2)
  void aRecordThatCannotBeReadStopsTheStreamOnceKeepsTheApplierAndResumePassesOverIt()
      throws Exception {
    GtidPosition p0 = position(source);
    long[] before = idsIn(3_000_000, 2);
    long[] after = idsIn(4_000_000, 2);
    try (ApplyEngine a = applier("unreadable", p0)) {
      exec(source, "INSERT INTO plain VALUES " + values(before, 1));
      assertTrue(a.awaitApplied(topic, position(source), Duration.ofSeconds(60)));
      long offset = publishUnreadable();
      exec(source, "INSERT INTO plain VALUES " + values(after, 2));
      waitFor(() -> a.state() == StreamsTable.State.ERROR, Duration.ofSeconds(60));
      String error = a.lastError().orElseThrow();
      assertTrue(error.contains("offset " + offset), error);
      assertTrue(error.contains("data error"), error);
      assertTrue(error.contains("resume"), error);
      // a data error keeps its applier: nothing would start one again and again on the same record
      Thread.sleep(2000);
      assertTrue(a.isRunning(), "the applier's thread still runs, stopped");
      assertEquals(StreamsTable.State.ERROR, a.state());
      assertEquals(2, count(target, "SELECT COUNT(*) FROM plain"), "nothing after the record");
      a.resumeAfterError();
      GtidPosition g = position(source);
      assertTrue(a.awaitApplied(topic, g, Duration.ofSeconds(60)), "applied: " + a.lastError());
    }
    assertEquals(
        rows(source, "SELECT id, v FROM plain ORDER BY id"),
        rows(target, "SELECT id, v FROM plain ORDER BY id"));
  }

  /** Writes a record no capture wrote (no kind header, not JSON) into the topic; its offset. */
  private long publishUnreadable() throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
      return producer
          .send(
              new ProducerRecord<>(topic, 0, null, "not a change".getBytes(StandardCharsets.UTF_8)))
          .get()
          .offset();
    }
  }

  private ApplyEngine applier(String workflow, GtidPosition p0) {
    ApplyEngine e =
        new ApplyEngine(
            new ApplyConfig(
                workflow,
                SHARD,
                cluster.jdbcUrl(target),
                target.user(),
                "",
                cluster.database(),
                VSchema.parse(VSCHEMA),
                cluster.bootstrap(),
                Map.of(topic, p0),
                1000,
                Duration.ofMillis(100)));
    e.start();
    return e;
  }

  /** {@code n} ids from {@code from} on whose keyspace id lies in this test's shard. */
  private static long[] idsIn(long from, int n) {
    KeyRange range = KeyRange.parse(SHARD);
    Vindex hash = Vindex.of(VindexType.HASH);
    long[] ids = new long[n];
    long k = from;
    for (int i = 0; i < n; k++) {
      if (range.contains(hash.keyspaceId(k))) {
        ids[i++] = k;
      }
    }
    return ids;
  }

  private static String values(long[] ids, int v) {
    List<String> out = new ArrayList<>();
    for (long id : ids) {
      out.add("(" + id + ", " + v + ")");
    }
    return String.join(", ", out);
  }

  private GtidPosition position(ClusterDescriptor.Server s) throws SQLException {
    return GtidPosition.parse(rows(s, "SELECT @@gtid_binlog_pos").get(0));
  }

  private void exec(ClusterDescriptor.Server s, String... sql) throws SQLException {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      st.execute("USE " + cluster.database());
      for (String q : sql) {
        st.execute(q);
      }
    }
  }

  private List<String> rows(ClusterDescriptor.Server s, String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      st.execute("USE " + cluster.database());
      try (ResultSet rs = st.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          StringBuilder b = new StringBuilder();
          for (int i = 1; i <= n; i++) {
            b.append(i > 1 ? "|" : "").append(rs.getString(i));
          }
          out.add(b.toString());
        }
      }
    }
    return out;
  }

  private long count(ClusterDescriptor.Server s, String sql) throws SQLException {
    return Long.parseLong(rows(s, sql).get(0));
  }

  private static void waitFor(java.util.function.BooleanSupplier condition, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertFalse(System.nanoTime() > deadline, "condition not met within " + timeout);
      Thread.sleep(50);
    }
  }
}
