package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.core.position.GtidPosition;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import io.reshard.testkit.UseFlavor;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Capture from a real MySQL 8.0.31 server (GTIDs on, ROW, FULL, binlog_row_metadata = FULL): a
 * table of common column types, inserted, updated and deleted, arrives in the change topic with
 * MySQL GTIDs ({@code uuid:n}) and the values the server holds, and the committed position covers
 * the server's {@code @@gtid_executed}.
 */
@ExtendWith(LocalClusterExtension.class)
@UseFlavor(Flavor.MYSQL)
class MySqlCaptureIT {

  @Test
  void rowsOfCommonTypesArriveWithMySqlGtids(TestCluster cluster) throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(0);
    cluster.execute(
        shard,
        """
        CREATE TABLE t (id BIGINT PRIMARY KEY, u INT UNSIGNED, v VARCHAR(20), c CHAR(3),
          d DECIMAL(10,2), dt DATETIME(6), ts TIMESTAMP(3) NULL, e ENUM('a','b'), j JSON,
          b VARBINARY(4), n INT NULL) ENGINE=InnoDB""");
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, shard, "-"));
    try (CaptureEngine engine = new CaptureEngine(config)) {
      engine.start();
      try (Connection c = cluster.connect(shard);
          Statement st = c.createStatement()) {
        st.execute("SET SESSION time_zone = '+00:00'");
        st.execute(
            "INSERT INTO t VALUES (1, 4294967295, 'café', 'ab', -12.50,"
                + " '2024-02-29 12:34:56.123456', '2038-01-19 03:14:07.999', 'b',"
                + " '{\"k\": [1, \"é\"]}', x'00FF', NULL)");
        st.execute("INSERT INTO t (id, v) VALUES (2, 'two')");
        st.execute("UPDATE t SET v = 'deux', n = 7 WHERE id = 2");
        st.execute("DELETE FROM t WHERE id = 1");
      }
      GtidPosition executed = CaptureSupport.binlogPosition(cluster, shard);
      assertEquals(GtidPosition.Flavor.MYSQL, executed.flavor().orElseThrow());
      CaptureSupport.awaitCommitted(engine, executed, Duration.ofSeconds(60));
      List<ChangeRecord> data = changes(cluster, config, "t", "d", 1);
      assertEquals(List.of("c", "c", "u", "d"), data.stream().map(ChangeRecord::op).toList());
      assertTrue(
          data.stream().allMatch(r -> executed.contains(r.gtid())),
          "every change carries a MySQL GTID the server executed: "
              + data.stream().map(ChangeRecord::gtid).toList());
      ChangeRecord first = data.get(0);
      assertEquals(1L, first.key().get("id"));
      assertEquals("café", first.after().get("v"));
      assertEquals("-12.50", String.valueOf(first.after().get("d")));
      assertEquals("b", first.after().get("e"));
      assertNull(first.after().get("n"));
      System.err.println("[mysql capture] first row: " + first.after());
      ChangeRecord update = data.get(2);
      assertEquals("two", update.before().get("v"));
      assertEquals("deux", update.after().get("v"));
      assertEquals(1L, data.get(3).key().get("id"));
    }
  }

  @Test
  void compressedTransactionsArriveAsTheSameTransactionsUncompressedWould(TestCluster cluster)
      throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(0);
    cluster.execute(
        shard,
        "CREATE TABLE zt (id BIGINT PRIMARY KEY, v VARCHAR(40), j JSON, b BLOB) ENGINE=InnoDB");
    Map<String, String> raw = CaptureSupport.config(cluster, shard, "-");
    raw.put("topic.prefix", cluster.topicPrefix() + "-zstd"); // a stream of its own
    CaptureConfig config = CaptureConfig.from(raw);
    try (CaptureEngine engine = new CaptureEngine(config)) {
      engine.start();
      try (Connection c = cluster.connect(shard);
          Statement st = c.createStatement()) {
        st.execute("SET SESSION binlog_transaction_compression = ON");
        c.setAutoCommit(false); // one compressed payload: three inserts, an update and a delete
        for (int id = 1; id <= 3; id++) {
          st.execute(
              "INSERT INTO zt VALUES ("
                  + id
                  + ", REPEAT('z', 40), '{\"n\": "
                  + id
                  + "}', REPEAT(x'00ff', 5000))");
        }
        st.execute("UPDATE zt SET v = 'changed' WHERE id = 2");
        st.execute("DELETE FROM zt WHERE id = 3");
        c.commit();
        c.setAutoCommit(true);
        st.execute("SET SESSION binlog_transaction_compression = OFF");
        st.execute("INSERT INTO zt VALUES (4, 'plain', NULL, NULL)"); // and one after it, plain
      }
      assertTrue(payloadEvents(cluster, shard) > 0, "the server wrote a Transaction_payload");
      GtidPosition executed = CaptureSupport.binlogPosition(cluster, shard);
      CaptureSupport.awaitCommitted(engine, executed, Duration.ofSeconds(60));
      List<ChangeRecord> data = changes(cluster, config, "zt", "c", 4);
      assertEquals(
          List.of("c", "c", "c", "u", "d", "c"), data.stream().map(ChangeRecord::op).toList());
      assertEquals(
          1,
          data.subList(0, 5).stream().map(ChangeRecord::gtid).distinct().count(),
          "the compressed transaction is one source transaction");
      assertEquals("z".repeat(40), data.get(0).after().get("v"));
      assertEquals("changed", data.get(3).after().get("v"));
      assertEquals(3L, data.get(4).key().get("id"));
      assertEquals("plain", data.get(5).after().get("v"));
      System.err.println("[mysql capture] compressed transaction: " + data.size() + " changes");
    }
  }

  @Test
  void aPartialJsonUpdateStopsCaptureNamingTheSettingAndItsFix(TestCluster cluster)
      throws Exception {
    assertStopsOn(
        cluster,
        "partial",
        "SET SESSION binlog_row_value_options = 'PARTIAL_JSON'",
        "UPDATE partial SET j = JSON_SET(j, '$.a', 3) WHERE id = 1",
        "SET GLOBAL binlog_row_value_options = ''");
  }

  /** The data records of the change topic, read until {@code n} of {@code table} are {@code op}. */
  private static List<ChangeRecord> changes(
      TestCluster cluster, CaptureConfig config, String table, String op, int n) throws Exception {
    return CaptureSupport.data(
        CaptureSupport.read(
            cluster.bootstrap(),
            config.changeTopic(),
            Duration.ofSeconds(30),
            CaptureSupport.rows(table, op, n)));
  }

  /** The Transaction_payload events in the server's current binlog file. */
  private static int payloadEvents(TestCluster cluster, ClusterDescriptor.Server shard)
      throws Exception {
    try (Connection c = cluster.connect(shard);
        Statement st = c.createStatement()) {
      String file;
      try (java.sql.ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
        rs.next();
        file = rs.getString(1);
      }
      int n = 0;
      try (java.sql.ResultSet rs = st.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
        while (rs.next()) {
          if ("Transaction_payload".equals(rs.getString("Event_type"))) {
            n++;
          }
        }
      }
      return n;
    }
  }

  /**
   * Capture runs, then one session writes {@code table} with {@code setting}: capture stops at that
   * transaction with a message that names the fix, instead of passing over its rows.
   */
  private static void assertStopsOn(
      TestCluster cluster, String table, String setting, String write, String fix)
      throws Exception {
    ClusterDescriptor.Server shard = cluster.shards().get(0);
    cluster.execute(
        shard,
        "CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, j JSON) ENGINE=InnoDB",
        "INSERT INTO " + table + " VALUES (1, '{\"a\": 1}')");
    Map<String, String> raw = CaptureSupport.config(cluster, shard, "-");
    raw.put("topic.prefix", cluster.topicPrefix() + "-" + table); // a stream of its own
    CaptureConfig config = CaptureConfig.from(raw);
    try (CaptureEngine engine = new CaptureEngine(config)) {
      engine.start();
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      try (Connection c = cluster.connect(shard);
          Statement st = c.createStatement()) {
        st.execute(setting);
        st.execute(write);
      }
      String message = CaptureSupport.awaitFailure(engine, Duration.ofSeconds(60)).getMessage();
      assertTrue(message.contains(fix), message);
      assertTrue(message.contains(cluster.database() + "." + table), "names the table: " + message);
    }
  }
}
