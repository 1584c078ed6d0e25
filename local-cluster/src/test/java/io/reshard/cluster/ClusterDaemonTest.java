package io.reshard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon's entry in cluster.json, without starting any process. */
class ClusterDaemonTest {

  @Test
  void theEntryIsRecordedKeptByPidChangesAndClearedOnlyByItsOwnPid(@TempDir Path dir)
      throws Exception {
    ClusterDescriptor d = ClusterLayout.describe(new ClusterSpec(dir, 2, 0, 20000, 21000));
    d.write(dir);
    assertFalse(d.toJson().contains("daemon"), "no daemon key until one runs");

    ClusterDaemon.record(dir, 4242, "http://127.0.0.1:15000");
    ClusterDescriptor read = ClusterDescriptor.read(dir).orElseThrow();
    assertEquals(
        new ClusterDescriptor.DaemonProcess(4242, "http://127.0.0.1:15000"), read.daemon());
    assertEquals(4242, read.withServerPid(0, 7).withKafkaPid(8).daemon().pid());
    JsonNode json = new ObjectMapper().readTree(dir.resolve("cluster.json").toFile());
    assertEquals(4242, json.get("daemon").get("pid").asLong());
    assertEquals(2, json.get("mariadb").size(), "existing fields stay");

    assertFalse(ClusterDaemon.clear(dir, 1), "another pid's entry is left alone");
    assertEquals(4242, ClusterDescriptor.read(dir).orElseThrow().daemon().pid());
    // pid 4242 is not a reshard daemon (if it exists at all): not running, and stop leaves it be
    assertEquals(Optional.empty(), ClusterDaemon.running(dir));
    assertEquals(Optional.of("daemon was not running"), ClusterDaemon.stop(dir));
    assertNull(ClusterDescriptor.read(dir).orElseThrow().daemon());
    assertEquals(Optional.empty(), ClusterDaemon.stop(dir), "nothing recorded, nothing to say");
    try (var files = Files.list(dir)) {
      assertTrue(files.noneMatch(f -> f.toString().endsWith(".tmp")), "no temporary file left");
    }
  }

  @Test
  void aDescriptorWrittenBeforeTheDaemonEntryExistedStillReads(@TempDir Path dir) throws Exception {
    Files.writeString(
        dir.resolve("cluster.json"),
        "{\"mariadb\": [], \"kafka\": {\"bootstrap\": \"127.0.0.1:1\", \"port\": 1,"
            + " \"controller_port\": 2, \"pid\": 0}}");
    assertNull(ClusterDescriptor.read(dir).orElseThrow().daemon());
  }
}
