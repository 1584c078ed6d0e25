package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
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
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code reshard daemon} as an operator runs it, as a separate detached process: against the test
 * cluster (capture of every shard into its change topic, the admin endpoint, {@code daemon stop}),
 * and against a cluster of its own that {@code cluster down} stops daemon first.
 */
@ExtendWith(LocalClusterExtension.class)
class DaemonIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration WAIT = Duration.ofSeconds(90);
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aBackgroundDaemonCapturesEveryShardServesItsAdminEndpointAndStops(TestCluster cluster)
      throws Exception {
    Path dir = cluster.dir();
    String keyspace = cluster.database();
    String prefix = cluster.topicPrefix();
    ClusterDescriptor.Server db1 = cluster.shards().get(0);
    cluster.execute(db1, "CREATE TABLE items (id INT PRIMARY KEY, name VARCHAR(20)) ENGINE=InnoDB");
    List<String> shards =
        KeyRange.evenShards(cluster.shards().size()).stream().map(KeyRange::name).toList();

    Run started =
        ReshardLauncherIT.reshard(
            "daemon",
            "--cluster",
            dir.toString(),
            "--keyspace",
            keyspace,
            "--shards=" + String.join(",", shards),
            "--set",
            "topic.prefix=" + prefix,
            "--set",
            "workflows.topic=" + prefix + ".workflows",
            "--background");
    assertEquals(0, started.exit(), started.out() + started.err());
    JsonNode recorded = JSON.readTree(dir.resolve("cluster.json").toFile()).get("daemon");
    long pid = recorded.get("pid").asLong();
    URI admin = URI.create(recorded.get("admin").asText());
    try {
      assertTrue(
          started.out().startsWith("reshard daemon: pid " + pid + ", admin endpoint " + admin),
          started.out());
      assertEquals("127.0.0.1", admin.getHost());

      JsonNode health =
          await(
              "every capture running",
              () -> JSON.readTree(get(admin, "/health").body()),
              h -> countRunningCaptures(h) == shards.size());
      assertEquals("up", health.get("status").asText(), health.toString());
      assertEquals("admin", health.get("services").get(0).get("name").asText());

      Run second =
          ReshardLauncherIT.reshard(
              "daemon", "--cluster", dir.toString(), "--keyspace", keyspace, "--background");
      assertEquals(3, second.exit(), second.out() + second.err());
      assertTrue(second.err().contains("already runs"), second.err());

      HttpResponse<String> workflows = get(admin, "/workflows");
      assertEquals(200, workflows.statusCode(), workflows.body());
      assertEquals("[]", workflows.body().strip());

      String token = Files.readString(dir.resolve("daemon.token")).strip();
      assertEquals(401, post(admin, "/workflows/none/actions/cancel", null).statusCode());
      HttpResponse<String> authorized = post(admin, "/workflows/none/actions/cancel", token);
      assertEquals(404, authorized.statusCode(), authorized.body());

      cluster.execute(db1, "INSERT INTO items VALUES (1, 'from-daemon')");
      Pattern rows =
          Pattern.compile(
              "reshard_capture_rows_total\\{keyspace=\""
                  + keyspace
                  + "\",shard=\""
                  + Pattern.quote(shards.get(0))
                  + "\"} ([0-9.]+)");
      await(
          "the row change counted in /metrics",
          () -> get(admin, "/metrics").body(),
          m -> {
            Matcher x = rows.matcher(m);
            return x.find() && Double.parseDouble(x.group(1)) >= 1;
          });

      Run stop = ReshardLauncherIT.reshard("daemon", "stop", "--cluster", dir.toString());
      assertEquals(0, stop.exit(), stop.err());
      assertEquals("daemon stopped", stop.out().strip());
      awaitGone(pid);
      assertFalse(
          JSON.readTree(dir.resolve("cluster.json").toFile()).has("daemon"),
          "the entry is removed");

      Run tail =
          ReshardLauncherIT.reshard(
              "cdc",
              "tail",
              "--cluster",
              dir.toString(),
              "--keyspace",
              keyspace,
              "--shard=" + shards.get(0),
              "--topic-prefix",
              prefix,
              "--from-beginning",
              "--idle-timeout",
              "3");
      assertEquals(0, tail.exit(), tail.err());
      assertTrue(
          tail.out()
              .lines()
              .map(DaemonIT::readJson)
              .anyMatch(
                  v ->
                      "c".equals(v.path("op").asText())
                          && "from-daemon".equals(v.path("after").path("name").asText())),
          tail.out());

      String log = Files.readString(dir.resolve("daemon.log"));
      assertTrue(log.contains("daemon up: admin endpoint " + admin), log);
      assertFalse(log.contains(token), "the admin token is in daemon.log");
    } finally {
      ReshardLauncherIT.reshard("daemon", "stop", "--cluster", dir.toString());
    }
  }

  @Test
  void clusterDownStopsTheDaemonBeforeTheServers() throws Exception {
    Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
    Files.createDirectories(root);
    Path dir = Files.createTempDirectory(root, "daemon-down-");
    int spread = (int) (ProcessHandle.current().pid() % 64) * 16;
    int basePort = FreePorts.block(27306 + spread, 1);
    int kafkaPort = FreePorts.block(28306 + spread, 2);
    Run up =
        ReshardLauncherIT.reshard(
            "cluster",
            "up",
            "--dir",
            dir.toString(),
            "--shards",
            "1",
            "--base-port",
            "" + basePort,
            "--kafka-port",
            "" + kafkaPort);
    assertEquals(0, up.exit(), up.out() + up.err());
    try {
      try (Connection c =
              DriverManager.getConnection(
                  "jdbc:mariadb://127.0.0.1:" + basePort + "/", "root", "");
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE downks");
      }
      Run started =
          ReshardLauncherIT.reshard(
              "daemon", "--cluster", dir.toString(), "--keyspace", "downks", "--background");
      assertEquals(0, started.exit(), started.out() + started.err());
      long pid =
          JSON.readTree(dir.resolve("cluster.json").toFile()).get("daemon").get("pid").asLong();
      Run status = ReshardLauncherIT.reshard("cluster", "status", "--dir", dir.toString());
      assertTrue(
          status.out().lines().anyMatch(l -> l.startsWith("daemon") && l.endsWith("up")),
          status.out());

      Run down = ReshardLauncherIT.reshard("cluster", "down", "--dir", dir.toString());
      assertEquals(0, down.exit(), down.err());
      List<String> lines = down.out().lines().toList();
      assertEquals("daemon stopped", lines.get(0), down.out());
      assertEquals(3, lines.stream().filter(l -> l.endsWith("stopped")).count(), down.out());
      awaitGone(pid);
      assertFalse(JSON.readTree(dir.resolve("cluster.json").toFile()).has("daemon"));
      Run after = ReshardLauncherIT.reshard("cluster", "status", "--dir", dir.toString());
      assertTrue(after.out().lines().allMatch(l -> l.endsWith("down")), after.out());
    } finally {
      ReshardLauncherIT.reshard("cluster", "down", "--dir", dir.toString());
    }
  }

  private static long countRunningCaptures(JsonNode health) {
    long n = 0;
    for (JsonNode s : health.get("services")) {
      if (s.get("name").asText().startsWith("capture/")
          && "RUNNING".equals(s.get("state").asText())) {
        n++;
      }
    }
    return n;
  }

  private HttpResponse<String> get(URI admin, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(admin.resolve(path)).timeout(Duration.ofSeconds(60)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> post(URI admin, String path, String token) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(admin.resolve(path))
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Something to poll. */
  private interface Probe<T> {
    T read() throws Exception;
  }

  private static <T> T await(String what, Probe<T> probe, Predicate<T> done) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    T last = probe.read();
    while (!done.test(last)) {
      assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what + "; last: " + last);
      Thread.sleep(200);
      last = probe.read();
    }
    return last;
  }

  private static void awaitGone(long pid) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (ProcessHandle.of(pid).isPresent() && System.nanoTime() < deadline) {
      Thread.sleep(50); // stop returns once the process has exited; init reaps it a moment later
    }
    assertTrue(ProcessHandle.of(pid).isEmpty(), "the daemon (pid " + pid + ") still runs");
  }

  private static JsonNode readJson(String line) {
    try {
      return JSON.readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + line, e);
    }
  }
}
