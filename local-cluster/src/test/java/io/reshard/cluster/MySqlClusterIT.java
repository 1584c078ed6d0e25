package io.reshard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * A local cluster of real MySQL 8.0.31 servers (one shard, one spare) from the Maven artifact: up,
 * the source settings as the servers report them, status, down (every pid gone), and up again on
 * the same data. One cluster, brought up and down inside the one test, so the class stays short.
 */
class MySqlClusterIT {
  private static Path dir;

  @AfterAll
  static void downEvenIfTheTestFailed() {
    if (dir != null && Files.exists(dir.resolve(ClusterDescriptor.FILE_NAME))) {
      LocalCluster.down(dir);
    }
  }

  @Test
  void upStartsMySqlSourcesThatDownStopsAndUpRestarts() throws Exception {
    Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
    dir = root.resolve("mysql-cluster-it-" + ProcessHandle.current().pid()).toAbsolutePath();
    ClusterSpec spec =
        new ClusterSpec(
            dir, 1, 1, FreePorts.block(24706, 2), FreePorts.block(29292, 2), Flavor.MYSQL);
    List<String> lines = new ArrayList<>();
    ClusterDescriptor d = LocalCluster.up(spec, lines::add);

    assertEquals(3, lines.size(), lines.toString());
    assertTrue(lines.stream().allMatch(l -> l.endsWith("started")), lines.toString());
    ClusterDescriptor onDisk = ClusterDescriptor.read(dir).orElseThrow();
    assertEquals(d, onDisk);
    assertTrue(Files.readString(dir.resolve("cluster.json")).contains("\"flavor\" : \"mysql\""));
    assertTrue(onDisk.mariadb().stream().allMatch(s -> s.flavorOrDefault() == Flavor.MYSQL));
    assertTrue(d.shards().get(0).jdbcUrl("").startsWith("jdbc:mysql://"));

    List<String> uuids = new ArrayList<>();
    for (ClusterDescriptor.Server s : d.mariadb()) {
      try (Connection c = DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
          Statement st = c.createStatement()) {
        assertTrue(c.getClass().getName().startsWith("com.mysql.cj."), c.getClass().getName());
        assertEquals("8.0.31", scalar(st, "SELECT @@version"));
        assertEquals("ON", scalar(st, "SELECT @@gtid_mode"));
        assertEquals("ON", scalar(st, "SELECT @@enforce_gtid_consistency"));
        assertEquals("1", scalar(st, "SELECT @@log_bin"));
        assertEquals("ROW", scalar(st, "SELECT @@binlog_format"));
        assertEquals("FULL", scalar(st, "SELECT @@binlog_row_image"));
        assertEquals("FULL", scalar(st, "SELECT @@binlog_row_metadata"));
        assertEquals(Integer.toString(s.serverId()), scalar(st, "SELECT @@server_id"));
        assertEquals("2", scalar(st, "SELECT @@innodb_flush_log_at_trx_commit"));
        assertEquals("0", scalar(st, "SELECT @@sync_binlog"));
        assertEquals(
            "caching_sha2_password",
            scalar(st, "SELECT plugin FROM mysql.user WHERE user = 'root' AND host = '127.0.0.1'"));
        uuids.add(scalar(st, "SELECT @@server_uuid"));
        st.execute("CREATE DATABASE it");
        st.execute("CREATE TABLE it.t (id INT PRIMARY KEY)");
        st.execute("INSERT INTO it.t VALUES (1)");
        String executed = scalar(st, "SELECT @@gtid_executed");
        assertEquals(uuids.get(uuids.size() - 1) + ":1-3", executed, "only our 3 transactions");
      }
    }
    assertNotEquals(uuids.get(0), uuids.get(1), "every server has a uuid of its own");
    assertTrue(LocalCluster.status(dir).stream().allMatch(LocalCluster.ProcessStatus::up));

    ClusterException other =
        assertThrows(
            ClusterException.class,
            () ->
                LocalCluster.up(
                    new ClusterSpec(dir, 1, 1, spec.mariadbBasePort(), spec.kafkaPort()), x -> {}));
    assertTrue(other.getMessage().contains("give --flavor mysql"), other.getMessage());

    List<Long> pids = d.mariadb().stream().map(ClusterDescriptor.Server::pid).toList();
    List<String> down = LocalCluster.down(dir);
    assertEquals(3, down.size(), down.toString());
    for (long pid : pids) {
      assertFalse(ProcessHandle.of(pid).isPresent(), "mysqld " + pid + " is gone");
    }
    assertFalse(LocalCluster.status(dir).stream().anyMatch(LocalCluster.ProcessStatus::up));

    List<String> again = new ArrayList<>();
    ClusterDescriptor restarted = LocalCluster.up(spec, again::add);
    assertTrue(again.stream().allMatch(l -> l.endsWith("restarted")), again.toString());
    ClusterDescriptor.Server db1 = restarted.shards().get(0);
    try (Connection c = DriverManager.getConnection(db1.jdbcUrl(""), db1.user(), "");
        Statement st = c.createStatement()) {
      assertEquals("1", scalar(st, "SELECT COUNT(*) FROM it.t"), "data kept across down/up");
    }
  }

  private static String scalar(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
