package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.FreePorts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The {@code ./reshard} launcher as a user runs it: a separate process, its exit codes, what it
 * prints on standard output and standard error, and the processes it leaves behind.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReshardLauncherIT {
  static final Path REPO = Path.of(System.getProperty("reshard.repo.root", ".."));
  private static Path dir;
  private static int basePort;
  private static int kafkaPort;

  /** What one run of the launcher gave. */
  record Run(int exit, String out, String err) {}

  @BeforeAll
  static void chooseDirAndPorts() throws IOException {
    Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
    Files.createDirectories(root);
    dir = Files.createTempDirectory(root, "launcher-");
    basePort = FreePorts.block(26306, 2);
    kafkaPort = FreePorts.block(29692, 2);
  }

  @AfterAll
  static void stopWhateverIsLeft() throws Exception {
    if (Files.exists(dir.resolve("cluster.json"))) {
      reshard("cluster", "down", "--dir", dir.toString());
    }
  }

  @Test
  @Order(1)
  void helpExitsZeroAndDocumentsTheExitCodes() throws Exception {
    Run r = reshard("--help");
    assertEquals(0, r.exit(), r.err());
    assertTrue(r.out().contains("Usage: reshard"), r.out());
    assertTrue(r.out().contains("3  refused"), r.out());
    assertTrue(r.out().contains("cluster"), r.out());
    // every verb's summary is a whole sentence, not a first line cut off
    String commands =
        r.out().substring(r.out().indexOf("Commands:"), r.out().indexOf("Exit codes:"));
    java.util.List<String> verbs = new java.util.ArrayList<>();
    for (String l : commands.lines().skip(1).toList()) {
      if (l.startsWith("    ")) { // a wrapped summary goes on
        verbs.set(verbs.size() - 1, verbs.get(verbs.size() - 1) + " " + l.strip());
      } else {
        verbs.add(l.strip());
      }
    }
    assertTrue(verbs.size() >= 8, r.out());
    for (String v : verbs) {
      assertTrue(v.endsWith("."), "cut off: " + v);
    }
    assertTrue(r.out().contains("demo") && !r.out().contains("stops itself:"), r.out());
  }

  @Test
  @Order(2)
  void upPrintsOneLinePerProcessAndWritesClusterJson() throws Exception {
    Run r =
        reshard(
            "cluster",
            "up",
            "--dir",
            dir.toString(),
            "--shards",
            "1",
            "--spares",
            "1",
            "--base-port",
            "" + basePort,
            "--kafka-port",
            "" + kafkaPort);
    assertEquals(0, r.exit(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(4, lines.size(), r.out());
    assertTrue(lines.get(3).startsWith("cluster ready in"), r.out());
    JsonNode json = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
    assertEquals(2, json.get("mariadb").size());
    assertEquals("shard", json.get("mariadb").get(0).get("role").asText());
    assertEquals("spare", json.get("mariadb").get(1).get("role").asText());
    assertEquals(basePort + 1, json.get("mariadb").get(1).get("port").asInt());
    assertEquals("127.0.0.1:" + kafkaPort, json.get("kafka").get("bootstrap").asText());
    for (JsonNode s : json.get("mariadb")) {
      assertTrue(ProcessHandle.of(s.get("pid").asLong()).isPresent(), "server pid running: " + s);
    }
  }

  @Test
  @Order(3)
  void statusReportsEveryProcessUp() throws Exception {
    Run r = reshard("cluster", "status", "--dir", dir.toString());
    assertEquals(0, r.exit(), r.out() + r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(3, lines.size(), r.out());
    assertTrue(lines.stream().allMatch(l -> l.endsWith("up")), r.out());
    assertTrue(lines.get(2).startsWith("kafka"), r.out());
  }

  @Test
  @Order(4)
  void downStopsEverythingAndStatusThenSaysDown() throws Exception {
    JsonNode json = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
    List<Long> pids = new ArrayList<>();
    json.get("mariadb").forEach(s -> pids.add(s.get("pid").asLong()));
    pids.add(json.get("kafka").get("pid").asLong());

    Run r = reshard("cluster", "down", "--dir", dir.toString());
    assertEquals(0, r.exit(), r.err());
    assertEquals(3, r.out().lines().filter(l -> l.endsWith("stopped")).count(), r.out());
    for (long pid : pids) {
      // down returns once the process has exited; init reaps the exit status a moment later
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (ProcessHandle.of(pid).isPresent() && System.nanoTime() < deadline) {
        Thread.sleep(50);
      }
      assertTrue(ProcessHandle.of(pid).isEmpty(), "pid " + pid + " still running after down");
    }
    Run status = reshard("cluster", "status", "--dir", dir.toString());
    assertEquals(1, status.exit());
    assertTrue(status.out().lines().allMatch(l -> l.endsWith("down")), status.out());
  }

  @Test
  @Order(5)
  void downOnADirectoryWithoutAClusterIsRefused() throws Exception {
    Path empty = Files.createTempDirectory(dir.getParent(), "empty-");
    Run r = reshard("cluster", "down", "--dir", empty.toString());
    assertEquals(3, r.exit());
    assertTrue(r.err().contains("there is no cluster in " + empty), r.err());
    assertEquals("", r.out());
  }

  @Test
  @Order(6)
  void aBadOptionIsAUsageError() throws Exception {
    Run r = reshard("cluster", "up", "--dir", dir.toString(), "--shards", "many");
    assertEquals(2, r.exit());
    assertTrue(r.err().contains("--shards"), r.err());
  }

  @Test
  @Order(7)
  void theDemoSplitsAShardUnderTrafficAndReportsEveryFigure() throws Exception {
    Path demoDir = Files.createTempDirectory(dir.getParent(), "demo-");
    Path report = demoDir.resolve("demo.json");
    Run r =
        reshard(
            "demo",
            "--scale",
            "0.05",
            "--dir",
            demoDir.toString(),
            "--out",
            report.toString(),
            "--base-port",
            "" + FreePorts.block(26406, 6),
            "--kafka-port",
            "" + FreePorts.block(29792, 2));
    assertEquals(0, r.exit(), r.out() + r.err());
    assertTrue(r.out().contains("demo passed"), r.out());
    JsonNode json = new ObjectMapper().readTree(report.toFile());
    assertTrue(json.get("ok").asBoolean(), json.toString());
    JsonNode reshard = json.get("reshard");
    assertEquals(0, reshard.get("writer_errors").asLong(), json.toString());
    assertEquals(0, reshard.get("reader_misses").asLong());
    assertEquals(0, reshard.get("reader_duplicates").asLong());
    assertEquals(0, reshard.get("diff_mismatches").asLong());
    assertTrue(
        reshard.get("writer_ops").asLong() > 0 && reshard.get("reader_lookups").asLong() > 0);
    JsonNode end = json.get("end_state");
    assertEquals(end.get("expected_ids").asLong(), end.get("ids_found_once").asLong());
    assertEquals(0, end.get("ids_missing").asLong());
    assertEquals(0, end.get("ids_duplicated").asLong());
    assertEquals(0, end.get("rows_wrong_shard").asLong());
    assertEquals(0, end.get("lookup_mismatches").asLong());
    assertEquals(0, json.get("transfers").get("single").get("credits_lost").asLong());
    assertTrue(
        json.get("transfers").get("single").get("refused").asLong() > 0,
        "single mode refuses cross-shard");
    JsonNode multi = json.get("transfers").get("multi");
    assertTrue(
        multi.get("credits_lost").asLong() == 0 || multi.get("injected_failures").asLong() > 0);
    for (String q : new String[] {"by_id_with_channel", "by_id_via_lookup", "latest_50_by_user"}) {
      assertTrue(json.get("routing").get(q).get("qps").asLong() > 0, q);
    }
    assertEquals(8, json.get("skew").size());
    JsonNode checks = json.get("checks");
    assertEquals(11, checks.size(), checks.toString());
    for (JsonNode c : checks) {
      assertEquals("PASS", c.get("result").asText(), c.toString());
      assertTrue(
          r.out().lines().anyMatch(l -> l.contains(c.get("check").asText()) && l.endsWith("PASS")),
          "one line per check: " + c + "\n" + r.out());
    }
    assertEquals(
        multi.get("cross_shard_failures").asLong() * 10, multi.get("credits_lost").asLong());
    assertTrue(r.out().contains("without a two-phase commit"), "the multi lesson in words");
    assertTrue(r.out().contains("refuses a transaction that spans shards"), "the single lesson");
    assertFalse(r.out().contains("{multi="), "no map dumps: " + r.out());
    String html = Files.readString(demoDir.resolve("demo.html"));
    assertTrue(html.contains("reshard demo: passed"), html);
    assertEquals(2, html.split("<svg ", -1).length - 1, "two charts");
    assertTrue(html.contains(">writes switched</text>"), "the cutover is marked");
    assertTrue(html.contains("<polyline"), "latency is drawn");
    assertEquals(8, html.split("<rect ", -1).length - 1, "a bar per shard count");
    assertFalse(
        html.contains("<script") || html.contains("src=\"http"), "nothing from the network");
    Run status = reshard("cluster", "status", "--dir", demoDir.toString());
    assertTrue(status.out().lines().allMatch(l -> l.endsWith("down")), status.out());
  }

  static Run reshard(String... args) throws Exception {
    return reshardWithEnv(java.util.Map.of(), args);
  }

  /** Runs the launcher with {@code env} added to its environment (a failpoint, say). */
  static Run reshardWithEnv(java.util.Map<String, String> env, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(REPO.resolve("reshard").toString());
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile("reshard-out", ".txt");
    Path err = Files.createTempFile("reshard-err", ".txt");
    ProcessBuilder b =
        new ProcessBuilder(cmd)
            .directory(REPO.toFile())
            .redirectOutput(out.toFile())
            .redirectError(err.toFile());
    b.environment().putAll(env);
    Process p = b.start();
    assertTrue(p.waitFor(5, TimeUnit.MINUTES), "reshard " + String.join(" ", args) + " timed out");
    Run run =
        new Run(
            p.exitValue(),
            Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    Files.deleteIfExists(out);
    Files.deleteIfExists(err);
    return run;
  }
}
