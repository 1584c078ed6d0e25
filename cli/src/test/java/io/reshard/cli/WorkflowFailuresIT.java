package io.reshard.cli;

import static io.reshard.cli.OutputJsonTest.failureDocument;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.FreePorts;
import io.reshard.router.KeyRange;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The workflow verbs' failures against the real daemon of a real cluster: with {@code --output
 * json} each is one {@code {"error", "exit_code"}} document (a copy that fails under {@code create
 * --wait}, a diff or an action on an unknown workflow, an unknown keyspace, Kafka down); a name
 * that cannot be a workflow's is a usage error that never reaches the daemon, and any name is
 * URL-encoded on the way; and Ctrl-C during {@code create --wait}, sent to a CLI process of its
 * own, says that the copy goes on in the daemon and exits 130 while the copy does go on.
 *
 * <p>The keyspace has two shards, {@code -80} on db1 and {@code 80-} on db2; workflows split {@code
 * 80-} onto the spares db3 and db4, one after the other, each cancelled at the end.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WorkflowFailuresIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final List<String> SHARDS = List.of("-80", "80-");
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]}}}
      """;
  private static final String TABLE =
      "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
          + " body VARCHAR(100)) ENGINE=InnoDB";
  private static final int ROWS = 2000;

  private final TestCluster cluster;
  private final Path dir;
  private final String ks;
  private final ClusterDescriptor.Server source;

  WorkflowFailuresIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.dir = cluster.dir().toAbsolutePath().normalize();
    this.ks = cluster.database();
    this.source = cluster.shards().get(1);
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(s, TABLE);
    }
    load();
    OutputJsonTest.Run daemon =
        OutputJsonTest.run(
            "daemon",
            "--cluster",
            dir.toString(),
            "--set",
            "topic.prefix=" + cluster.topicPrefix(),
            "--set",
            "workflows.topic=" + cluster.topicPrefix() + ".workflows",
            "--background");
    assertEquals(0, daemon.exitCode(), daemon.out() + daemon.err());
    Path vschema = Files.createTempFile("vschema", ".json");
    Files.writeString(vschema, VSCHEMA, StandardCharsets.UTF_8);
    OutputJsonTest.Run init =
        cli(
            "keyspace",
            "init",
            "--keyspace",
            ks,
            "--vschema",
            vschema.toString(),
            "--shards=" + String.join(",", SHARDS));
    Files.delete(vschema);
    assertEquals(0, init.exitCode(), init.err());
  }

  @AfterAll
  void stopTheDaemon() {
    ClusterDaemon.stop(dir);
  }

  /** {@code ROWS} rows, each on the shard its channel's keyspace id falls in. */
  private void load() throws Exception {
    for (int s = 0; s < SHARDS.size(); s++) {
      KeyRange range = KeyRange.parse(SHARDS.get(s));
      try (Connection c = cluster.connect(cluster.shards().get(s));
          PreparedStatement ps = c.prepareStatement("INSERT INTO messages VALUES (?, ?, ?)")) {
        for (long id = 1; id <= ROWS; id++) {
          long channel = id % 97;
          if (range.contains(HASH.keyspaceId(channel))) {
            ps.setLong(1, id);
            ps.setLong(2, channel);
            ps.setString(3, "m" + id);
            ps.addBatch();
          }
        }
        ps.executeBatch();
      }
    }
  }

  @Test
  @Order(1)
  void aNameThatCannotBeAWorkflowsNeverReachesTheDaemon() throws Exception {
    JsonNode before = admin().get("/workflows").body();
    for (String name : List.of("", "a/b", "two words", "café")) {
      OutputJsonTest.Run r = create(name, "--output", "json");
      assertEquals(ExitCodes.USAGE, r.exitCode(), "'" + name + "': " + r.err());
      assertTrue(r.err().contains("ASCII letters, digits"), r.err());
      assertFalse(r.err().contains("no such endpoint") || r.err().contains("Illegal character"));
      failureDocument(r);
    }
    assertEquals(before, admin().get("/workflows").body(), "no workflow was created");
  }

  @Test
  @Order(2)
  void anyNameIsUrlEncodedOnTheWayToTheDaemon() throws Exception {
    AdminClient admin = admin();
    AdminClient.Answer read = admin.workflow("café a/b?x=1");
    assertEquals(404, read.status(), read.body().toString());
    assertEquals("no workflow named café a/b?x=1", read.message());
    AdminClient.Answer act = admin.act("café a/b", "cancel", Map.of());
    assertEquals(ExitCodes.REFUSED, WorkflowAdmin.exitCode(act), act.body().toString());
    assertEquals("no workflow named café a/b", act.message());
  }

  @Test
  @Order(3)
  void aFailedDiffOrActionOrReadIsOneDocumentWithItsExitCode() throws Exception {
    for (String verb : List.of("diff", "cancel", "status", "resume")) {
      OutputJsonTest.Run r = cli("workflow", verb, "nosuch", "--output", "json");
      assertEquals(ExitCodes.REFUSED, r.exitCode(), verb + ": " + r.err());
      assertEquals("no workflow named nosuch", failureDocument(r).get("error").asText(), verb);
    }
    OutputJsonTest.Run keyspace =
        cli("shardmap", "show", "--keyspace", "nosuch", "--output", "json");
    assertEquals(ExitCodes.REFUSED, keyspace.exitCode(), keyspace.err());
    assertTrue(failureDocument(keyspace).get("error").asText().contains("has no shard map"));
  }

  @Test
  @Order(4)
  void kafkaDownIsRetryLaterAsOneDocument() throws Exception {
    Path cfg = Files.createTempFile("daemon", ".yaml");
    Files.writeString(
        cfg,
        "kafka.bootstrap.servers: 127.0.0.1:"
            + FreePorts.block(29992, 1)
            + "\nshards: [{keyspace: ks, shard: '-', host: h, user: u, server.id: 3}]\n");
    OutputJsonTest.Run r =
        OutputJsonTest.run(
            "shardmap", "show", "--config", cfg.toString(), "--keyspace", ks, "--output", "json");
    Files.delete(cfg);
    assertEquals(ExitCodes.RETRY_LATER, r.exitCode(), r.err());
    assertTrue(failureDocument(r).get("error").asText().contains("did not list its topics"));
  }

  @Test
  @Order(5)
  void aCopyThatFailsUnderCreateWaitIsOneDocument() throws Exception {
    // the first target's table refuses one row of the source: the copy stops on it
    ClusterDescriptor.Server firstTarget = cluster.spares().get(0);
    cluster.execute(
        firstTarget,
        "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
            + " body VARCHAR(100), CONSTRAINT no_poison CHECK (body <> 'poison')) ENGINE=InnoDB");
    long channel = channelIn(KeyRange.parse("80-c0"));
    cluster.execute(source, "INSERT INTO messages VALUES (999001, " + channel + ", 'poison')");
    try {
      OutputJsonTest.Run r = create("failcopy", "--wait", "--output", "json");
      assertEquals(ExitCodes.ERROR, r.exitCode(), r.err());
      String error = failureDocument(r).get("error").asText();
      assertTrue(error.startsWith("the copy of workflow failcopy failed: "), error);
      assertTrue(error.contains("no_poison"), "the daemon's reason: " + error);
      assertTrue(error.contains("reshard workflow status --cluster " + dir + " failcopy"), error);
    } finally {
      OutputJsonTest.Run cancel = cli("workflow", "cancel", "failcopy");
      assertEquals(0, cancel.exitCode(), cancel.err());
      cluster.execute(source, "DELETE FROM messages WHERE id = 999001");
      for (ClusterDescriptor.Server spare : cluster.spares()) {
        cluster.execute(spare, "DROP TABLE IF EXISTS messages");
      }
    }
  }

  @Test
  @Order(6)
  void ctrlCDuringCreateWaitSaysTheCopyGoesOnInTheDaemonAndExits130() throws Exception {
    String hint = "`reshard workflow status --cluster " + dir + " ctrlc`";
    // a row locked on the source holds the copy's first chunk: the copy cannot finish meanwhile
    try (Connection lock = cluster.connect(source);
        Statement st = lock.createStatement()) {
      lock.setAutoCommit(false);
      try (ResultSet rs =
          st.executeQuery("SELECT id FROM messages ORDER BY id LIMIT 1 FOR UPDATE")) {
        assertTrue(rs.next());
      }
      CliProcess p =
          CliProcess.start(
              "workflow",
              "create",
              "--cluster",
              dir.toString(),
              "--keyspace",
              ks,
              "--source",
              "80-",
              "--targets=80-c0,c0-",
              "ctrlc",
              "--wait",
              "--output",
              "json");
      awaitWaiting(p);
      p.interrupt();
      CliProcess.Run r = p.await(60);
      assertEquals(ExitCodes.INTERRUPTED, r.exit(), r.err());
      String said = "interrupted; the copy goes on in the daemon; watch it with " + hint;
      assertTrue(r.err().contains("workflow create: " + said), r.err());
      JsonNode doc = JSON.readTree(r.out());
      assertEquals(said, doc.get("error").asText(), r.out());
      assertEquals(ExitCodes.INTERRUPTED, doc.get("exit_code").asInt());
      assertEquals(1, r.out().strip().lines().count(), "one document: " + r.out());
      assertFalse(admin().workflow("ctrlc").body().path("copy_done").asBoolean(), "not done yet");
      lock.rollback();
    }
    JsonNode done = awaitCopyDone("ctrlc");
    assertEquals("RUNNING", done.get("state").asText(), done.toString());
    OutputJsonTest.Run cancel = cli("workflow", "cancel", "ctrlc");
    assertEquals(0, cancel.exitCode(), cancel.err());
  }

  /** Waits until {@code p} says the workflow is created and it waits for the copy. */
  private static void awaitWaiting(CliProcess p) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (!p.errSoFar().contains("created; waiting for its copy")) {
      assertTrue(p.isAlive(), "create ended early:\n" + p.errSoFar());
      assertTrue(System.nanoTime() < deadline, "create did not wait:\n" + p.errSoFar());
      Thread.sleep(100);
    }
  }

  private JsonNode awaitCopyDone(String name) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JsonNode w = admin().workflow(name).body();
      if (w.path("copy_done").asBoolean()) {
        return w;
      }
      assertTrue(System.nanoTime() < deadline, "the copy did not go on: " + w);
      Thread.sleep(300);
    }
  }

  /** A channel whose keyspace id falls in {@code range}. */
  private static long channelIn(KeyRange range) {
    long channel = 1;
    while (!range.contains(HASH.keyspaceId(channel))) {
      channel++;
    }
    return channel;
  }

  private OutputJsonTest.Run create(String name, String... more) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "workflow", "create", "--keyspace", ks, "--source", "80-", "--targets=80-c0,c0-"));
    args.addAll(List.of(more));
    args.add("--");
    args.add(name);
    return cli(args.toArray(String[]::new));
  }

  /** An in-process run of {@code reshard VERB [SUBVERB] --cluster DIR ARGS...}. */
  private OutputJsonTest.Run cli(String... args) {
    List<String> a = new java.util.ArrayList<>(List.of(args));
    a.add(2, "--cluster=" + dir);
    return OutputJsonTest.run(a.toArray(String[]::new));
  }

  /** A client of the cluster's daemon. */
  private AdminClient admin() throws Exception {
    ClusterDescriptor.DaemonProcess d = ClusterDaemon.running(dir).orElseThrow();
    String token = Files.readString(dir.resolve(DaemonCommand.TOKEN_FILE)).strip();
    return new AdminClient(URI.create(d.admin()), token);
  }
}
