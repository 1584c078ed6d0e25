package io.reshard.system;

import static io.reshard.system.ReshardLauncherIT.reshard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.RecordKind;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.KeyRange;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
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
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A capture stopped by something in the binlog it cannot represent (one UPDATE logged with {@code
 * binlog_row_image = MINIMAL} inside a running workflow) has a documented way on, run here end to
 * end through the CLI and a separate daemon process: {@code workflow status} and {@code /health}
 * name it; {@code resume --skip-capture-stop} is refused while nothing is stopped, and once the
 * capture stopped skips it past the stop, with a gap record in the change topic; both traffic
 * switches are then refused (even forced) until {@code workflow diff --repair} writes the missed
 * changes to the targets and the diff is clean; after a daemon restart the capture does not skip
 * again; then writes switch.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaptureSkipIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"notes": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]}}}
      """;
  private static final String NAME = "skip1";

  private final TestCluster cluster;
  private final Path dir;
  private final String ks;
  private final ClusterDescriptor.Server source;

  CaptureSkipIT(TestCluster cluster) {
    this.cluster = cluster;
    this.dir = cluster.dir();
    this.ks = cluster.database();
    this.source = cluster.shards().get(3); // c0-
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    reshard("daemon", "stop", "--cluster", dir.toString());
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(s, "SET GLOBAL read_only = OFF");
    }
  }

  @Test
  void aCaptureStoppedOnARowImageThatIsNotFullIsSkippedRepairedAndSwitched() throws Exception {
    long lower = channelIn("c0-e0");
    long upper = channelIn("e0-");
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE TABLE notes (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB");
    }
    sql(source, "INSERT INTO notes VALUES (1, " + lower + ", 'a'), (2, " + upper + ", 'b')");
    Path vschema = Files.createTempFile("vschema", ".json");
    Files.writeString(vschema, VSCHEMA, StandardCharsets.UTF_8);
    startDaemon();
    Run init =
        cli(
            "keyspace",
            "init",
            "--keyspace",
            ks,
            "--vschema",
            vschema.toString(),
            "--shards=" + String.join(",", SHARDS));
    assertEquals(0, init.exit(), init.err());
    Files.delete(vschema);
    Run create =
        cli(
            "workflow",
            "create",
            "--keyspace",
            ks,
            "--source",
            "c0-",
            "--targets=c0-e0,e0-",
            NAME,
            "--wait");
    assertEquals(0, create.exit(), create.out() + create.err());
    // the last line says what is true after the wait, and the copy's last figures were drawn
    assertTrue(create.out().contains(NAME + ": copy done: "), create.out());
    assertTrue(create.out().contains("; state RUNNING;"), create.out());
    assertTrue(
        create
            .err()
            .lines()
            .anyMatch(l -> l.startsWith("copy " + NAME + ": ") && l.endsWith(", done")),
        create.err());
    awaitStatus(w -> "RUNNING".equals(w.path("state").asText()));

    // refused while nothing is stopped, and nothing changes
    Run early = cli("workflow", "resume", NAME, "--skip-capture-stop");
    assertEquals(3, early.exit(), early.out() + early.err());
    assertTrue(early.err().contains("nothing to skip"), early.err());
    assertTrue(status().path("capture_gap").isNull(), status().toString());

    // one UPDATE with a minimal row image stops the capture; an insert after it is not captured
    sql(
        source,
        "SET SESSION binlog_row_image = MINIMAL",
        "UPDATE notes SET body = 'missed' WHERE id = 1");
    sql(source, "INSERT INTO notes VALUES (3, " + upper + ", 'also missed')");
    JsonNode stopped = awaitStatus(w -> w.path("way_on").asText().contains("--skip-capture-stop"));
    assertTrue(stopped.toString().contains("is not full"), stopped.toString());
    JsonNode degraded = awaitHealth(h -> "degraded".equals(h.path("status").asText()));
    assertTrue(
        degraded.toString().contains("workflow resume " + NAME + " --skip-capture-stop"),
        degraded.toString());
    Run plain = cli("workflow", "resume", NAME);
    assertEquals(3, plain.exit(), plain.out() + plain.err());
    assertTrue(plain.err().contains("--skip-capture-stop"), plain.err());
    Run text = cli("workflow", "status", NAME);
    assertTrue(
        text.out().contains("way on:") && text.out().contains("--skip-capture-stop"), text.out());

    Run skip = cli("workflow", "resume", NAME, "--skip-capture-stop");
    assertEquals(0, skip.exit(), skip.out() + skip.err());
    assertTrue(skip.out().contains("skipped the changes after"), skip.out());
    List<ChangeRecord> gaps = gapRecords();
    assertEquals(1, gaps.size(), "one gap record");
    GtidPosition to = gaps.get(0).position().gtids();
    assertTrue(to.covers(sourcePosition()), "the gap reaches the source's position: " + to);
    assertTrue(gaps.get(0).value().path("reason").asText().contains("is not full"));

    // capture goes on: a change after the skip reaches its target
    sql(source, "INSERT INTO notes VALUES (4, " + lower + ", 'after')");
    ClusterDescriptor.Server lowerTarget = cluster.spares().get(0);
    ClusterDescriptor.Server upperTarget = cluster.spares().get(1);
    awaitRows(lowerTarget, "SELECT COUNT(*) FROM notes WHERE id = 4", 1);
    JsonNode gapped = status();
    assertTrue(gapped.path("capture_gap").asText().contains("c0-"), gapped.toString());
    assertTrue(gapped.path("way_on").asText().contains("--repair"), gapped.toString());
    JsonNode up = awaitHealth(h -> "up".equals(h.path("status").asText()));
    assertTrue(up.toString().contains("workflow diff " + NAME + " --repair"), up.toString());

    // a restart does not skip again: still one gap record once a new change is through
    reshard("daemon", "stop", "--cluster", dir.toString());
    startDaemon();
    awaitStatus(w -> "RUNNING".equals(w.path("state").asText()) && w.has("streams"));
    sql(source, "INSERT INTO notes VALUES (5, " + lower + ", 'after restart')");
    awaitRows(lowerTarget, "SELECT COUNT(*) FROM notes WHERE id = 5", 1);
    assertEquals(1, gapRecords().size(), "no second gap after a restart");

    // neither switch runs, not even forced, until a diff is clean again
    Run writes = cli("workflow", "switch-traffic", NAME, "--writes");
    assertEquals(3, writes.exit(), writes.out() + writes.err());
    // the daemon's hint, with this command's --cluster put in so that it can be pasted
    assertTrue(
        writes
            .err()
            .contains("`reshard workflow diff --cluster " + dir + " " + NAME + " --repair`"),
        writes.err());
    Run forced = cli("workflow", "switch-traffic", NAME, "--writes", "--force");
    assertEquals(3, forced.exit(), forced.out() + forced.err());
    Run reads = cli("workflow", "switch-traffic", NAME, "--reads");
    assertEquals(3, reads.exit(), reads.out() + reads.err());
    assertEquals("missed", text(source, "SELECT body FROM notes WHERE id = 1"));
    assertEquals("a", text(lowerTarget, "SELECT body FROM notes WHERE id = 1"), "missed on target");
    assertEquals(0, count(upperTarget, "SELECT COUNT(*) FROM notes WHERE id = 3"));

    Run repair = cli("workflow", "diff", NAME, "--repair", "--output", "json");
    assertEquals(0, repair.exit(), repair.out() + repair.err());
    JsonNode repaired = JSON.readTree(repair.out());
    assertTrue(repaired.path("clean").asBoolean(), repair.out());
    assertEquals(2, repaired.path("rows_repaired").asLong(), repair.out());
    assertEquals("missed", text(lowerTarget, "SELECT body FROM notes WHERE id = 1"));
    assertEquals(1, count(upperTarget, "SELECT COUNT(*) FROM notes WHERE id = 3"));
    JsonNode healed = status();
    assertTrue(healed.path("capture_gap").isNull(), healed.toString());
    assertFalse(healed.has("way_on"), healed.toString());

    Run switched = cli("workflow", "switch-traffic", NAME, "--writes");
    assertEquals(0, switched.exit(), switched.out() + switched.err());
    awaitStatus(w -> "WRITES_SWITCHED".equals(w.path("state").asText()));
  }

  // ---- the change topic -----------------------------------------------------------------------

  private List<ChangeRecord> gapRecords() {
    String topic = ChangeRecords.changeTopic(cluster.topicPrefix(), ks, "c0-");
    TopicPartition tp = new TopicPartition(topic, 0);
    List<ChangeRecord> gaps = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(ChangeRecords.consumerProperties(cluster.bootstrap(), null))) {
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      long end = c.endOffsets(List.of(tp)).get(tp);
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (c.position(tp) < end && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
          ChangeRecord rec = ChangeRecords.parse(r);
          if (rec.kind() == RecordKind.GAP) {
            gaps.add(rec);
          }
        }
      }
    }
    return gaps;
  }

  private GtidPosition sourcePosition() throws Exception {
    return GtidPosition.parse(text(source, "SELECT @@gtid_binlog_pos"));
  }

  private static long channelIn(String shard) {
    for (long ch = 1; ; ch++) {
      if (KeyRange.parse(shard).contains(HASH.keyspaceId(ch))) {
        return ch;
      }
    }
  }

  // ---- waiting --------------------------------------------------------------------------------

  private JsonNode awaitStatus(Predicate<JsonNode> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      JsonNode w = status();
      if (done.test(w)) {
        return w;
      }
      assertTrue(System.nanoTime() < deadline, "workflow " + NAME + " never got there: " + w);
      Thread.sleep(300);
    }
  }

  private JsonNode awaitHealth(Predicate<JsonNode> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    while (true) {
      JsonNode h = JSON.readTree(get("/health"));
      if (done.test(h)) {
        return h;
      }
      assertTrue(System.nanoTime() < deadline, "health never got there: " + h);
      Thread.sleep(300);
    }
  }

  private void awaitRows(ClusterDescriptor.Server s, String query, long expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (count(s, query) != expected) {
      assertTrue(System.nanoTime() < deadline, query + " never gave " + expected);
      Thread.sleep(200);
    }
  }

  // ---- the daemon, the CLI and SQL ------------------------------------------------------------

  private void startDaemon() throws Exception {
    if (ClusterDaemon.running(dir).isPresent()) {
      reshard("daemon", "stop", "--cluster", dir.toString());
    }
    Run r =
        reshard(
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
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  private JsonNode status() throws Exception {
    return JSON.readTree(get("/workflows/" + NAME));
  }

  /** A GET on the running daemon's admin endpoint; "{}" while it does not answer. */
  private String get(String path) throws Exception {
    String admin = ClusterDaemon.running(dir).orElseThrow().admin();
    try {
      return HttpClient.newHttpClient()
          .send(
              HttpRequest.newBuilder(URI.create(admin + path))
                  .timeout(Duration.ofSeconds(10))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (java.io.IOException e) {
      return "{}";
    }
  }

  private Run cli(String... args) throws Exception {
    List<String> a = new ArrayList<>(List.of(args));
    a.add(2, "--cluster=" + dir);
    return reshard(a.toArray(String[]::new));
  }

  /** Runs {@code statements} in one session, in order. */
  private void sql(ClusterDescriptor.Server s, String... statements) throws Exception {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(ks), s.user(), "");
        Statement st = c.createStatement()) {
      for (String statement : statements) {
        st.execute(statement);
      }
    }
  }

  private long count(ClusterDescriptor.Server s, String query) throws Exception {
    return Long.parseLong(text(s, query));
  }

  private String text(ClusterDescriptor.Server s, String query) throws Exception {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(ks), s.user(), "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      rs.next();
      return rs.getString(1);
    }
  }
}
