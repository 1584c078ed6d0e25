package io.reshard.system;

import static io.reshard.system.ReshardLauncherIT.reshard;
import static io.reshard.system.ReshardLauncherIT.reshardWithEnv;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.StaticShardMapSource;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The operator's reshard, through the CLI and the daemon only, as separate processes: {@code
 * keyspace init}, {@code workflow create/status/diff/switch-traffic/reverse-traffic/complete/
 * cancel}, {@code shardmap show|history}, with {@code --output json}; refusals and exit codes; a
 * router that never refreshes its map; and the daemon killed at every phase boundary (failpoints
 * that halt it as kill -9 would, plus one real kill -9 during the copy) of a workflow of two
 * sources onto two other ranges ({@code 40-80,80-c0} onto {@code 40-90,90-c0}), restarted, and the
 * workflow finished with a clean diff and every acknowledged row exactly once.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkflowCliIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");

  private final TestCluster cluster;
  private final Path dir;
  private final String ks;
  private final Path vschema;
  private final CliSession ops;

  WorkflowCliIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
    this.dir = cluster.dir();
    this.ks = cluster.database();
    this.vschema = Files.createTempFile("vschema", ".json");
    Files.writeString(vschema, SplitLifecycleIT.VSCHEMA, StandardCharsets.UTF_8);
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(
          s,
          "CREATE TABLE IF NOT EXISTS messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB");
    }
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP TABLE messages"); // workflows create the targets' tables
    }
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    reshard("daemon", "stop", "--cluster", dir.toString());
    Files.deleteIfExists(vschema);
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(s, "SET GLOBAL read_only = OFF");
    }
  }

  @Test
  @Order(1)
  void theWholeLifecycleThroughTheCli() throws Exception {
    startDaemon(Map.of());
    Run noMap =
        cli(
            "workflow",
            "create",
            "--keyspace",
            ks,
            "--source",
            "c0-",
            "--targets=c0-e0,e0-",
            "early");
    assertEquals(3, noMap.exit(), noMap.err());
    assertTrue(noMap.err().contains("keyspace init"), noMap.err());

    Run init =
        cli(
            "keyspace",
            "init",
            "--keyspace",
            ks,
            "--vschema",
            vschema.toString(),
            "--shards=" + String.join(",", SHARDS),
            "--output",
            "json");
    assertEquals(0, init.exit(), init.err());
    assertEquals(1, JSON.readTree(init.out()).get("version").asLong());
    Run again =
        cli(
            "keyspace",
            "init",
            "--keyspace",
            ks,
            "--vschema",
            vschema.toString(),
            "--shards=" + String.join(",", SHARDS));
    assertEquals(3, again.exit(), "a second init is refused: " + again.err());

    Map<Long, Long> rows = load(6000, 1);
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(topic(), ks);
        Router router = Router.create(maps, endpoints(), RouterConfig.defaults());
        Router stale =
            Router.create(
                StaticShardMapSource.of(maps.current()),
                endpoints(),
                RouterConfig.builder()
                    .bufferWindow(Duration.ofMillis(200))
                    .maxAttempts(2)
                    .build())) {
      SplitLifecycleIT.Traffic traffic = new SplitLifecycleIT.Traffic(router, new Random(11));
      traffic.expected.putAll(rows);
      traffic.nextId = 1_000_000;
      CompletableFuture<Void> writer = CompletableFuture.runAsync(traffic::run);
      try {
        Run badRanges =
            cli(
                "workflow",
                "create",
                "--keyspace",
                ks,
                "--source",
                "c0-",
                "--targets=c0-e0,f0-",
                "bad");
        assertEquals(3, badRanges.exit(), badRanges.err());
        assertTrue(badRanges.err().contains("contiguous"), badRanges.err());

        Run created =
            cli(
                "workflow",
                "create",
                "--keyspace",
                ks,
                "--source",
                "c0-",
                "--targets=c0-e0,e0-",
                "split",
                "--output",
                "json");
        assertEquals(0, created.exit(), created.err());
        assertEquals("DONE", JSON.readTree(created.out()).get("outcome").asText());

        Run sameSource =
            cli(
                "workflow",
                "create",
                "--keyspace",
                ks,
                "--source",
                "c0-",
                "--targets=c0-e0,e0-",
                "again");
        assertEquals(3, sameSource.exit(), sameSource.err());
        assertTrue(sameSource.err().contains("already in workflow split"), sameSource.err());
        Run sharedServer =
            cli(
                "workflow",
                "create",
                "--keyspace",
                ks,
                "--source",
                "-40",
                "--targets=-20,20-40",
                "--target-servers=db5,db5",
                "shared");
        assertEquals(3, sharedServer.exit(), sharedServer.err());
        assertTrue(sharedServer.err().contains("named for two targets"), sharedServer.err());
        Run whileCopying = cli("workflow", "switch-traffic", "split", "--writes");
        assertEquals(3, whileCopying.exit(), whileCopying.err());
        assertTrue(
            whileCopying.err().contains("copying") || whileCopying.err().contains("no diff"),
            whileCopying.err());

        JsonNode status = awaitState("split", "RUNNING");
        for (String field :
            List.of("name", "state", "copy_done", "max_lag_ms", "last_error", "streams")) {
          assertTrue(status.has(field), field + " in " + status);
        }
        assertTrue(status.get("copy_done").asBoolean());
        assertEquals(2, status.get("streams").size());
        for (JsonNode s : status.get("streams")) {
          assertEquals("c0-", s.get("source").asText());
          assertTrue(s.get("position").size() > 0, s.toString());
        }
        Run noDiff = cli("workflow", "switch-traffic", "split", "--writes");
        assertEquals(3, noDiff.exit(), noDiff.err());
        assertTrue(noDiff.err().contains("no diff has run"), noDiff.err());
        Run nothingToResume = cli("workflow", "resume", "split");
        assertEquals(3, nothingToResume.exit(), nothingToResume.err());
        assertTrue(nothingToResume.err().contains("nothing is stopped"), nothingToResume.err());

        assertClean(diff("split"));

        // a changed column on a target: the diff names it, exit 4, and the switch is refused
        ClusterDescriptor.Server e0 = cluster.spares().get(1);
        long victim = anyRowOn(e0);
        // the writer must not change the victim on the source while it is tampered with here:
        // its next write to it would flow to the target and undo the tampering before the diff
        Long victimChannel = holdBack(traffic, victim);
        cluster.execute(e0, "UPDATE messages SET body = 'tampered' WHERE id = " + victim);
        Run dirty = cli("workflow", "diff", "split", "--output", "json");
        assertEquals(4, dirty.exit(), dirty.err());
        JsonNode report = JSON.readTree(dirty.out());
        assertFalse(report.get("clean").asBoolean());
        long mismatched = 0;
        for (JsonNode t : report.get("tables")) {
          for (String f :
              List.of(
                  "table", "compared", "matching", "mismatched", "extra_source", "extra_target")) {
            assertTrue(t.has(f), f + " in " + t);
          }
          mismatched += t.get("mismatched").asLong();
        }
        assertEquals(1, mismatched, dirty.out());
        Run refused = cli("workflow", "switch-traffic", "split", "--writes");
        assertEquals(3, refused.exit(), refused.err());
        assertTrue(refused.err().contains("differences"), refused.err());
        // and a row only the target has: the repair writes the source's row over the changed one,
        // deletes the extra one, and the diff after it is clean
        cluster.execute(e0, "INSERT INTO messages VALUES (9999999, 1, 'extra')");
        Run repaired = cli("workflow", "diff", "split", "--repair", "--output", "json");
        assertEquals(0, repaired.exit(), repaired.err());
        JsonNode fix = JSON.readTree(repaired.out());
        assertTrue(fix.get("clean").asBoolean(), repaired.out());
        assertEquals(2, fix.get("rows_repaired").asLong(), repaired.out());
        assertFalse(fix.get("repaired").get("clean").asBoolean(), repaired.out());
        assertEquals(body(cluster.shards().get(3), victim), body(e0, victim));
        assertNull(body(e0, 9999999));
        assertClean(diff("split"));
        if (victimChannel != null) {
          traffic.expected.put(victim, victimChannel); // the writer may change it again
        }

        Run dry = cli("workflow", "switch-traffic", "split", "--writes", "--dry-run");
        assertEquals(0, dry.exit(), dry.err());
        assertTrue(dry.out().contains("journal"), dry.out());
        assertEquals(0, cli("workflow", "switch-traffic", "split", "--reads").exit());
        Run switched =
            cli(
                "workflow",
                "switch-traffic",
                "split",
                "--writes",
                "--timeout",
                "30s",
                "--output",
                "json");
        assertEquals(0, switched.exit(), switched.err());
        assertEquals(
            "WRITES_SWITCHED",
            JSON.readTree(switched.out()).get("workflow_status").get("state").asText());
        Run noDiffNow = cli("workflow", "diff", "split");
        assertEquals(3, noDiffNow.exit(), noDiffNow.err());
        assertTrue(noDiffNow.err().contains("no longer run"), noDiffNow.err());

        // the router that never refreshes: every write it sends to the old owner is refused
        int refusedWrites = 0;
        int accepted = 0;
        for (long ch : traffic.movingChannels.subList(0, 20)) {
          try {
            long id = 5_000_000 + ch;
            stale.inTransaction(
                tx ->
                    tx.update(
                        "messages", ch, "INSERT INTO messages VALUES (?, ?, 'stale')", id, ch));
            accepted++;
          } catch (RuntimeException e) {
            refusedWrites++;
          }
        }
        System.err.printf(
            "[workflow-cli] stale router: %d writes refused, %d accepted%n",
            refusedWrites, accepted);
        assertEquals(0, accepted, "a stale router's write was accepted by the old owner");
        assertEquals(20, refusedWrites);

        Run cancel = cli("workflow", "cancel", "split");
        assertEquals(3, cancel.exit(), cancel.err());
        assertTrue(cancel.err().contains("after a write switch"), cancel.err());

        JsonNode shown =
            JSON.readTree(cli("shardmap", "show", "--keyspace", ks, "--output", "json").out());
        assertTrue(
            CliSession.servesWrites(shown, "c0-e0")
                && CliSession.servesWrites(shown, "e0-")
                && !CliSession.servesWrites(shown, "c0-"),
            shown.toString());

        assertEquals(0, cli("workflow", "reverse-traffic", "split").exit());
        assertClean(diff("split"));
        assertEquals(0, cli("workflow", "switch-traffic", "split", "--writes").exit());
        Thread.sleep(500);
        Run complete = cli("workflow", "complete", "split");
        assertEquals(0, complete.exit(), complete.err());
        assertEquals("COMPLETED", status("split").get("state").asText());
        JsonNode history =
            JSON.readTree(cli("shardmap", "history", "--keyspace", ks, "--output", "json").out());
        assertTrue(history.size() >= 6, history.toString());
      } finally {
        traffic.stop.set(true);
        writer.get();
      }
      System.err.printf(
          "[workflow-cli] writer: %d ops, %d errors; longest gap between acknowledged writes on c0-: %d ms%n",
          traffic.ops.get(), traffic.writeErrors.get(), traffic.longestGapMillis());
      assertEquals(0, traffic.writeErrors.get(), "writes failed: " + traffic.firstError);
      Thread.sleep(500);
      SplitLifecycleIT.assertEveryRowOnceOnItsShard(cluster, maps.current(), traffic.expected);
    }
  }

  /**
   * One workflow of two sources walked through every phase, the daemon halted at each boundary (as
   * kill -9 would leave it) and started again; then a clean diff, and every acknowledged insert
   * exactly once.
   */
  @Test
  @Order(2)
  @LongRun
  void theDaemonKilledAtEveryPhaseBoundaryFinishesTheWorkflow() throws Exception {
    String ks2 = ks + "_k";
    // two sources onto two targets of other cut points: 40-90 reads both sources, 90-c0 one
    String src = "40-80,80-c0";
    String targets = "--targets=40-90,90-c0";
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      sql(s, "", "CREATE DATABASE IF NOT EXISTS " + ks2);
      if (s.role().equals("shard")) {
        sql(
            s,
            ks2,
            "CREATE TABLE IF NOT EXISTS messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL, body VARCHAR(100)) ENGINE=InnoDB");
      }
    }
    for (int i = 1; i <= 2; i++) {
      Inserter probe = new Inserter(null, KeyRange.parse(i == 1 ? "40-80" : "80-c0"));
      StringBuilder channels = new StringBuilder();
      for (long ch : probe.channels) {
        channels.append(channels.length() == 0 ? "" : ", ").append(ch);
      }
      sql(
          cluster.shards().get(i),
          ks2,
          "INSERT INTO messages SELECT seq, ELT(1 + seq % "
              + probe.channels.size()
              + ", "
              + channels
              + "), CONCAT('m', seq) FROM seq_"
              + (i == 1 ? "1_to_30000" : "30001_to_60000"));
    }
    Run init =
        cli(
            "keyspace",
            "init",
            "--keyspace",
            ks2,
            "--vschema",
            vschema.toString(),
            "--shards=" + String.join(",", SHARDS));
    assertEquals(0, init.exit(), init.err());
    String name = "crashy";
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(topic(), ks2);
        Router router = Router.create(maps, endpoints(), RouterConfig.defaults())) {
      Inserter inserter = new Inserter(router, KeyRange.parse("40-c0"));
      CompletableFuture<Void> writer = CompletableFuture.runAsync(inserter::run);
      try {
        // 1: halted right after the record is stored, before the streams start
        startDaemon(Map.of("RESHARD_FAILPOINT", "state:CREATED"));
        Run unknown =
            cli(
                "workflow",
                "create",
                "--keyspace",
                ks2,
                "--source",
                src,
                targets,
                "--target-servers=db5,db-none",
                name);
        assertEquals(
            2, unknown.exit(), "an unknown target server is a usage error: " + unknown.err());
        Run created = cli("workflow", "create", "--keyspace", ks2, "--source", src, targets, name);
        assertNotEquals(0, created.exit(), "the daemon died inside create: " + created.err());
        awaitDaemonGone();
        // 2: taken up in CREATED, the copy starts; halted when it records COPYING
        crashAt("state:COPYING");
        // 3: taken up in COPYING, the copy resumes; a real kill -9 in the middle of it
        startDaemon(Map.of());
        ops.killDuringCopy(name);
        // 4: the copy resumes again; halted when it is done
        crashAt("state:RUNNING");
        startDaemon(Map.of());
        assertEquals("RUNNING", awaitSettled(name).get("state").asText());
        awaitCaughtUp(name);
        assertClean(diff(name));
        // 5: halted in the fenced window: after a restart the switch is rolled back
        startDaemon(Map.of("RESHARD_FAILPOINT", "state:SWITCHING_WRITES"));
        awaitCaughtUp(name);
        assertNotEquals(0, cli("workflow", "switch-traffic", name, "--writes").exit());
        awaitDaemonGone();
        startDaemon(Map.of());
        assertEquals("RUNNING", awaitSettled(name).get("state").asText(), "rolled back");
        assertFalse(
            SplitLifecycleIT.readOnly(cluster.shards().get(1)), "the sources are writable again");
        assertFalse(SplitLifecycleIT.readOnly(cluster.shards().get(2)), "both of them");
        // 6: halted right after the journal record, then at each step before the map is out
        startDaemon(Map.of("RESHARD_FAILPOINT", "state:WRITES_SWITCHED"));
        awaitCaughtUp(name);
        assertNotEquals(0, cli("workflow", "switch-traffic", name, "--writes").exit());
        awaitDaemonGone();
        for (String point :
            List.of("switch:reverse-started", "switch:targets-open", "switch:published")) {
          crashAt(point); // taking up the journal reaches the point
        }
        startDaemon(Map.of());
        assertEquals("WRITES_SWITCHED", awaitSettled(name).get("state").asText());
        JsonNode map =
            JSON.readTree(cli("shardmap", "show", "--keyspace", ks2, "--output", "json").out());
        assertTrue(
            CliSession.servesWrites(map, "40-90")
                && CliSession.servesWrites(map, "90-c0")
                && !CliSession.servesWrites(map, "40-80")
                && !CliSession.servesWrites(map, "80-c0"),
            map.toString());
        // 7: reverse traffic halted before its journal (rolled back), then after it
        startDaemon(Map.of("RESHARD_FAILPOINT", "state:REVERSING"));
        assertNotEquals(0, cli("workflow", "reverse-traffic", name).exit());
        awaitDaemonGone();
        startDaemon(Map.of("RESHARD_FAILPOINT", "reverse:journal"));
        assertEquals("WRITES_SWITCHED", awaitSettled(name).get("state").asText(), "rolled back");
        assertNotEquals(0, cli("workflow", "reverse-traffic", name).exit());
        awaitDaemonGone();
        for (String point : List.of("reverse:forward-started", "reverse:published")) {
          crashAt(point);
        }
        startDaemon(Map.of());
        assertEquals("RUNNING", awaitSettled(name).get("state").asText());
        awaitCaughtUp(name);
        assertClean(diff(name));
        assertEquals(0, cli("workflow", "switch-traffic", name, "--writes").exit());
        assertEquals(0, cli("workflow", "complete", name).exit());
      } finally {
        inserter.stop.set(true);
        writer.get();
      }
      System.err.printf(
          "[workflow-cli] crash walk: %d inserts acknowledged, %d failed while the daemon was down%n",
          inserter.acked.size(), inserter.failed.get());
      Thread.sleep(500);
      ops.assertAckedOnce(ks2, maps.current(), inserter.acked);
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  private void crashAt(String point) throws Exception {
    startDaemon(Map.of("RESHARD_FAILPOINT", point));
    awaitDaemonGone();
  }

  private void awaitCaughtUp(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JsonNode w = ops.adminGet("/workflows/" + name);
      if (w.path("hosted").asBoolean(false) && w.path("max_lag_ms").asLong(Long.MAX_VALUE) < 1000) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the streams did not catch up: " + w);
      Thread.sleep(200);
    }
  }

  private void sql(ClusterDescriptor.Server s, String db, String statement) throws Exception {
    try (Connection c = java.sql.DriverManager.getConnection(s.jdbcUrl(db), s.user(), "");
        Statement st = c.createStatement()) {
      st.execute(statement);
    }
  }

  /** Starts the cluster's daemon (stopping one that runs), with {@code env} (a failpoint). */
  private void startDaemon(Map<String, String> env) throws Exception {
    if (ClusterDaemon.running(dir).isPresent()) {
      reshard("daemon", "stop", "--cluster", dir.toString());
    }
    Run r =
        reshardWithEnv(
            env,
            "daemon",
            "--cluster",
            dir.toString(),
            "--set",
            "topic.prefix=" + cluster.topicPrefix(),
            "--set",
            "workflows.topic=" + cluster.topicPrefix() + ".workflows",
            "--set",
            // the keyspace stream has its own test (KeyspaceStreamIT); its captures of every shard
            // would only slow this one down
            "keyspace.stream.enabled=false",
            "--background");
    // a daemon armed with a failpoint may die while taking up a workflow, even before it answers
    if (env.isEmpty()) {
      assertEquals(0, r.exit(), r.out() + r.err());
    }
  }

  private void awaitDaemonGone() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (ClusterDaemon.running(dir).isPresent()) {
      assertTrue(System.nanoTime() < deadline, "the daemon did not halt at its failpoint");
      Thread.sleep(100);
    }
  }

  private Run cli(String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    int at =
        a.get(0).equals("workflow") || a.get(0).equals("keyspace") || a.get(0).equals("shardmap")
            ? 2
            : 1;
    a.add(at, "--cluster=" + dir);
    return reshard(a.toArray(String[]::new));
  }

  private JsonNode status(String name) throws Exception {
    Run r = cli("workflow", "status", name, "--output", "json");
    assertEquals(0, r.exit(), r.err());
    return JSON.readTree(r.out());
  }

  private JsonNode awaitState(String name, String state) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      JsonNode w = status(name);
      if (w.get("state").asText().equals(state)) {
        return w;
      }
      assertTrue(
          System.nanoTime() < deadline, "workflow " + name + " never reached " + state + ": " + w);
      Thread.sleep(300);
    }
  }

  /** The status once the daemon has taken the workflow up. */
  private JsonNode awaitSettled(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JsonNode w = ops.adminGet("/workflows/" + name);
      if (w.path("hosted").asBoolean(false)) {
        return w;
      }
      assertTrue(System.nanoTime() < deadline, "workflow " + name + " was not taken up: " + w);
      Thread.sleep(300);
    }
  }

  private JsonNode diff(String name) throws Exception {
    Run r = cli("workflow", "diff", name, "--output", "json");
    assertTrue(r.exit() == 0 || r.exit() == 4, r.out() + r.err());
    return JSON.readTree(r.out());
  }

  private static void assertClean(JsonNode report) {
    assertTrue(report.get("clean").asBoolean(), report.toString());
  }

  private ShardMapTopicConfig topic() {
    return ShardMapTopicConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .topic(ShardMapTopic.DEFAULT_NAME)
        .build();
  }

  private EndpointResolver endpoints() {
    Map<String, JdbcEndpoint> m = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      m.put(
          s.name(),
          new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), ""));
    }
    return EndpointResolver.of(m);
  }

  /**
   * Inserts {@code n} rows with plain SQL, each on the shard of its channel; returns id -> channel.
   */
  private Map<Long, Long> load(int n, long firstId) throws Exception {
    Map<Long, Long> rows = new HashMap<>();
    Map<Integer, List<long[]>> byShard = new HashMap<>();
    Random r = new Random(3);
    for (int i = 0; i < n; i++) {
      long ch = 1 + r.nextInt(400);
      long id = firstId + i;
      rows.put(id, ch);
      for (int s = 0; s < SHARDS.size(); s++) {
        if (KeyRange.parse(SHARDS.get(s)).contains(HASH.keyspaceId(ch))) {
          byShard.computeIfAbsent(s, k -> new ArrayList<>()).add(new long[] {id, ch});
        }
      }
    }
    for (Map.Entry<Integer, List<long[]>> e : byShard.entrySet()) {
      try (Connection c = cluster.connect(cluster.shards().get(e.getKey()));
          PreparedStatement ps = c.prepareStatement("INSERT INTO messages VALUES (?, ?, ?)")) {
        for (long[] row : e.getValue()) {
          ps.setLong(1, row[0]);
          ps.setLong(2, row[1]);
          ps.setString(3, "m" + row[0]);
          ps.addBatch();
        }
        ps.executeBatch();
      }
    }
    return rows;
  }

  /**
   * Takes row {@code id} out of the writer's rows and waits until an operation the writer may
   * already have begun on it has ended; returns its channel (null if the writer had deleted it).
   */
  private static Long holdBack(SplitLifecycleIT.Traffic traffic, long id) throws Exception {
    Long channel = traffic.expected.remove(id);
    int ops = traffic.ops.get();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (traffic.ops.get() < ops + 2 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return channel;
  }

  private long anyRowOn(ClusterDescriptor.Server s) throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id FROM messages ORDER BY id LIMIT 1")) {
      assertTrue(rs.next(), "no row on " + s.name());
      return rs.getLong(1);
    }
  }

  /** The body of row {@code id} on {@code s}, or null if it has no such row. */
  private String body(ClusterDescriptor.Server s, long id) throws Exception {
    try (Connection c = cluster.connect(s);
        PreparedStatement ps = c.prepareStatement("SELECT body FROM messages WHERE id = ?")) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getString(1) : null;
      }
    }
  }

  /** Inserts into the moving range through the router; remembers what was acknowledged. */
  static final class Inserter {
    final Router router;
    final List<Long> channels = new ArrayList<>();
    final Map<Long, Long> acked = new ConcurrentHashMap<>();
    final AtomicInteger failed = new AtomicInteger();
    final AtomicBoolean stop = new AtomicBoolean();

    Inserter(Router router, KeyRange moving) {
      this.router = router;
      for (long ch = 1; channels.size() < 30; ch++) {
        if (moving.contains(HASH.keyspaceId(ch))) {
          channels.add(ch);
        }
      }
    }

    void run() {
      long id = 9_000_000;
      Random r = new Random(17);
      while (!stop.get()) {
        long ch = channels.get(r.nextInt(channels.size()));
        long thisId = id++;
        try {
          router.inTransaction(
              tx ->
                  tx.update(
                      "messages", ch, "INSERT INTO messages VALUES (?, ?, 'crash')", thisId, ch));
          acked.put(thisId, ch);
        } catch (RuntimeException e) {
          failed.incrementAndGet();
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    }
  }
}
