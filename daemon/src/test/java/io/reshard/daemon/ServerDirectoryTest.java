package io.reshard.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.differ.DiffReport;
import io.reshard.differ.TableDiff;
import io.reshard.switcher.ShardServer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where workflows put shards, and the diff document the CLI prints. */
class ServerDirectoryTest {
  private static final ClusterDescriptor CLUSTER =
      new ClusterDescriptor(
          List.of(
              server("db1", "shard", 13306, 1),
              server("db2", "shard", 13307, 2),
              server("db3", "spare", 13308, 3),
              server("db4", "spare", 13309, 4)),
          new ClusterDescriptor.Broker("127.0.0.1:19092", 19092, 19093, 0));

  private static ClusterDescriptor.Server server(String name, String role, int port, int id) {
    return new ClusterDescriptor.Server(name, role, "127.0.0.1", port, null, "root", id, 0, "/d");
  }

  @Test
  void aClusterServerIsFoundByNameWithItsCaptureServerId() {
    ShardServer s = ServerDirectory.forCluster(CLUSTER).server("db3", "80-c0");
    assertEquals(13308, s.port());
    assertEquals("db3", s.endpointRef());
    assertEquals(DaemonConfig.CLUSTER_SERVER_ID_BASE + 3, s.captureServerId());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ServerDirectory.forCluster(CLUSTER).server("db9", "-"));
    assertTrue(e.getMessage().contains("db9") && e.getMessage().contains("db1"), e.getMessage());
  }

  @Test
  void targetsGoOnTheFreeSparesInOrder() {
    ServerDirectory d = ServerDirectory.forCluster(CLUSTER);
    assertEquals(List.of("db3", "db4"), d.defaultTargets("ks", List.of("80-c0", "c0-"), Set.of()));
    assertEquals(List.of("db4"), d.defaultTargets("ks", List.of("c0-"), Set.of("db3")));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> d.defaultTargets("ks", List.of("80-c0", "c0-"), Set.of("db4")));
    assertTrue(e.getMessage().contains("--target-servers"), e.getMessage());
  }

  @Test
  void theDiffDocumentSumsEachTableOverTheTargets() {
    DiffReport a =
        new DiffReport(
            "w", "80-c0", "1-1-5", List.of(new TableDiff("t", 10, 9, 1, 0, 0, 0, List.of())));
    DiffReport b =
        new DiffReport(
            "w", "c0-", "1-1-5", List.of(new TableDiff("t", 5, 4, 0, 0, 1, 0, List.of())));
    Map<String, Object> doc = WorkflowViews.diff(List.of(a, b));
    assertEquals(false, doc.get("clean"));
    @SuppressWarnings("unchecked")
    Map<String, Object> t = ((List<Map<String, Object>>) doc.get("tables")).get(0);
    assertEquals(15L, t.get("compared"));
    assertEquals(13L, t.get("matching"));
    assertEquals(1L, t.get("mismatched"));
    assertEquals(1L, t.get("extra_target"));
    assertEquals(2, ((List<?>) doc.get("targets")).size());
  }
}
