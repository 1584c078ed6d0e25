package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Refusals on real servers (the settings a running server can change are changed on a spare and
 * restored): nothing is started, no topic is created. The binlog being off cannot be set at run
 * time; {@code PreflightTest} covers it. A start position the server no longer has, or never had,
 * stops capture with {@link PositionLostException} naming the position.
 */
@ExtendWith(LocalClusterExtension.class)
class PreflightIT {
  private final TestCluster cluster;
  private final ClusterDescriptor.Server spare;

  PreflightIT(TestCluster cluster) {
    this.cluster = cluster;
    this.spare = cluster.spares().get(1);
  }

  @Test
  void binlogFormatNotRow() throws Exception {
    refusedWithGlobal("binlog_format", "'STATEMENT'", "'ROW'", "binlog_format is STATEMENT");
  }

  @Test
  void rowImageNotFull() throws Exception {
    refusedWithGlobal("binlog_row_image", "'MINIMAL'", "'FULL'", "binlog_row_image is MINIMAL");
  }

  @Test
  void rowMetadataNotFull() throws Exception {
    refusedWithGlobal(
        "binlog_row_metadata", "'MINIMAL'", "'FULL'", "binlog_row_metadata is MINIMAL");
  }

  @Test
  void serverIdClash() {
    Map<String, String> m = CaptureSupport.config(cluster, spare, "-01");
    m.put("source.server.id", Integer.toString(spare.serverId()));
    assertRefused(m, "source's own server_id");
  }

  @Test
  void missingPrivileges() throws Exception {
    String db = cluster.database();
    cluster.execute(
        spare,
        "CREATE USER IF NOT EXISTS 'noslave'@'%' IDENTIFIED BY 'pw'",
        "GRANT SELECT ON `" + db + "`.* TO 'noslave'@'%'",
        "CREATE USER IF NOT EXISTS 'noselect'@'%' IDENTIFIED BY 'pw'",
        "GRANT REPLICATION SLAVE ON *.* TO 'noselect'@'%'");
    try {
      Map<String, String> m = CaptureSupport.config(cluster, spare, "-02");
      m.put("source.user", "noslave");
      m.put("source.password", "pw");
      assertRefused(m, "lacks REPLICATION SLAVE");
      m.put("source.user", "noselect");
      assertRefused(m, "lacks SELECT on " + db);
    } finally {
      cluster.execute(spare, "DROP USER 'noslave'@'%'", "DROP USER 'noselect'@'%'");
    }
  }

  @Test
  void unknownDatabase() {
    Map<String, String> m = CaptureSupport.config(cluster, spare, "-03");
    m.put("database", "no_such_database");
    assertRefused(m, "database no_such_database does not exist");
  }

  @Test
  void aPurgedPositionIsFatalAndNamed() throws Exception {
    ClusterDescriptor.Server server = cluster.spares().get(0);
    cluster.execute(
        server, "CREATE TABLE purged (id INT PRIMARY KEY)", "INSERT INTO purged VALUES (1)");
    GtidPosition old = CaptureSupport.binlogPosition(cluster, server);
    cluster.execute(
        server,
        "INSERT INTO purged VALUES (2)",
        "FLUSH BINARY LOGS",
        "INSERT INTO purged VALUES (3)");
    try (Connection c = cluster.connect(server);
        Statement st = c.createStatement()) {
      String current;
      try (ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
        rs.next();
        current = rs.getString(1);
      }
      // the server keeps a binlog until its engine commits are durable (binlog checkpoint):
      // retry the purge until the old file is really gone
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!firstBinlog(st).equals(current)) {
        assertTrue(System.nanoTime() < deadline, "the old binlog could not be purged");
        st.execute("PURGE BINARY LOGS TO '" + current + "'");
        Thread.sleep(200);
      }
    }
    assertPositionLost(server, old.toString(), "-04");
  }

  @Test
  void aPositionAheadOfTheServerIsFatalAndNamed() throws Exception {
    ClusterDescriptor.Server server = cluster.spares().get(0);
    String ahead = server.serverId() + "-" + server.serverId() + "-999999";
    assertPositionLost(server, ahead, "-05");
  }

  private static String firstBinlog(Statement st) throws Exception {
    try (ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
      rs.next();
      return rs.getString(1);
    }
  }

  private void assertPositionLost(ClusterDescriptor.Server server, String position, String shard)
      throws Exception {
    Map<String, String> m = CaptureSupport.config(cluster, server, shard);
    m.put("start.position", position);
    CaptureEngine engine = new CaptureEngine(CaptureConfig.from(m));
    engine.start();
    CdcException e = CaptureSupport.awaitFailure(engine, Duration.ofSeconds(60));
    assertInstanceOf(PositionLostException.class, e, e.toString());
    assertEquals(position, ((PositionLostException) e).position());
    assertTrue(e.getMessage().contains("'" + position + "'"), e.getMessage());
    assertTrue(e.getMessage().contains("recopy"), e.getMessage());
    assertFalse(e.retriable());
  }

  private void refusedWithGlobal(String variable, String value, String restore, String expected)
      throws Exception {
    cluster.execute(spare, "SET GLOBAL " + variable + " = " + value);
    try {
      assertRefused(CaptureSupport.config(cluster, spare, "-1" + variable.length()), expected);
    } finally {
      cluster.execute(spare, "SET GLOBAL " + variable + " = " + restore);
    }
  }

  private void assertRefused(Map<String, String> m, String expected) {
    CaptureConfig config = CaptureConfig.from(m);
    CaptureEngine engine = new CaptureEngine(config);
    CaptureRefusedException e = assertThrows(CaptureRefusedException.class, engine::start);
    assertTrue(
        e.problems().stream().anyMatch(p -> p.contains(expected)),
        expected + " not in " + e.getMessage());
    assertEquals(CaptureEngine.State.NEW, engine.state(), "nothing started");
    assertFalse(topics().contains(config.changeTopic()), "no topic was created");
  }

  private Set<String> topics() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
    try (Admin admin = Admin.create(p)) {
      return admin.listTopics().names().get();
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
