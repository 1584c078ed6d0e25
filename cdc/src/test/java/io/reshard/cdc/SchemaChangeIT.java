package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * DDL, TRUNCATE and partition operations become records; changes capture cannot publish faithfully
 * (DML logged as a statement, a row image that is not full, XA, a row above the topic's size limit)
 * stop it with an error naming the table and the GTID, after everything before them was committed.
 */
@ExtendWith(LocalClusterExtension.class)
class SchemaChangeIT {
  private final TestCluster cluster;
  private final ClusterDescriptor.Server shard;

  SchemaChangeIT(TestCluster cluster) {
    this.cluster = cluster;
    this.shard = cluster.shards().get(0);
  }

  @Test
  void ddlTruncateAndPartitionOperationsArePublishedInOrder() throws Exception {
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, shard, "-10"));
    List<ChangeRecord> records;
    try (CaptureEngine engine = started(config)) {
      cluster.execute(
          shard,
          "CREATE TABLE p (id INT PRIMARY KEY, v INT) PARTITION BY RANGE (id) (PARTITION p0 VALUES"
              + " LESS THAN (100), PARTITION p1 VALUES LESS THAN (200), PARTITION p2 VALUES LESS"
              + " THAN MAXVALUE)",
          "INSERT INTO p VALUES (1, 1), (150, 2), (250, 3)",
          "ALTER TABLE p ADD COLUMN w VARCHAR(5) AS (CONCAT('w', v)) VIRTUAL",
          "INSERT INTO p (id, v) VALUES (2, 4)",
          "ALTER TABLE p TRUNCATE PARTITION p0",
          "ALTER TABLE p DROP PARTITION p1",
          "TRUNCATE TABLE p",
          "CREATE DATABASE IF NOT EXISTS other_" + cluster.database(),
          "CREATE TABLE other_" + cluster.database() + ".x (id INT PRIMARY KEY)");
      // a schema record carries the table as information_schema shows it when capture reads
      // the DDL: let capture pass the ALTER before the table is dropped
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      cluster.execute(shard, "DROP TABLE p");
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      records =
          CaptureSupport.read(
              cluster.bootstrap(),
              config.changeTopic(),
              Duration.ofSeconds(30),
              l -> l.stream().anyMatch(r -> r.ddl() != null && r.ddl().startsWith("DROP TABLE")));
    } finally {
      cluster.execute(shard, "DROP DATABASE IF EXISTS other_" + cluster.database());
    }
    List<String> shape =
        records.stream()
            .filter(r -> r.kind() != RecordKind.HEARTBEAT)
            .map(r -> r.kind() + (r.op() == null ? "" : ":" + r.op()))
            .toList();
    assertEquals(
        List.of(
            "SCHEMA", "BEGIN", "DATA:c", "DATA:c", "DATA:c", "END", "SCHEMA", "BEGIN", "DATA:c",
            "END", "DATA:t", "DATA:t", "SCHEMA", "DATA:t", "SCHEMA"),
        shape);
    List<ChangeRecord> ddl = records.stream().filter(r -> r.kind() == RecordKind.SCHEMA).toList();
    assertTrue(ddl.get(0).ddl().startsWith("CREATE TABLE p"), ddl.get(0).ddl());
    assertEquals("p", ddl.get(0).table());
    assertEquals(
        "CREATE",
        ddl.get(0).value().path("tableChanges").path(0).path("type").asText(),
        ddl.get(0).value().toString());
    var alter = ddl.get(1).value().path("tableChanges").get(0);
    assertEquals("ALTER", alter.path("type").asText());
    assertEquals("w", alter.path("table").path("columns").get(2).path("name").asText());
    assertTrue(alter.path("table").path("columns").get(2).path("generated").asBoolean());
    assertTrue(ddl.get(3).ddl().startsWith("DROP TABLE"), ddl.get(3).ddl());
    assertTrue(ddl.get(3).value().path("tableChanges").get(0).path("table").isMissingNode());

    ChangeRecord afterAlter =
        CaptureSupport.data(records).stream()
            .filter(r -> "c".equals(r.op()) && Long.valueOf(2).equals(r.key().get("id")))
            .findFirst()
            .orElseThrow();
    assertEquals("w4", afterAlter.after().get("w"), "the row after the ALTER has the new column");
    assertTrue(afterAlter.schema().column("w").generated());

    List<ChangeRecord> truncates =
        CaptureSupport.data(records).stream().filter(r -> "t".equals(r.op())).toList();
    assertEquals("[\"p0\"]", truncates.get(0).value().path("partitions").toString());
    assertEquals("[\"p1\"]", truncates.get(1).value().path("partitions").toString());
    assertEquals("TRUNCATE TABLE p", truncates.get(2).ddl());
    assertNull(truncates.get(2).key());
    assertEquals("p", truncates.get(2).table());
  }

  @Test
  void reshardRowsAreCarriedAndOtherDatabasesOnlyAdvanceThePosition() throws Exception {
    String other = "other2_" + cluster.database();
    String reshardTable = "_reshard.`" + cluster.database() + "`";
    cluster.execute(
        shard,
        "CREATE DATABASE IF NOT EXISTS _reshard",
        "CREATE TABLE " + reshardTable + " (id INT PRIMARY KEY, epoch BIGINT)",
        "CREATE DATABASE " + other,
        "CREATE TABLE " + other + ".y (id INT PRIMARY KEY)");
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, shard, "-70"));
    try (CaptureEngine engine = started(config)) {
      cluster.execute(
          shard,
          "INSERT INTO " + reshardTable + " VALUES (1, 7)",
          "INSERT INTO " + other + ".y VALUES (1)");
      GtidPosition last = CaptureSupport.binlogPosition(cluster, shard);
      CaptureSupport.awaitCommitted(engine, last, Duration.ofSeconds(60));
      List<ChangeRecord> records =
          CaptureSupport.read(
              cluster.bootstrap(),
              config.changeTopic(),
              Duration.ofSeconds(30),
              l ->
                  l.stream()
                      .anyMatch(
                          r ->
                              r.kind() == RecordKind.HEARTBEAT
                                  && r.position().gtids().covers(last)));
      List<ChangeRecord> data = CaptureSupport.data(records);
      assertEquals(1, data.size(), "the _reshard row only, nothing of " + other);
      assertEquals("_reshard", data.get(0).database());
      assertEquals(7L, data.get(0).after().get("epoch"));
      assertTrue(
          records.stream()
              .anyMatch(r -> r.kind() == RecordKind.HEARTBEAT && r.position().gtids().covers(last)),
          "a heartbeat carries the position past the unrelated write");
    } finally {
      cluster.execute(
          shard, "DROP TABLE IF EXISTS " + reshardTable, "DROP DATABASE IF EXISTS " + other);
    }
  }

  @Test
  void binlogRotationIsFollowed() throws Exception {
    cluster.execute(shard, "CREATE TABLE r (id INT PRIMARY KEY)");
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, shard, "-60"));
    try (CaptureEngine engine = started(config)) {
      cluster.execute(
          shard, "INSERT INTO r VALUES (1)", "FLUSH BINARY LOGS", "INSERT INTO r VALUES (2)");
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      List<ChangeRecord> rows =
          CaptureSupport.data(
              CaptureSupport.read(
                  cluster.bootstrap(),
                  config.changeTopic(),
                  Duration.ofSeconds(30),
                  CaptureSupport.rows("r", "c", 2)));
      String first = rows.get(0).value().path("source").path("file").asText();
      String second = rows.get(1).value().path("source").path("file").asText();
      assertTrue(second.compareTo(first) > 0, first + " then " + second);
      assertEquals(second, engine.committedPosition().orElseThrow().binlogFile());
    }
  }

  @Test
  void dmlLoggedAsAStatementStopsCaptureNamingTableAndGtid() throws Exception {
    cluster.execute(shard, "CREATE TABLE s (id INT PRIMARY KEY)");
    String gtid =
        failsWith("-20", "SET SESSION binlog_format = 'STATEMENT'", "INSERT INTO s VALUES (2)");
    CdcException e = lastFailure;
    assertTrue(e.getMessage().contains(cluster.database() + ".s"), e.getMessage());
    assertTrue(e.getMessage().contains("logged as a statement"), e.getMessage());
    assertTrue(e.getMessage().contains("GTID " + gtid), e.getMessage() + " / " + gtid);
  }

  @Test
  void aRowImageThatIsNotFullStopsCapture() throws Exception {
    cluster.execute(
        shard, "CREATE TABLE m (id INT PRIMARY KEY, v INT)", "INSERT INTO m VALUES (1, 1)");
    String gtid =
        failsWith("-30", "SET SESSION binlog_row_image = 'MINIMAL'", "UPDATE m SET v = 2");
    assertTrue(
        lastFailure.getMessage().contains(cluster.database() + ".m is not full"),
        lastFailure.getMessage());
    assertTrue(lastFailure.getMessage().contains("GTID " + gtid), lastFailure.getMessage());
  }

  @Test
  void xaTransactionsStopCapture() throws Exception {
    cluster.execute(shard, "CREATE TABLE x (id INT PRIMARY KEY)");
    failsWith(
        "-40",
        "XA START 'x1'",
        "INSERT INTO x VALUES (1)",
        "XA END 'x1'",
        "XA PREPARE 'x1'",
        "XA COMMIT 'x1'");
    assertTrue(lastFailure.getMessage().contains("XA"), lastFailure.getMessage());
  }

  @Test
  void aRowLargerThanTheTopicAcceptsStopsCaptureNamingTableKeyAndSetting() throws Exception {
    cluster.execute(shard, "CREATE TABLE big (id INT PRIMARY KEY, b LONGBLOB)");
    Map<String, String> m = CaptureSupport.config(cluster, shard, "-50");
    m.put("topic.max.message.bytes", "20000");
    lastConfig = CaptureConfig.from(m);
    failsWith(null, "INSERT INTO big VALUES (7, REPEAT('b', 50000))");
    String msg = lastFailure.getMessage();
    assertTrue(msg.contains(cluster.database() + ".big key {\"id\":7}"), msg);
    assertTrue(msg.contains("max.message.bytes"), msg);
    assertTrue(msg.contains("20000"), msg);
  }

  @Test
  void aRowTooLargeIsPublishedOnceTheLimitIsRaisedWithNothingSkippedOrRepeated() throws Exception {
    cluster.execute(shard, "CREATE TABLE bigger (id INT PRIMARY KEY, b LONGBLOB)");
    Map<String, String> m = CaptureSupport.config(cluster, shard, "-52");
    m.put("topic.max.message.bytes", "20000");
    CaptureConfig config = CaptureConfig.from(m);
    try (CaptureEngine engine = started(config)) {
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      // one source transaction: a row before the one too large, the large one, a row after it
      cluster.execute(
          shard,
          "BEGIN",
          "INSERT INTO bigger VALUES (6, 'before')",
          "INSERT INTO bigger VALUES (7, REPEAT('b', 50000))",
          "INSERT INTO bigger VALUES (8, 'after')",
          "COMMIT");
      CdcException failure = CaptureSupport.awaitFailure(engine, Duration.ofSeconds(60));
      assertInstanceOf(UnsupportedChangeException.class, failure, failure.toString());
    }
    // what the message says: raise the topic's limit, then start capture again
    cluster.setTopicConfig(config.changeTopic(), "max.message.bytes", "200000");
    try (CaptureEngine engine = started(config)) {
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
    }
    List<ChangeRecord> all =
        CaptureSupport.read(
            cluster.bootstrap(),
            config.changeTopic(),
            Duration.ofSeconds(10),
            CaptureSupport.rows("bigger", "c", 3));
    List<Object> ids =
        CaptureSupport.data(all).stream()
            .filter(r -> r.table().equals("bigger"))
            .map(r -> r.key().get("id"))
            .toList();
    assertEquals(List.of(6, 7, 8), ids.stream().map(i -> ((Number) i).intValue()).toList());
    // one BEGIN and one END for the transaction, the END counting its three rows
    List<ChangeRecord> ends = all.stream().filter(r -> r.kind() == RecordKind.END).toList();
    assertEquals(1, all.stream().filter(r -> r.kind() == RecordKind.BEGIN).count(), all.toString());
    assertEquals(1, ends.size(), all.toString());
    assertEquals(3, ends.get(0).eventCount());
  }

  private static final java.util.concurrent.atomic.AtomicInteger GOOD_IDS =
      new java.util.concurrent.atomic.AtomicInteger();
  private CdcException lastFailure;
  private CaptureConfig lastConfig;

  /**
   * Starts capture, commits one good row, runs {@code statements} in one session, and expects
   * capture to fail; the good row must be in the topic. Returns the GTID of the last statement.
   */
  private String failsWith(String shardName, String... statements) throws Exception {
    CaptureConfig config =
        shardName == null
            ? lastConfig
            : CaptureConfig.from(CaptureSupport.config(cluster, shard, shardName));
    cluster.execute(shard, "CREATE TABLE IF NOT EXISTS good (id INT PRIMARY KEY)");
    String gtid;
    try (CaptureEngine engine = started(config)) {
      cluster.execute(shard, "INSERT INTO good VALUES (" + GOOD_IDS.incrementAndGet() + ")");
      CaptureSupport.awaitCommitted(
          engine, CaptureSupport.binlogPosition(cluster, shard), Duration.ofSeconds(60));
      try (Connection c = cluster.connect(shard);
          Statement st = c.createStatement()) {
        for (String sql : statements) {
          st.execute(sql);
        }
        try (ResultSet rs = st.executeQuery("SELECT @@last_gtid")) {
          rs.next();
          gtid = rs.getString(1);
        }
      }
      lastFailure = CaptureSupport.awaitFailure(engine, Duration.ofSeconds(60));
      assertInstanceOf(UnsupportedChangeException.class, lastFailure, lastFailure.toString());
    }
    List<ChangeRecord> data =
        CaptureSupport.data(
            CaptureSupport.read(
                cluster.bootstrap(), config.changeTopic(), Duration.ofSeconds(5), l -> false));
    assertEquals(
        1,
        data.size(),
        "only the good row: " + data.stream().map(r -> r.table() + ":" + r.op()).toList());
    assertEquals("good", data.get(0).table());
    return gtid;
  }

  private static CaptureEngine started(CaptureConfig config) {
    CaptureEngine engine = new CaptureEngine(config);
    engine.start();
    return engine;
  }
}
