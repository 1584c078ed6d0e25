package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code cluster down} as an operator runs it, after a {@code cluster up} that has exited: the
 * servers and the broker are then no children of any JVM of ours (init collects them), and {@code
 * down} must still return only once each of them is gone, pid and all.
 */
class ClusterDownIT {
  private Path dir;

  @AfterEach
  void downWhateverIsLeft() {
    if (dir != null && Files.exists(dir.resolve("cluster.json"))) {
      LocalCluster.down(dir);
    }
  }

  @Test
  void downReturnsOnlyOnceEveryProcessItStoppedIsGone() throws Exception {
    Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
    Files.createDirectories(root);
    dir = Files.createTempDirectory(root, "down-");
    CliProcess.Run up =
        CliProcess.run(
            "cluster",
            "up",
            "--dir",
            dir.toString(),
            "--shards",
            "1",
            "--base-port",
            "" + FreePorts.block(27106, 1),
            "--kafka-port",
            "" + FreePorts.block(29892, 2));
    assertEquals(0, up.exit(), up.out() + up.err());
    JsonNode json = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
    List<Long> pids = new ArrayList<>();
    json.get("mariadb").forEach(s -> pids.add(s.get("pid").asLong()));
    pids.add(json.get("kafka").get("pid").asLong());
    for (long pid : pids) {
      assertTrue(ProcessHandle.of(pid).isPresent(), "pid " + pid + " runs after up");
    }

    CliProcess.Run down = CliProcess.run("cluster", "down", "--dir", dir.toString());

    assertEquals(0, down.exit(), down.err());
    for (long pid : pids) {
      assertTrue(
          ProcessHandle.of(pid).isEmpty(),
          "pid " + pid + " still exists when down has returned:\n" + down.out());
    }
    assertEquals(List.of("db1    stopped", "kafka  stopped"), down.out().lines().toList());
  }
}
