package io.reshard.system;

import static io.reshard.system.ReshardLauncherIT.reshard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.TestCluster;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator's side of a whole-system test, through the launcher only: the daemon of the test
 * cluster (with the class's own topics), {@code reshard} commands with {@code --cluster}, and the
 * waits and checks every workflow test needs; plus what a router in the test needs to follow the
 * cluster's shard maps. One per test class.
 */
final class CliSession {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final TestCluster cluster;
  private final Path dir;
  private final List<Path> files = new ArrayList<>();

  CliSession(TestCluster cluster) {
    this.cluster = cluster;
    this.dir = cluster.dir();
  }

  /**
   * Starts the cluster's daemon in the background (stopping one that runs), with the class's topics
   * and the keys of {@code sets} ({@code KEY=VALUE}).
   */
  void startDaemon(String... sets) throws Exception {
    Run r = launchDaemon(Map.of(), sets);
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  /**
   * Starts the daemon as {@link #startDaemon} does, armed to halt when a step reaches {@code
   * failpoint} ({@code RESHARD_FAILPOINT}: {@code state:STATE} or a step's name, docs/workflow.md).
   * It may halt while taking up a workflow, even before it answers, so its start is not checked;
   * {@link #awaitDaemonHalted} waits for the halt.
   */
  void startDaemonHaltingAt(String failpoint, String... sets) throws Exception {
    launchDaemon(Map.of("RESHARD_FAILPOINT", failpoint), sets);
  }

  /** Waits (at most 120 s) until the daemon is gone: halted at its failpoint. */
  void awaitDaemonHalted() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (ClusterDaemon.running(dir).isPresent()) {
      assertTrue(System.nanoTime() < deadline, "the daemon did not halt at its failpoint");
      Thread.sleep(100);
    }
  }

  /** Waits (at most 180 s) until workflow {@code name} is in {@code state}; returns its status. */
  JsonNode awaitState(String name, String state) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      JsonNode w = status(name);
      if (w.path("state").asText().equals(state)) {
        return w;
      }
      assertTrue(System.nanoTime() < deadline, name + " never reached " + state + ": " + w);
      Thread.sleep(300);
    }
  }

  /** Waits (at most 120 s) until the daemon hosts {@code name} and its streams lag under 1 s. */
  void awaitCaughtUp(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JsonNode w = status(name);
      if (w.path("hosted").asBoolean(false) && w.path("max_lag_ms").asLong(Long.MAX_VALUE) < 1000) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the streams did not catch up: " + w);
      Thread.sleep(300);
    }
  }

  private Run launchDaemon(Map<String, String> env, String... sets) throws Exception {
    if (ClusterDaemon.running(dir).isPresent()) {
      stopDaemon();
    }
    List<String> args =
        new ArrayList<>(
            List.of(
                "daemon",
                "--cluster",
                dir.toString(),
                "--set",
                "topic.prefix=" + cluster.topicPrefix(),
                "--set",
                "workflows.topic=" + cluster.topicPrefix() + ".workflows",
                "--background"));
    for (String set : sets) {
      args.add("--set");
      args.add(set);
    }
    return ReshardLauncherIT.reshardWithEnv(env, args.toArray(String[]::new));
  }

  /** Kills the daemon with SIGKILL (no shutdown hook runs) and waits until it is gone. */
  void killDaemon() throws Exception {
    long pid = ClusterDaemon.running(dir).orElseThrow().pid();
    ProcessHandle p = ProcessHandle.of(pid).orElseThrow();
    p.destroyForcibly();
    p.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
  }

  /** Stops the daemon and deletes the files {@link #file} wrote. */
  void close() throws Exception {
    stopDaemon();
    for (Path f : files) {
      Files.deleteIfExists(f);
    }
  }

  private void stopDaemon() throws Exception {
    reshard("daemon", "stop", "--cluster", dir.toString());
  }

  /** {@code reshard VERB SUBVERB --cluster=DIR ARGS...}. */
  Run cli(String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    a.add(2, "--cluster=" + dir);
    return reshard(a.toArray(String[]::new));
  }

  /** {@code reshard VERB --cluster=DIR ARGS...}, for a verb without subverbs ({@code plan}). */
  Run verb(String verb, String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of(verb, "--cluster=" + dir));
    a.addAll(List.of(args));
    return reshard(a.toArray(String[]::new));
  }

  /**
   * {@code keyspace init} of {@code keyspace} with the vschema {@code vschemaJson} and {@code args}
   * ({@code --shards=...}, {@code --servers=...}); asserts that it published.
   */
  void initKeyspace(String keyspace, String vschemaJson, String... args) throws Exception {
    List<String> a =
        new ArrayList<>(
            List.of("keyspace", "init", "--keyspace", keyspace, "--vschema", file(vschemaJson)));
    a.addAll(List.of(args));
    Run r = cli(a.toArray(String[]::new));
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  /** A temporary file holding {@code text} (a vschema), deleted by {@link #close}. */
  String file(String text) throws Exception {
    Path f = Files.createTempFile("vschema", ".json");
    Files.writeString(f, text, StandardCharsets.UTF_8);
    files.add(f);
    return f.toString();
  }

  /** {@code workflow status NAME --output json}. */
  JsonNode status(String name) throws Exception {
    Run r = cli("workflow", "status", name, "--output", "json");
    assertEquals(0, r.exit(), r.err());
    return JSON.readTree(r.out());
  }

  /** Waits (at most 180 s) until the copy is done; returns the status that said so. */
  JsonNode awaitCopyDone(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      JsonNode w = status(name);
      if (w.path("copy_done").asBoolean(false)) {
        return w;
      }
      assertTrue(System.nanoTime() < deadline, "the copy did not finish: " + w);
      Thread.sleep(500);
    }
  }

  /** {@code workflow diff NAME --output json}: the report, clean or not. */
  JsonNode diff(String name) throws Exception {
    Run r = cli("workflow", "diff", name, "--output", "json");
    assertTrue(r.exit() == 0 || r.exit() == 4, r.out() + r.err());
    return JSON.readTree(r.out());
  }

  static void assertClean(JsonNode report) {
    assertTrue(report.get("clean").asBoolean(), report.toString());
  }

  /** A GET on the running daemon's admin endpoint (waiting up to 60 s for one), without a JVM. */
  JsonNode adminGet(String path) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (ClusterDaemon.running(dir).isEmpty()) {
      assertTrue(System.nanoTime() < deadline, "the daemon did not start");
      Thread.sleep(50);
    }
    String admin = ClusterDaemon.running(dir).orElseThrow().admin();
    HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(admin + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(r.body());
  }

  /** Kills the daemon with SIGKILL once workflow {@code name}'s copy has copied rows. */
  void killDuringCopy(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      JsonNode w = adminGet("/workflows/" + name);
      assertEquals("COPYING", w.path("state").asText(), "the copy ended before the kill: " + w);
      if (w.path("copy").path("rows_copied").asLong() > 0) {
        break;
      }
      assertTrue(System.nanoTime() < deadline, "the copy made no progress: " + w);
      Thread.sleep(20);
    }
    killDaemon();
  }

  /**
   * Whether shard {@code shard} serves writes in {@code map}, as {@code shardmap show} gives it.
   */
  static boolean servesWrites(JsonNode map, String shard) {
    for (JsonNode s : map.get("shards")) {
      if (s.get("name").asText().equals(shard)) {
        return s.get("serves_writes").asBoolean();
      }
    }
    return false;
  }

  /**
   * Every insert of {@code acked} (id -> channel, ids from 9,000,000 on, table {@code messages} of
   * database {@code db}, hash of the channel) exactly once, on the shard that serves its writes.
   */
  void assertAckedOnce(String db, ShardMap map, Map<Long, Long> acked) throws Exception {
    Map<Long, Integer> seen = new HashMap<>();
    for (var shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      try (Connection c = cluster.connect(server(shard.endpoint()));
          Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery(
                  "SELECT id, channel_id FROM `" + db + "`.messages WHERE id >= 9000000")) {
        while (rs.next()) {
          if (shard.range().contains(SplitLifecycleIT.HASH.keyspaceId(rs.getLong(2)))) {
            seen.merge(rs.getLong(1), 1, Integer::sum);
          }
        }
      }
    }
    List<Long> missing = new ArrayList<>();
    List<Long> duplicated = new ArrayList<>();
    for (Long id : acked.keySet()) {
      int n = seen.getOrDefault(id, 0);
      if (n == 0) {
        missing.add(id);
      } else if (n > 1) {
        duplicated.add(id);
      }
    }
    assertTrue(missing.isEmpty(), "acknowledged inserts missing: " + missing);
    assertTrue(duplicated.isEmpty(), "acknowledged inserts duplicated: " + duplicated);
  }

  /** The cluster's server named {@code name}. */
  ClusterDescriptor.Server server(String name) {
    return cluster.descriptor().mariadb().stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  /** The shard map topic the daemon publishes to. */
  ShardMapTopicConfig topic() {
    return ShardMapTopicConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .topic(ShardMapTopic.DEFAULT_NAME)
        .build();
  }

  /** Every server of the cluster, by the name the shard map uses. */
  EndpointResolver endpoints() {
    Map<String, JdbcEndpoint> m = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      m.put(s.name(), new JdbcEndpoint(s.jdbcUrl(""), s.user(), ""));
    }
    return EndpointResolver.of(m);
  }
}
