package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.FreePorts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The short chaos run, as a user runs it: {@code ./reshard bench chaos} with 10 faults at every
 * step of a lifecycle (then the next lifecycle's keyspace init), small data, on a cluster of its
 * own, once for the class. The tests read its JSON report: the end checks (nothing acknowledged
 * lost, duplicated, misplaced, or accepted by a stale owner; every diff clean; readers never saw a
 * row twice), that the whole plan ran, and — separately, so a failure names what did not heal —
 * that every fault healed without help and the command exited 0.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@LongRun
class ChaosIT {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Fixed, so that a failure is replayed with the same plan (the command is in the log). Its plan
   * (print it with {@code --plan-only}) has every kind, and faults in both copies: a target's read
   * lock in the first, the broker killed in the second.
   */
  private static final String SEED = "10";

  private static final int FAULTS = 10;

  private Path dir;
  private int exit;
  private String output;
  private JsonNode report;

  @BeforeAll
  void runTheChaos() throws Exception {
    Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
    Files.createDirectories(root);
    Path work = Files.createTempDirectory(root, "chaos-");
    dir = work.resolve("cluster");
    Path out = work.resolve("chaos.json");
    List<String> args =
        List.of(
            "bench",
            "chaos",
            "--faults",
            "" + FAULTS,
            "--seed",
            SEED,
            "--fault-probability",
            "0.6",
            "--rows",
            "20000",
            "--heal-timeout-s",
            "60",
            "--pause-s",
            "12",
            "--lock-hold-s",
            "12",
            "--dir",
            dir.toString(),
            "--out",
            out.toString(),
            "--base-port",
            "" + FreePorts.block(26506, 4),
            "--kafka-port",
            "" + FreePorts.block(29892, 2));
    System.err.println("[chaos] ./reshard " + String.join(" ", args));
    List<String> cmd = new ArrayList<>();
    cmd.add(ReshardLauncherIT.REPO.resolve("reshard").toString());
    cmd.addAll(args);
    Path log = work.resolve("chaos.out");
    Process p =
        new ProcessBuilder(cmd)
            .directory(ReshardLauncherIT.REPO.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!p.waitFor(30, TimeUnit.MINUTES)) {
      p.destroy();
      p.waitFor(2, TimeUnit.MINUTES);
    }
    exit = p.isAlive() ? -1 : p.exitValue();
    output = Files.readString(log, StandardCharsets.UTF_8);
    System.err.println(output);
    assertTrue(Files.exists(out), "no report; the run's output:\n" + output);
    report = JSON.readTree(out.toFile());
  }

  @AfterAll
  void stopWhateverIsLeft() throws Exception {
    if (dir != null && Files.exists(dir.resolve("cluster.json"))) {
      ReshardLauncherIT.reshard("cluster", "down", "--dir", dir.toString());
    }
  }

  @Test
  void theWholePlanRanAndEveryLifecycleCompleted() {
    JsonNode c = report.get("checks");
    assertEquals(FAULTS, report.get("faults").size(), output);
    assertEquals(0, c.get("faults_not_injected").asLong(), output);
    assertEquals(0, c.get("lifecycles_not_completed").asLong(), output);
    assertEquals(2, report.get("lifecycles").size(), "the plan of seed " + SEED + " spans 2");
    for (JsonNode l : report.get("lifecycles")) {
      assertTrue(l.get("completed").asBoolean(), l.toString());
      assertTrue(l.get("traffic").get("writes_acknowledged").asLong() > 0, l.toString());
      assertTrue(l.get("traffic").get("reads").asLong() > 0, l.toString());
    }
  }

  @Test
  void noAcknowledgedWriteIsLostDuplicatedMisplacedOrAcceptedByAStaleOwner() {
    JsonNode c = report.get("checks");
    assertEquals(0, c.get("acknowledged_writes_lost").asLong(), output);
    assertEquals(0, c.get("ids_duplicated").asLong(), output);
    assertEquals(0, c.get("rows_on_wrong_shard").asLong(), output);
    assertEquals(0, c.get("rows_no_write_explains").asLong(), output);
    assertEquals(0, c.get("writes_accepted_by_stale_owner").asLong(), output);
    assertEquals(0, c.get("read_anomalies").asLong(), output);
    for (JsonNode l : report.get("lifecycles")) {
      JsonNode checks = l.get("checks");
      assertTrue(
          checks.get("rows_on_owners").asLong() >= 20000, "every loaded row is on an owner: " + l);
    }
  }

  @Test
  void everyDiffWasClean() {
    assertEquals(0, report.get("checks").get("diffs_not_clean").asLong(), output);
    for (JsonNode l : report.get("lifecycles")) {
      assertTrue(l.get("diffs").size() >= 2, "a diff before each write switch: " + l);
    }
  }

  @Test
  void everyFaultHealedWithoutHelpAndTheRunPassed() {
    List<String> notHealed = new ArrayList<>();
    for (JsonNode f : report.get("faults")) {
      if (!f.get("healed_without_help").asBoolean()) {
        notHealed.add(
            "#"
                + f.get("index")
                + " "
                + f.get("kind").asText()
                + " during "
                + f.get("step").asText()
                + ": "
                + f.get("not_healed_because")
                + " help "
                + f.get("help"));
      }
    }
    assertEquals(List.of(), notHealed, "faults that needed help");
    assertEquals(0, report.get("checks").get("help_without_fault").asLong(), output);
    assertEquals(0, report.get("checks").get("daemon_exits_nobody_caused").asLong(), output);
    assertTrue(report.get("ok").asBoolean(), output);
    assertEquals(0, exit, output);
  }
}
