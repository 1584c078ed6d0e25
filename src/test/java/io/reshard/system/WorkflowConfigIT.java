package io.reshard.system;

import static io.reshard.system.ReshardLauncherIT.reshard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.FreePorts;
import io.reshard.router.KeyRange;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator commands with {@code --config FILE} instead of a local cluster directory: a daemon
 * run from a YAML file that lists every shard server of the keyspace, current and future; the CLI
 * finds it through the same file. keyspace init, workflow create, diff, switch writes, complete.
 */
@ExtendWith(LocalClusterExtension.class)
class WorkflowConfigIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aSplitDrivenThroughTheConfigurationFile(TestCluster cluster) throws Exception {
    String ks = cluster.database() + "_cfg";
    ClusterDescriptor.Server db1 = cluster.shards().get(0);
    ClusterDescriptor.Server db2 = cluster.shards().get(1);
    ClusterDescriptor.Server t1 = cluster.spares().get(0);
    ClusterDescriptor.Server t2 = cluster.spares().get(1);
    for (ClusterDescriptor.Server s : List.of(db1, db2)) {
      sql(s, "", "CREATE DATABASE IF NOT EXISTS " + ks);
      sql(
          s,
          ks,
          "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL, body VARCHAR(100)) ENGINE=InnoDB");
    }
    List<Long> high = new ArrayList<>();
    for (long ch = 1; high.size() < 20; ch++) {
      if (KeyRange.parse("80-").contains(SplitLifecycleIT.HASH.keyspaceId(ch))) {
        high.add(ch);
      }
    }
    StringBuilder channels = new StringBuilder();
    high.forEach(ch -> channels.append(channels.length() == 0 ? "" : ", ").append(ch));
    sql(
        db2,
        ks,
        "INSERT INTO messages SELECT seq, ELT(1 + seq % 20, "
            + channels
            + "), CONCAT('m', seq) FROM seq_1_to_3000");

    int adminPort = FreePorts.block(28406, 1);
    Path dir = Files.createTempDirectory("reshard-config-it");
    Path config = dir.resolve("daemon.yaml");
    Path vschema = dir.resolve("vschema.json");
    Files.writeString(vschema, SplitLifecycleIT.VSCHEMA, StandardCharsets.UTF_8);
    String token = "cfg-it-token-0123456789abcdef";
    StringBuilder yaml =
        new StringBuilder()
            .append("kafka.bootstrap.servers: ")
            .append(cluster.bootstrap())
            .append('\n')
            .append("topic.prefix: ")
            .append(cluster.topicPrefix())
            .append("_cfg\n")
            .append("workflows.topic: ")
            .append(cluster.topicPrefix())
            .append(".cfg.workflows\n")
            .append("admin: {port: ")
            .append(adminPort)
            .append(", token: ")
            .append(token)
            .append("}\n")
            // the stage keys reach the copy, the diff and the appliers: small chunks and commits
            .append("copy: {chunk.rows: 200, chunk.rows.min: 50}\n")
            .append("diff.chunk.rows: 500\n")
            .append("apply.max.rows.per.commit: 100\n")
            .append("shards:\n");
    String[][] shards = {{"-80", "0"}, {"80-", "1"}, {"80-c0", "2"}, {"c0-", "3"}};
    List<ClusterDescriptor.Server> servers = List.of(db1, db2, t1, t2);
    for (int i = 0; i < shards.length; i++) {
      ClusterDescriptor.Server s = servers.get(i);
      yaml.append("  - {keyspace: ")
          .append(ks)
          .append(", shard: '")
          .append(shards[i][0])
          .append("', host: ")
          .append(s.host())
          .append(", port: ")
          .append(s.port())
          .append(", user: root, server.id: ")
          .append(8800 + i)
          .append("}\n");
    }
    Files.writeString(config, yaml.toString(), StandardCharsets.UTF_8);

    Process daemon =
        new ProcessBuilder(
                ReshardLauncherIT.REPO.resolve("reshard").toString(),
                "daemon",
                "--config",
                config.toString())
            .directory(ReshardLauncherIT.REPO.toFile())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("daemon.log").toFile())
            .start();
    try {
      awaitHealth(adminPort, daemon, dir);
      String c = "--config=" + config;
      Run init =
          reshard(
              "keyspace",
              "init",
              c,
              "--keyspace",
              ks,
              "--vschema",
              vschema.toString(),
              "--shards=-80,80-");
      assertEquals(0, init.exit(), init.err());
      Run created =
          reshard(
              "workflow",
              "create",
              c,
              "--keyspace",
              ks,
              "--source",
              "80-",
              "--targets=80-c0,c0-",
              "cfg-split",
              "--wait",
              "--output",
              "json");
      assertEquals(0, created.exit(), created.err());
      Run status = reshard("workflow", "status", c, "cfg-split", "--output", "json");
      assertEquals(0, status.exit(), status.err());
      JsonNode w = JSON.readTree(status.out());
      assertEquals("RUNNING", w.get("state").asText(), status.out());
      assertEquals(
          t1.host() + ":" + t1.port(), w.get("servers").get("80-c0").asText(), status.out());
      Run diff = reshard("workflow", "diff", c, "cfg-split", "--output", "json");
      assertEquals(0, diff.exit(), diff.out() + diff.err());
      assertTrue(JSON.readTree(diff.out()).get("clean").asBoolean(), diff.out());
      Run switched = reshard("workflow", "switch-traffic", c, "cfg-split", "--writes");
      assertEquals(0, switched.exit(), switched.err());
      Run complete = reshard("workflow", "complete", c, "cfg-split");
      assertEquals(0, complete.exit(), complete.err());
      JsonNode map =
          JSON.readTree(reshard("shardmap", "show", c, "--keyspace", ks, "--output", "json").out());
      List<String> names = new ArrayList<>();
      map.get("shards").forEach(s -> names.add(s.get("name").asText()));
      assertEquals(List.of("-80", "80-c0", "c0-"), names, map.toString());
    } finally {
      daemon.destroy();
      if (!daemon.waitFor(60, TimeUnit.SECONDS)) {
        daemon.destroyForcibly();
      }
      sql(db2, "", "SET GLOBAL read_only = OFF");
    }
  }

  private static void awaitHealth(int port, Process daemon, Path dir) throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      assertTrue(
          daemon.isAlive(), "the daemon exited: " + Files.readString(dir.resolve("daemon.log")));
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (java.io.IOException e) {
        // not listening yet
      }
      assertTrue(System.nanoTime() < deadline, "the daemon did not come up");
      Thread.sleep(300);
    }
  }

  private static void sql(ClusterDescriptor.Server s, String db, String statement)
      throws Exception {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(db), s.user(), "");
        Statement st = c.createStatement()) {
      st.execute(statement);
    }
  }
}
