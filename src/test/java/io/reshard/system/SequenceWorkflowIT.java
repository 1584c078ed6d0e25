package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.Router;
import io.reshard.router.Sequence;
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
import java.util.Set;
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
 * Sequences through a whole workflow, CLI and daemon only: the unsharded keyspace that holds the
 * sequence is published with {@code keyspace init --shards=-}, a table with an AUTO_INCREMENT id
 * names it in the vschema, and 8 threads insert through a router (ids from the sequence) while
 * {@code c0-} is split into {@code c0-e0} and {@code e0-}, writes switched, reversed and switched
 * again. Every acknowledged id is held exactly once by the shard that owns it; an id a server chose
 * on the source before the switch (above every id the sequence gave) is above the sequence's {@code
 * next_id} no more once the write switch raised it.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SequenceWorkflowIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");

  private final TestCluster cluster;
  private final CliSession ops;
  private final String ks;
  private final String seq;
  private final ClusterDescriptor.Server seqServer;

  SequenceWorkflowIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
    this.ks = cluster.database();
    this.seq = ks + "_seq";
    this.seqServer = cluster.shards().get(0);
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE TABLE accounts (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,"
              + " body VARCHAR(50) NOT NULL) ENGINE=InnoDB");
    }
    cluster.execute(seqServer, "CREATE DATABASE `" + seq + "`");
    try (Connection c = cluster.connect(seqServer)) {
      c.setCatalog(seq);
      Sequence.createTable(c, "accounts_seq", 1, 20); // small blocks: many reservations
    }
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    ops.close();
    cluster.execute(seqServer, "DROP DATABASE IF EXISTS `" + seq + "`");
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(s, "SET GLOBAL read_only = OFF");
    }
  }

  @Test
  void idsFromTheSequenceStayUniqueAcrossSplitReverseAndSwitchAgain() throws Exception {
    Run seqInit =
        ops.cli(
            "keyspace",
            "init",
            "--keyspace",
            seq,
            "--vschema",
            ops.file("{\"tables\": {\"accounts_seq\": {\"type\": \"sequence\"}}}"),
            "--shards=-",
            "--servers=" + seqServer.name());
    assertEquals(0, seqInit.exit(), seqInit.err());
    Run init =
        ops.cli(
            "keyspace",
            "init",
            "--keyspace",
            ks,
            "--vschema",
            ops.file(
                "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
                    + " \"tables\": {\"accounts\": {\"column_vindexes\": [{\"column\": \"id\","
                    + " \"name\": \"hash\"}], \"auto_increment\": {\"column\": \"id\","
                    + " \"sequence\": \""
                    + seq
                    + ".accounts_seq\"}}}}"),
            "--shards=" + String.join(",", SHARDS));
    assertEquals(0, init.exit(), init.err());
    ops.startDaemon("keyspace.stream.enabled=false"); // the stream is KeyspaceStreamIT's

    Map<Long, Integer> acked = new ConcurrentHashMap<>();
    AtomicInteger errors = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(ops.topic(), ks);
        KafkaShardMapSource seqMaps = KafkaShardMapSource.start(ops.topic(), seq);
        Router router = Router.builder(maps, ops.endpoints()).sequenceKeyspace(seqMaps).build()) {
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        writers.add(
            pool.submit(
                () -> {
                  while (!stop.get()) {
                    try {
                      Object id = router.insert("accounts", Map.of("body", "t" + thread)).get("id");
                      acked.merge(((Number) id).longValue(), 1, Integer::sum);
                      Thread.sleep(10);
                    } catch (InterruptedException e) {
                      return;
                    } catch (RuntimeException e) {
                      errors.incrementAndGet();
                      System.err.println("[sequence workflow] insert: " + e);
                    }
                  }
                }));
      }
      // an id the source's server picks itself, far above the sequence's, on the moving range
      long serverChosen = serverChosenIdOnC0();
      Run created =
          ops.cli(
              "workflow",
              "create",
              "--keyspace",
              ks,
              "--source",
              "c0-",
              "--targets=c0-e0,e0-",
              "split");
      assertEquals(0, created.exit(), created.err());
      ops.awaitCopyDone("split");
      CliSession.assertClean(ops.diff("split"));
      assertEquals(0, ops.cli("workflow", "switch-traffic", "split", "--reads").exit());
      Run writes = ops.cli("workflow", "switch-traffic", "split", "--writes");
      assertEquals(0, writes.exit(), writes.err());
      assertTrue(
          nextId() > serverChosen,
          "the write switch raised the sequence above " + serverChosen + ": " + nextId());
      Thread.sleep(1000);
      Run reverse = ops.cli("workflow", "reverse-traffic", "split");
      assertEquals(0, reverse.exit(), reverse.err());
      Thread.sleep(1000);
      CliSession.assertClean(ops.diff("split"));
      Run again = ops.cli("workflow", "switch-traffic", "split", "--writes");
      assertEquals(0, again.exit(), again.err());
      Thread.sleep(1000);
      stop.set(true);
      for (Future<?> w : writers) {
        w.get();
      }
      assertEquals(0, errors.get(), "every insert through the router succeeded");
      assertTrue(acked.size() > 100, "inserts acknowledged: " + acked.size());
      assertTrue(
          acked.values().stream().allMatch(n -> n == 1), "the router never handed out an id twice");
      assertEachOnceOnItsOwner(maps.current(), acked.keySet());
      System.err.println(
          "[sequence workflow] "
              + acked.size()
              + " ids from the sequence, each once on its owner; next_id "
              + nextId()
              + " above the server-chosen id "
              + serverChosen);
    } finally {
      pool.shutdownNow();
    }
  }

  // ---- data --------------------------------------------------------------------------------

  /** Inserts a row on c0-'s server whose id the server picks; returns that id. */
  private long serverChosenIdOnC0() throws Exception {
    ClusterDescriptor.Server c0 = cluster.shards().get(3);
    try (Connection c = cluster.connect(c0);
        Statement st = c.createStatement()) {
      long id = 3_000_000;
      while (!io.reshard.router.KeyRange.parse("c0-").contains(HASH.keyspaceId(id))) {
        id++;
      }
      st.execute("ALTER TABLE accounts AUTO_INCREMENT = " + id);
      st.execute("INSERT INTO accounts (body) VALUES ('server-chosen')");
      try (ResultSet rs = st.executeQuery("SELECT LAST_INSERT_ID()")) {
        rs.next();
        assertEquals(id, rs.getLong(1));
        return id;
      }
    }
  }

  private long nextId() throws Exception {
    try (Connection c = cluster.connect(seqServer);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery("SELECT next_id FROM `" + seq + "`.accounts_seq WHERE id = 0")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** Each id is held by the shard of {@code map} that owns it, once, and by no other owner. */
  private void assertEachOnceOnItsOwner(ShardMap map, Set<Long> ids) throws Exception {
    Map<Long, Integer> seen = new HashMap<>();
    for (var shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      ClusterDescriptor.Server s = ops.server(shard.endpoint());
      try (Connection c = cluster.connect(s);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT id FROM accounts")) {
        while (rs.next()) {
          long id = rs.getLong(1);
          if (shard.range().contains(HASH.keyspaceId(id))) {
            seen.merge(id, 1, Integer::sum);
          }
        }
      }
    }
    List<Long> missing = new ArrayList<>();
    for (long id : ids) {
      if (seen.getOrDefault(id, 0) != 1) {
        missing.add(id);
      }
    }
    assertTrue(missing.isEmpty(), "acknowledged ids not exactly once on their owner: " + missing);
  }
}
