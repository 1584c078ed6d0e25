package io.reshard.system;

import static io.reshard.system.ReshardLauncherIT.reshard;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.LocalCluster;
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
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The daemon heals by itself, without a restart or an operator, when a server or the broker that
 * went away comes back; a stop it cannot heal (a row whose sharding key no vindex maps) shows in
 * {@code /health} and {@code workflow status}, and {@code workflow resume} goes on once the row is
 * fixed, with nothing lost. The daemon and the CLI run as separate processes; faults are real: kill
 * -9 of the source server and of the broker, each restarted on its data as an operator's restart
 * policy would.
 *
 * <p>Each workflow splits {@code c0-} into {@code c0-e0} and {@code e0-} on the spares and is
 * cancelled once checked (the last one is switched and completed instead). The copy is held at a
 * chosen row by a transaction that locks it on the source, so that a fault lands in the middle of
 * the copy every time.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SelfHealingIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"notes": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]}}}
      """;
  private static final int ROWS = 2000;

  private final TestCluster cluster;
  private final Path dir;
  private final String ks;
  private final ClusterDescriptor.Server source;
  private final List<Long> ids = new ArrayList<>();

  /** The daemon's status page, open through every fault (its screenshots: StatusPageBrowser). */
  private StatusPageBrowser page;

  SelfHealingIT(TestCluster cluster) {
    this.cluster = cluster;
    this.dir = cluster.dir();
    this.ks = cluster.database();
    this.source = cluster.shards().get(3); // c0-
  }

  @BeforeAll
  void loadTheSourceAndStartTheDaemon() throws Exception {
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE TABLE notes (id BIGINT PRIMARY KEY, channel_id BIGINT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB");
    }
    try (Connection c = cluster.connect(source);
        PreparedStatement ps = c.prepareStatement("INSERT INTO notes VALUES (?, ?, ?)")) {
      long channel = 0;
      while (ids.size() < ROWS) {
        channel++;
        if (KeyRange.parse("c0-").contains(HASH.keyspaceId(channel))) {
          long id = ids.size() + 1;
          ids.add(id);
          ps.setLong(1, id);
          ps.setLong(2, channel);
          ps.setString(3, "n" + id);
          ps.addBatch();
        }
      }
      ps.executeBatch();
    }
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
    page = new StatusPageBrowser(ClusterDaemon.running(dir).orElseThrow().admin() + "/");
    page.await(
        "the keyspace's shard map",
        WAIT,
        p -> p.count(".keyspace[data-keyspace='" + ks + "'] tr[data-shard]") == 4);
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    if (page != null) {
      page.close();
    }
    reshard("daemon", "stop", "--cluster", dir.toString());
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(s, "SET GLOBAL read_only = OFF");
    }
  }

  /**
   * A test that failed before cancelling its workflow leaves the source shard held by it; the next
   * tests' creates would then fail for that alone. Cancel it, so that each failure shows once.
   */
  @AfterEach
  void cancelWhatAFailedTestLeft() throws Exception {
    for (String name : List.of("heal-source", "heal-broker")) {
      JsonNode w = JSON.readTree(get("/workflows/" + name));
      String state = w.path("state").asText();
      if (!state.isEmpty() && !state.equals("CANCELLED")) {
        cli("workflow", "cancel", name);
      }
    }
  }

  @Test
  @Order(1)
  void aSourceKilledInTheMiddleOfTheCopyIsPickedUpAgainWhenItAnswers() throws Exception {
    try (RowLock lock = new RowLock(source, ks, ids.get(ROWS / 2))) {
      create("heal-source");
      awaitCopyStalledAt(lock, "heal-source");
      page.await("the copy's first rows", WAIT, p -> shownRowsCopied("heal-source") > 0);
      long stalled = shownRowsCopied("heal-source");
      assertTrue(stalled > 0 && stalled < lock.id, "the page shows the copy at " + stalled);
      page.screenshot("1-copy-waits-on-a-locked-row");
      kill(serverPid(source.name()));
      // while the server is down the workflow cannot heal, so its error must show: capture's
      // alone is not enough (the copy may have retried and healed by the time a restart returns)
      awaitHealth(
          h -> {
            for (JsonNode svc : h.path("services")) {
              if (svc.path("name").asText().equals("workflows")) {
                return !svc.path("state").asText().equals("RUNNING")
                    && svc.path("detail").asText().contains("heal-source");
              }
            }
            return false;
          });
      LocalCluster.up(spec(), line -> System.err.println("[restart] " + line));
    } // the lock's session died with the server; closing it is a no-op
    awaitState("heal-source", "RUNNING");
    page.await(
        "heal-source running with every row copied",
        WAIT,
        p ->
            "RUNNING".equals(p.attribute(".workflow[data-name='heal-source']", "data-state"))
                && shownRowsCopied("heal-source") == ROWS);
    page.screenshot("2-copy-done-after-the-source-came-back");
    assertCopiedExactly("heal-source");
    awaitHealth(h -> "up".equals(h.path("status").asText()));
    cancel("heal-source");
  }

  @Test
  @Order(2)
  void aBrokerKilledBeforeTheCopyIsStoredAsDoneIsPickedUpAgainWhenItAnswers() throws Exception {
    try (RowLock lock = new RowLock(source, ks, ids.get(ROWS - 10))) {
      create("heal-broker");
      awaitCopyStalledAt(lock, "heal-broker");
      kill(brokerPid());
      lock.close(); // the copy finishes its rows now, but cannot store that it is done
      awaitHealth(h -> "degraded".equals(h.path("status").asText()));
      page.await(
          "the daemon degraded, with the error",
          WAIT,
          p -> p.text("#health").equals("degraded") && p.count("#errors li.err") > 0);
      page.screenshot("3-broker-down");
      // capture cannot commit either: within 20 s its service says so, not RUNNING
      JsonNode stuck =
          awaitHealth(
              h -> {
                for (JsonNode svc : h.path("services")) {
                  if (svc.path("name").asText().equals("capture/" + ks + "/c0-")) {
                    return svc.path("state").asText().equals("RETRYING");
                  }
                }
                return false;
              });
      assertTrue(stuck.toString().contains("no commit to Kafka for"), stuck.toString());
      LocalCluster.up(spec(), line -> System.err.println("[restart] " + line));
    }
    awaitState("heal-broker", "RUNNING");
    // the streams stopped on the broker's absence too; the daemon starts them again first
    awaitHealth(h -> "up".equals(h.path("status").asText()));
    assertCopiedExactly("heal-broker");
    cancel("heal-broker");
  }

  @Test
  @Order(3)
  void aRowNoVindexMapsStopsTheCopyAndTheStreamUntilItIsFixedAndResumed() throws Exception {
    long bad = ROWS + 1;
    try (RowLock lock = new RowLock(source, ks, ids.get(ROWS / 2))) {
      create("heal-null");
      awaitCopyStalledAt(lock, "heal-null");
      // after P0, behind the copy's position: the stream sees it first, then the copy
      sql(source, "INSERT INTO notes VALUES (" + bad + ", NULL, 'no key')");
    }
    JsonNode stopped =
        awaitStatus(
            "heal-null", w -> w.path("copy_error").isTextual() && streamInError(w).isPresent());
    assertTrue(stopped.path("copy_error").asText().contains("notes"), stopped.toString());
    String streamError = streamInError(stopped).orElseThrow();
    assertTrue(streamError.contains("notes") && streamError.contains("id=" + bad), streamError);
    assertTrue(streamError.contains("GTID"), streamError);
    JsonNode health = awaitHealth(h -> "degraded".equals(h.path("status").asText()));
    assertTrue(health.toString().contains("workflow resume heal-null"), health.toString());
    page.await(
        "the copy's error and what to do",
        WAIT,
        p ->
            p.text("#errors").contains("workflow heal-null: copy failed: row {id=" + bad + "}")
                && p.text("#errors")
                    .contains(
                        "what to do: it waits for you: fix what it names, then run reshard"
                            + " workflow resume heal-null")
                && !p.text("#errors").contains("it retries by itself"));
    page.screenshot("4-a-row-no-vindex-maps");
    // a data error is not retried by itself: it is still stopped after two supervision rounds
    Thread.sleep(11_000);
    assertEquals("COPYING", status("heal-null").path("state").asText());

    Run early = cli("workflow", "resume", "heal-null");
    assertEquals(0, early.exit(), early.err()); // acts, but the row is still unmappable
    awaitStatus("heal-null", w -> w.path("copy_error").isTextual());

    long channel = channelIn("c0-e0");
    sql(source, "UPDATE notes SET channel_id = " + channel + " WHERE id = " + bad);
    Run resume = cli("workflow", "resume", "heal-null");
    assertEquals(0, resume.exit(), resume.out() + resume.err());
    awaitState("heal-null", "RUNNING");
    ids.add(bad);
    assertCopiedExactly("heal-null");
    ClusterDescriptor.Server lower = cluster.spares().get(0);
    assertEquals(
        channel, longQuery(lower, "SELECT channel_id FROM notes WHERE id = " + bad), "the row");
    awaitHealth(h -> "up".equals(h.path("status").asText()));
  }

  @Test
  @Order(4)
  void metricsShowOnDemandCapturesReverseRowsAndNoLagOfStreamsThatNoLongerRun() throws Exception {
    String metrics = get("/metrics");
    assertTrue(
        metrics.contains("reshard_capture_rows_total{keyspace=\"" + ks + "\",shard=\"c0-\"}"),
        "the capture the workflow started has meters");
    assertTrue(get("/health").contains("capture/" + ks + "/c0-"), "the capture shows in /health");

    assertEquals(0, cli("workflow", "switch-traffic", "heal-null", "--reads").exit());
    page.await(
        "reads switched, and the next step",
        WAIT,
        p ->
            "READS_SWITCHED".equals(p.attribute(".workflow[data-name='heal-null']", "data-state"))
                && p.text(".workflow[data-name='heal-null'] .next")
                    .contains("switch-traffic heal-null --writes"));
    long before = shownMapVersion();
    Run writes = cli("workflow", "switch-traffic", "heal-null", "--writes");
    assertEquals(0, writes.exit(), writes.err());
    String targetRow =
        ".keyspace[data-keyspace='" + ks + "'] tr[data-shard='c0-e0'] td:nth-child(5)";
    page.await(
        "writes switched, on the targets in a newer map",
        WAIT,
        p ->
            "WRITES_SWITCHED".equals(p.attribute(".workflow[data-name='heal-null']", "data-state"))
                && shownMapVersion() > before
                && p.text(targetRow).equals("yes"));
    page.screenshot("5-writes-switched");
    ClusterDescriptor.Server lower = cluster.spares().get(0);
    long id = ROWS + 100;
    sql(lower, "INSERT INTO notes VALUES (" + id + ", " + channelIn("c0-e0") + ", 'back')");
    awaitRows(source, "SELECT COUNT(*) FROM notes WHERE id = " + id, 1);
    String after = awaitMetric(m -> reverseRows(m) >= 1);
    assertTrue(reverseRows(after) >= 1, after);

    Run complete = cli("workflow", "complete", "heal-null");
    assertEquals(0, complete.exit(), complete.err());
    String done = get("/metrics");
    assertFalse(
        done.lines()
            .anyMatch(l -> l.startsWith("reshard_apply_lag_seconds") && l.contains("heal-null")),
        "streams that no longer run report no lag: " + done);
  }

  // ---- the faults -----------------------------------------------------------------------------

  /** A transaction holding an exclusive lock on one source row: the copy waits there. */
  private static final class RowLock implements AutoCloseable {
    private final Connection c;
    private final long id;

    RowLock(ClusterDescriptor.Server s, String db, long id) throws Exception {
      this.id = id;
      c = DriverManager.getConnection(s.jdbcUrl(db), s.user(), "");
      c.setAutoCommit(false);
      try (Statement st = c.createStatement()) {
        st.executeQuery("SELECT * FROM notes WHERE id = " + id + " FOR UPDATE").close();
      }
    }

    @Override
    public void close() {
      try {
        c.rollback();
        c.close();
      } catch (Exception gone) {
        // the server was killed: the lock went with it
      }
    }
  }

  private ClusterSpec spec() {
    ClusterDescriptor d = cluster.descriptor();
    return new ClusterSpec(
        dir, d.shards().size(), d.spares().size(), d.mariadb().get(0).port(), d.kafka().port());
  }

  private long serverPid(String name) {
    return LocalCluster.status(dir).stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow()
        .pid();
  }

  private long brokerPid() {
    return LocalCluster.status(dir).stream()
        .filter(p -> p.role().equals("broker"))
        .findFirst()
        .orElseThrow()
        .pid();
  }

  private static void kill(long pid) throws Exception {
    new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
      assertTrue(System.nanoTime() < deadline, "pid " + pid + " did not die");
      Thread.sleep(50);
    }
  }

  // ---- the workflow ---------------------------------------------------------------------------

  private void create(String name) throws Exception {
    Run r =
        cli("workflow", "create", "--keyspace", ks, "--source", "c0-", "--targets=c0-e0,e0-", name);
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  private void cancel(String name) throws Exception {
    Run r = cli("workflow", "cancel", name);
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  /** Waits until the copy has copied rows and waits on the locked row. */
  private void awaitCopyStalledAt(RowLock lock, String name) throws Exception {
    awaitStatus(name, w -> w.path("copy").path("rows_copied").asLong() > 0);
    Thread.sleep(1500);
    JsonNode w = status(name);
    assertEquals("COPYING", w.path("state").asText(), w.toString());
    assertTrue(
        w.path("copy").path("rows_copied").asLong() < lock.id, "the copy passed the lock: " + w);
  }

  private void assertCopiedExactly(String name) throws Exception {
    Run diff = cli("workflow", "diff", name, "--output", "json");
    assertEquals(0, diff.exit(), diff.out() + diff.err());
    assertTrue(JSON.readTree(diff.out()).path("clean").asBoolean(), diff.out());
    long onTargets = 0;
    for (ClusterDescriptor.Server t : cluster.spares()) {
      onTargets += longQuery(t, "SELECT COUNT(*) FROM notes");
    }
    assertEquals(ids.size(), onTargets, "every source row exactly once on the targets");
  }

  private static java.util.Optional<String> streamInError(JsonNode w) {
    for (JsonNode s : w.path("streams")) {
      if ("ERROR".equals(s.path("state").asText())) {
        return java.util.Optional.of(s.path("last_error").asText());
      }
    }
    return java.util.Optional.empty();
  }

  private static long channelIn(String shard) {
    for (long ch = 1; ; ch++) {
      if (KeyRange.parse(shard).contains(HASH.keyspaceId(ch))) {
        return ch;
      }
    }
  }

  private static double reverseRows(String metrics) {
    return metrics
        .lines()
        .filter(l -> l.startsWith("reshard_apply_rows_total") && l.contains("heal-null-rev"))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .sum();
  }

  // ---- the status page ------------------------------------------------------------------------

  private static final Duration WAIT = Duration.ofSeconds(60);

  /** The copy's total of rows copied the page shows for workflow {@code name}; -1 if none. */
  private long shownRowsCopied(String name) {
    String t = page.text(".workflow[data-name='" + name + "'] .copy-total .rows").replace(",", "");
    return t.isEmpty() ? -1 : Long.parseLong(t);
  }

  /** The shard map version the page shows for the keyspace; -1 if none. */
  private long shownMapVersion() {
    String t = page.text(".keyspace[data-keyspace='" + ks + "'] h3");
    int v = t.lastIndexOf(" v");
    return v < 0 ? -1 : Long.parseLong(t.substring(v + 2).strip());
  }

  // ---- waiting --------------------------------------------------------------------------------

  private JsonNode awaitState(String name, String state) throws Exception {
    return awaitStatus(name, w -> state.equals(w.path("state").asText()));
  }

  private JsonNode awaitStatus(String name, Predicate<JsonNode> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(180).toNanos();
    while (true) {
      JsonNode w = JSON.readTree(get("/workflows/" + name));
      if (done.test(w)) {
        return w;
      }
      assertTrue(System.nanoTime() < deadline, "workflow " + name + " never got there: " + w);
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

  private String awaitMetric(Predicate<String> done) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      String m = get("/metrics");
      if (done.test(m) || System.nanoTime() > deadline) {
        return m;
      }
      Thread.sleep(300);
    }
  }

  private void awaitRows(ClusterDescriptor.Server s, String query, long expected) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (longQuery(s, query) != expected) {
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
            "copy.chunk.rows=50",
            "--set",
            "copy.chunk.rows.min=50",
            "--set",
            "copy.chunk.rows.max=50",
            "--set",
            "copy.table.parallelism=1",
            "--set",
            "copy.lock.wait.timeout.ms=50000",
            "--background");
    assertEquals(0, r.exit(), r.out() + r.err());
  }

  private JsonNode status(String name) throws Exception {
    return JSON.readTree(get("/workflows/" + name));
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

  private void sql(ClusterDescriptor.Server s, String statement) throws Exception {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(ks), s.user(), "");
        Statement st = c.createStatement()) {
      st.execute(statement);
    }
  }

  private long longQuery(ClusterDescriptor.Server s, String query) throws Exception {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(ks), s.user(), "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(query)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
