package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.daemon.Daemon;
import io.reshard.daemon.DaemonConfig;
import io.reshard.daemon.ServerDirectory;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A workflow whose source capture stopped for good (a change larger than the daemon's {@code
 * capture.topic.max.message.bytes}) is taken up by a restarted daemon, which starts the capture
 * again: the capture stops again on the same change, and the workflow is hosted all the same, its
 * status and the daemon's health naming the capture's error, and its actions answering with it. A
 * daemon that refused the take-up showed the workflow only as "not taken up after a restart" and
 * answered every action with "try again later".
 *
 * <p>The daemons run in this JVM ({@link Daemon}) on the test cluster, with no configured shard:
 * the workflow's capture is one the daemon starts for it, so the {@code capture.*} setting reaches
 * it only through the daemon's capture registry.
 */
@ExtendWith(LocalClusterExtension.class)
class StoppedCaptureRestartIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "restart-token-0123456789";

  @Test
  void aWorkflowWhoseCaptureStoppedIsTakenUpAfterARestartShowingWhy(TestCluster cluster)
      throws Exception {
    String ks = cluster.database();
    List<ShardAssignment> v1 = SplitFixture.prepare(cluster, ks);
    cluster.execute(
        cluster.shards().get(3),
        "CREATE TABLE big (id BIGINT PRIMARY KEY, b LONGTEXT) ENGINE=InnoDB",
        "INSERT INTO messages VALUES (1, " + SplitFixture.channelIn("c0-") + ", 'one')");
    String vschema =
        """
        {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
         "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]},
                    "big": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}
        """;
    try (ShardMapPublisher p =
        ShardMapPublisher.open(
            ShardMapTopicConfig.builder()
                .bootstrapServers(cluster.bootstrap())
                .topic(cluster.topicPrefix() + ".shardmaps")
                .build(),
            ks)) {
      p.publish(ShardMap.first(ks, VSchema.parse(vschema), v1));
    }
    Daemon first = daemon(cluster);
    first.start();
    try {
      post(first, "create", "keyspace=" + ks + "&source=c0-&targets=c0-e0,e0-");
      awaitWorkflow(first, w -> "RUNNING".equals(w.path("state").asText()));
      // a change the workflow's capture may not publish: 2 MB, its limit 1 MiB
      cluster.execute(cluster.shards().get(3), "INSERT INTO big VALUES (1, REPEAT('x', 2000000))");
      awaitHealth(first, h -> h.contains("the capture of shard c0- has stopped"));
    } finally {
      first.stop();
      first.awaitStopped();
    }

    Daemon second = daemon(cluster);
    second.start();
    try {
      String health = awaitHealth(second, h -> h.contains("the capture of shard c0- has stopped"));
      assertTrue(health.contains("max.message.bytes"), health);
      assertFalse(health.contains("not taken up"), health);
      JsonNode w = workflow(second);
      assertEquals("RUNNING", w.path("state").asText(), w.toString());
      // hosted: an action is answered by the workflow itself, naming the stopped capture
      HttpResponse<String> diff = post(second, "diff", "");
      assertFalse(diff.body().contains("has not taken it up"), diff.body());
      assertTrue(diff.body().contains("the capture of shard c0- has stopped"), diff.body());
    } finally {
      second.stop();
      second.awaitStopped();
    }
  }

  private static Daemon daemon(TestCluster cluster) {
    DaemonConfig config =
        DaemonConfig.forCluster(
            cluster.descriptor(),
            null,
            null,
            List.of(
                "topic.prefix=" + cluster.topicPrefix(),
                "workflows.topic=" + cluster.topicPrefix() + ".workflows",
                "shardmaps.topic=" + cluster.topicPrefix() + ".shardmaps",
                "admin.token=" + TOKEN,
                "capture.topic.max.message.bytes=1048588"));
    return Daemon.builder(config)
        .workflows(ServerDirectory.forCluster(cluster.descriptor()))
        .build();
  }

  private static HttpResponse<String> post(Daemon d, String action, String query) throws Exception {
    URI uri =
        d.adminEndpoint()
            .resolve(
                "/workflows/restarted/actions/" + action + (query.isEmpty() ? "" : "?" + query));
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(uri)
                .header("Authorization", "Bearer " + TOKEN)
                .timeout(Duration.ofMinutes(3))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  private static String get(Daemon d, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(d.adminEndpoint().resolve(path))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static JsonNode workflow(Daemon d) throws Exception {
    return JSON.readTree(get(d, "/workflows/restarted"));
  }

  private static void awaitWorkflow(Daemon d, Predicate<JsonNode> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    JsonNode w = workflow(d);
    while (!done.test(w)) {
      assertTrue(System.nanoTime() < deadline, "workflow: " + w);
      Thread.sleep(200);
      w = workflow(d);
    }
  }

  private static String awaitHealth(Daemon d, Predicate<String> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    String h = get(d, "/health");
    while (!done.test(h)) {
      assertTrue(System.nanoTime() < deadline, "health: " + h);
      Thread.sleep(200);
      h = get(d, "/health");
    }
    return h;
  }
}
