package io.reshard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ClusterSpecTest {

  @Test
  void reportsEveryProblemAtOnce() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ClusterSpec(Path.of("/tmp/x"), 0, -1, 80, 70000));
    String m = e.getMessage();
    assertTrue(m.contains("--shards must be at least 1"), m);
    assertTrue(m.contains("--spares must be 0 or more"), m);
    assertTrue(m.contains("MariaDB ports"), m);
    assertTrue(m.contains("Kafka port"), m);
  }

  @Test
  void refusesKafkaPortsInsideTheMariaDbRange() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> new ClusterSpec(Path.of("/tmp/x"), 4, 0, 20000, 20002));
    assertTrue(e.getMessage().contains("overlap"), e.getMessage());
  }

  @Test
  void descriptorHasTheDocumentedShape() throws Exception {
    ClusterSpec spec = new ClusterSpec(Path.of("/tmp/c"), 2, 1, 20000, 21000);
    ClusterDescriptor d = ClusterLayout.describe(spec);
    JsonNode json = new ObjectMapper().readTree(d.toJson());
    assertEquals(3, json.get("mariadb").size());
    JsonNode first = json.get("mariadb").get(0);
    for (String key :
        new String[] {"name", "role", "host", "port", "socket", "user", "server_id", "pid"}) {
      assertTrue(first.has(key), "missing key " + key);
    }
    assertTrue(first.get("port").isInt());
    assertTrue(first.get("pid").isIntegralNumber());
    assertEquals("shard", json.get("mariadb").get(1).get("role").asText());
    assertEquals("spare", json.get("mariadb").get(2).get("role").asText());
    assertEquals(20002, json.get("mariadb").get(2).get("port").asInt());
    assertEquals(3, json.get("mariadb").get(2).get("server_id").asInt());
    assertEquals("127.0.0.1:21000", json.get("kafka").get("bootstrap").asText());
    assertTrue(json.get("kafka").get("port").isInt());
    assertTrue(json.get("kafka").get("pid").isIntegralNumber());
  }

  @Test
  void longDirectoriesGetShortSocketPaths() {
    Path deep = Path.of("/tmp/" + "d".repeat(120));
    String socket = MariaDbServer.socketPath(deep, "db1");
    assertTrue(socket.length() < 108, socket);
    assertTrue(socket.startsWith("/tmp/reshard-"), socket);
    assertEquals(socket, MariaDbServer.socketPath(deep, "db1"), "the path must be stable");
  }

  @Test
  void recognisesTheDirectoryOfOurOwnProcesses() {
    assertEquals(
        Optional.of("/work/c1"),
        PortCheck.clusterDirOf(
            "pid 12: /usr/sbin/mariadbd --defaults-file=/work/c1/mariadb/db2/my.cnf"));
    assertEquals(
        Optional.of("/work/c2"),
        PortCheck.clusterDirOf("pid 13: java -cp x kafka.Kafka /work/c2/kafka/server.properties"));
    assertEquals(Optional.empty(), PortCheck.clusterDirOf("pid 14: /usr/sbin/sshd -D"));
  }
}
