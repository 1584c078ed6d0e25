package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Workflows of several sources (DESIGN 4.9), CLI and daemon only, under router writers that insert
 * rows and increment their counters the whole time, each from {@code -80,80-}: a merge into {@code
 * -}, a re-partition onto three uneven ranges {@code -55,55-aa,aa-} and a split of both into four,
 * each through copy, diff, reads, writes, reverse traffic, diff, writes again and complete.
 * Afterwards plain SQL on the owners of the final map: every acknowledged row exactly once, on its
 * owner, with exactly as many increments as were acknowledged (a write a stale owner had accepted
 * would be missing there).
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class MergeWorkflowIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final String TABLE =
      "CREATE TABLE items (id BIGINT NOT NULL PRIMARY KEY, n INT NOT NULL,"
          + " body VARCHAR(60) NOT NULL) ENGINE=InnoDB";

  private final TestCluster cluster;
  private final CliSession ops;
  private final List<String> keyspaces = new ArrayList<>();

  MergeWorkflowIT(TestCluster cluster) {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    ops.close();
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(s, "SET GLOBAL read_only = OFF");
      for (String ks : keyspaces) {
        if (!ks.equals(cluster.database())) {
          cluster.execute(s, "DROP DATABASE IF EXISTS `" + ks + "`");
        }
      }
    }
  }

  @Test
  void aMergeOfTwoShardsIntoOneGoesBackAndForthAndCompletes() throws Exception {
    JsonNode streams =
        run(cluster.database(), "merge", "-", List.of(cluster.spares().get(0).name()));
    assertEquals(1, streams.size(), streams.toString());
    assertEquals("-80,80-", streams.get(0).get("source").asText(), "it reads both sources");
  }

  @Test
  void aRepartitionOfTwoShardsOntoThreeUnevenRangesGoesBackAndForthAndCompletes() throws Exception {
    JsonNode streams =
        run(
            cluster.database() + "_r",
            "repartition",
            "-55,55-aa,aa-",
            List.of(
                cluster.shards().get(2).name(),
                cluster.shards().get(3).name(),
                cluster.spares().get(1).name()));
    // each target reads only the sources its range overlaps
    assertEquals(Map.of("-55", "-80", "55-aa", "-80,80-", "aa-", "80-"), reads(streams));
  }

  @Test
  void aSplitOfTwoShardsIntoFourGoesBackAndForthAndCompletes() throws Exception {
    JsonNode streams =
        run(
            cluster.database() + "_s",
            "split4",
            "-40,40-80,80-c0,c0-",
            List.of(
                cluster.shards().get(2).name(),
                cluster.shards().get(3).name(),
                cluster.spares().get(0).name(),
                cluster.spares().get(1).name()));
    assertEquals(
        Map.of("-40", "-80", "40-80", "-80", "80-c0", "80-", "c0-", "80-"), reads(streams));
  }

  /**
   * Keyspace {@code ks} on the first two shard servers as {@code -80,80-} with 2,000 rows, then
   * under the writers a workflow of both into {@code targets}: copy, diff, reads, writes, reverse
   * traffic, a diff, writes again, complete; then the writers' check.
   *
   * @return the forward streams {@code status} listed once the copy was done
   */
  private JsonNode run(String ks, String name, String targets, List<String> targetServers)
      throws Exception {
    initKeyspace(ks, cluster.shards().get(0), cluster.shards().get(1));
    try (Writers writers = new Writers(ks)) {
      Run created =
          ops.cli(
              "workflow",
              "create",
              "--keyspace",
              ks,
              "--source=-80,80-",
              "--targets=" + targets,
              "--target-servers=" + String.join(",", targetServers),
              name);
      assertEquals(0, created.exit(), created.err());
      assertTrue(created.out().contains("-80,80- -> ["), created.out());
      JsonNode streams = ops.awaitCopyDone(name).get("streams");
      CliSession.assertClean(ops.diff(name));
      assertEquals(0, ops.cli("workflow", "switch-traffic", name, "--reads").exit());
      Run writes = ops.cli("workflow", "switch-traffic", name, "--writes");
      assertEquals(0, writes.exit(), writes.err());
      Run reverse = ops.cli("workflow", "reverse-traffic", name);
      assertEquals(0, reverse.exit(), reverse.err());
      CliSession.assertClean(ops.diff(name));
      Run again = ops.cli("workflow", "switch-traffic", name, "--writes");
      assertEquals(0, again.exit(), again.err());
      Run complete = ops.cli("workflow", "complete", name);
      assertEquals(0, complete.exit(), complete.err());
      writers.stopAndCheck(name);
      return streams;
    }
  }

  private static Map<String, String> reads(JsonNode streams) {
    Map<String, String> reads = new HashMap<>();
    streams.forEach(st -> reads.put(st.get("target").asText(), st.get("source").asText()));
    return reads;
  }

  /** Rows on both shards, the keyspace initialised on them, the daemon started. */
  private void initKeyspace(String ks, ClusterDescriptor.Server a, ClusterDescriptor.Server b)
      throws Exception {
    keyspaces.add(ks);
    for (ClusterDescriptor.Server s : List.of(a, b)) {
      KeyRange range = KeyRange.parse(s == a ? "-80" : "80-");
      StringBuilder rows = new StringBuilder();
      for (long id = 1; id <= 2000; id++) {
        if (range.contains(HASH.keyspaceId(id))) {
          rows.append(rows.isEmpty() ? "" : ", ").append("(" + id + ", 0, 'seed " + id + "')");
        }
      }
      cluster.execute(
          s,
          "CREATE DATABASE IF NOT EXISTS `" + ks + "`",
          "USE `" + ks + "`",
          TABLE,
          "INSERT INTO items VALUES " + rows);
    }
    ops.initKeyspace(
        ks,
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
            + " \"tables\": {\"items\": {\"column_vindexes\": [{\"column\": \"id\","
            + " \"name\": \"hash\"}]}}}",
        "--shards=-80,80-",
        "--servers=" + a.name() + "," + b.name());
    ops.startDaemon();
  }

  /**
   * Three router threads, each inserting rows of its own ids and incrementing the counter of a row
   * inserted before; every acknowledged write is counted.
   */
  private final class Writers implements AutoCloseable {
    private final Map<Long, Integer> increments = new ConcurrentHashMap<>();
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final ExecutorService pool = Executors.newFixedThreadPool(3);
    private final KafkaShardMapSource maps;
    private final Router router;
    private final List<Future<?>> threads = new ArrayList<>();

    Writers(String ks) {
      maps = KafkaShardMapSource.start(ops.topic(), ks);
      router = Router.builder(maps, ops.endpoints()).build();
      for (int t = 0; t < 3; t++) {
        long first = 1_000_000L * (t + 1);
        threads.add(pool.submit(() -> write(first)));
      }
    }

    private void write(long first) {
      long next = first;
      while (!stop.get()) {
        try {
          long id = next;
          router.insert("items", Map.of("id", id, "n", 0, "body", "written " + id));
          increments.put(id, 0);
          next++;
          long old = first + (id * 7919) % (next - first);
          int changed =
              router.inTransaction(
                  tx -> tx.update("items", old, "UPDATE items SET n = n + 1 WHERE id = ?", old));
          assertEquals(1, changed, "row " + old + " exists");
          increments.merge(old, 1, Integer::sum);
          Thread.sleep(10);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          errors.incrementAndGet();
          System.err.println("[merge workflow] write: " + e);
        }
      }
    }

    /** Stops the writers; checks every acknowledged write on the owners of the final map. */
    void stopAndCheck(String workflow) throws Exception {
      stop.set(true);
      for (Future<?> f : threads) {
        f.get();
      }
      assertEquals(0, errors.get(), "every write through the router succeeded");
      assertTrue(increments.size() > 50, "rows written: " + increments.size());
      Map<Long, Integer> found = new HashMap<>();
      Map<Long, Integer> copies = new HashMap<>();
      ShardMap map = maps.current();
      for (Shard shard : map.shards()) {
        assertTrue(shard.servesWrites(), "after complete only owners are left: " + map);
        try (Connection c = cluster.connect(ops.server(shard.endpoint()));
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT id, n FROM `" + router.keyspace() + "`.items")) {
          while (rs.next()) {
            long id = rs.getLong(1);
            assertTrue(
                shard.range().contains(HASH.keyspaceId(id)),
                "row " + id + " on " + shard.name() + " belongs there");
            found.put(id, rs.getInt(2));
            copies.merge(id, 1, Integer::sum);
          }
        }
      }
      List<String> wrong = new ArrayList<>();
      increments.forEach(
          (id, n) -> {
            if (copies.getOrDefault(id, 0) != 1 || !n.equals(found.get(id))) {
              wrong.add(id + ": " + copies.get(id) + " copies, n " + found.get(id) + " not " + n);
            }
          });
      assertTrue(wrong.isEmpty(), "acknowledged writes not exactly on their owner: " + wrong);
      System.err.println(
          "[merge workflow] "
              + workflow
              + ": "
              + increments.size()
              + " rows written and "
              + increments.values().stream().mapToInt(Integer::intValue).sum()
              + " increments acknowledged, each exactly once on its owner of "
              + map);
    }

    @Override
    public void close() throws Exception {
      stop.set(true);
      pool.shutdownNow();
      router.close();
      maps.close();
    }
  }
}
