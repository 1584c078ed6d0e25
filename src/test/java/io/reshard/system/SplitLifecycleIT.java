package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.differ.DiffReport;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.ShardServer;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowState;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The whole reshard lifecycle with real servers, Kafka, and routers: split {@code c0-} (db4) into
 * {@code c0-e0} (db5) and {@code e0-} (db6) while a writer inserts, updates and deletes through
 * router-lib and a reader reads; switch reads, switch writes, reverse traffic, switch forward
 * again, complete. Zero write errors with buffering on, every acknowledged row exactly once on the
 * shard its keyspace id says.
 */
@ExtendWith(LocalClusterExtension.class)
class SplitLifecycleIT {
  static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]}}}
      """;
  static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");
  static final Vindex HASH = Vindex.of(VindexType.HASH);

  @Test
  void splitWhileWritingThenReverseThenForwardAgainThenComplete(TestCluster cluster)
      throws Exception {
    String ks = cluster.database();
    VSchema vschema = VSchema.parse(VSCHEMA);
    Map<String, JdbcEndpoint> endpoints = new LinkedHashMap<>();
    List<ShardAssignment> v1 = new ArrayList<>();
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      endpoints.put(
          s.name(),
          new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), ""));
      cluster.execute(
          s,
          "CREATE TABLE IF NOT EXISTS messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB");
    }
    for (int i = 0; i < 4; i++) {
      ClusterDescriptor.Server s = cluster.shards().get(i);
      try (Connection c = cluster.connect(s)) {
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, ks, SHARDS.get(i), 1, true);
      }
      v1.add(new ShardAssignment(KeyRange.parse(SHARDS.get(i)), s.name(), true, true));
    }
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP TABLE messages"); // the workflow creates the targets' tables
    }
    ShardMapTopicConfig topicConfig = shardMapTopic(cluster);
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topicConfig, ks);
        KafkaWorkflowStore store =
            KafkaWorkflowStore.open(cluster.bootstrap(), cluster.topicPrefix() + ".workflows")) {
      publisher.publish(ShardMap.first(ks, vschema, v1));
      try (KafkaShardMapSource maps = KafkaShardMapSource.start(topicConfig, ks);
          Router router =
              Router.create(maps, EndpointResolver.of(endpoints), RouterConfig.defaults())) {
        Traffic traffic = new Traffic(router, new Random(5));
        traffic.load(600);
        ClusterDescriptor.Server db4 = cluster.shards().get(3);
        WorkflowSpec spec =
            new WorkflowSpec(
                "split-c0",
                ks,
                vschema,
                List.of(server("c0-", db4, 7401)),
                List.of(
                    server("c0-e0", cluster.spares().get(0), 7402),
                    server("e0-", cluster.spares().get(1), 7403)),
                cluster.bootstrap(),
                cluster.topicPrefix(),
                topicConfig.topic(),
                Duration.ofSeconds(5),
                Duration.ofSeconds(2),
                Duration.ofSeconds(30));
        CompletableFuture<Void> load = CompletableFuture.runAsync(traffic::run);
        try (WorkflowRunner runner =
            new WorkflowRunner(spec, new WorkflowEngine(store, Clock.systemUTC()), publisher)) {
          runner.create();
          runner.copy(
              CopierConfig.builder()
                  .initialChunkRows(50)
                  .minChunkRows(20)
                  .maxChunkRows(200)
                  .build());
          SwitchRefusedException refused =
              assertThrows(SwitchRefusedException.class, () -> runner.switchWrites(false));
          assertTrue(refused.getMessage().contains("no diff has run"), refused.getMessage());
          assertClean(runner.diff());
          runner.switchReads();
          Thread.sleep(300);
          assertEquals(WorkflowState.WRITES_SWITCHED, runner.switchWrites(false).state());
          Thread.sleep(500);
          assertTrue(readOnly(db4), "the retired source is read-only");
          assertEquals(WorkflowState.RUNNING, runner.reverseTraffic().state());
          Thread.sleep(500);
          assertClean(runner.diff());
          assertEquals(WorkflowState.WRITES_SWITCHED, runner.switchWrites(false).state());
          Thread.sleep(500);
          SwitchRefusedException noCancel =
              assertThrows(SwitchRefusedException.class, runner::cancel);
          assertTrue(noCancel.getMessage().contains("after a write switch"), noCancel.getMessage());
          assertEquals(WorkflowState.COMPLETED, runner.complete().state());
        } finally {
          traffic.stop.set(true);
          load.get();
        }
        System.err.printf(
            "[lifecycle] writer: %d ops, %d errors; reader: %d reads, %d errors; longest gap between"
                + " acknowledged writes on c0-: %d ms%n",
            traffic.ops.get(),
            traffic.writeErrors.get(),
            traffic.reads.get(),
            traffic.readErrors.get(),
            traffic.longestGapMillis());
        assertEquals(0, traffic.writeErrors.get(), "writes fail: " + traffic.firstError);
        assertEquals(0, traffic.readErrors.get(), "reads fail: " + traffic.firstError);
        ShardMap last = maps.current();
        assertTrue(last.shard(KeyRange.parse("c0-")).isEmpty(), "the source left the map");
        assertEveryRowOnceOnItsShard(cluster, last, traffic.expected);
      } finally {
        cluster.execute(cluster.shards().get(3), "SET GLOBAL read_only = OFF");
      }
    }
  }

  /** Writes and reads through the router; the writer knows exactly which rows must exist. */
  static final class Traffic {
    final Router router;
    final Random random;
    final Map<Long, Long> expected = new ConcurrentHashMap<>(); // id -> channel
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicInteger ops = new AtomicInteger();
    final AtomicInteger writeErrors = new AtomicInteger();
    final AtomicInteger reads = new AtomicInteger();
    final AtomicInteger readErrors = new AtomicInteger();
    final AtomicLong lastMovingAck = new AtomicLong();
    final AtomicLong longestGap = new AtomicLong();
    volatile String firstError;
    long nextId = 1;
    final List<Long> movingChannels = new ArrayList<>();
    final List<Long> otherChannels = new ArrayList<>();

    Traffic(Router router, Random random) {
      this.router = router;
      this.random = random;
      KeyRange moving = KeyRange.parse("c0-");
      for (long ch = 1; movingChannels.size() < 50 || otherChannels.size() < 50; ch++) {
        (moving.contains(HASH.keyspaceId(ch)) ? movingChannels : otherChannels).add(ch);
      }
    }

    void load(int n) {
      for (int i = 0; i < n; i++) {
        insert(i % 4 == 0 ? pick(otherChannels) : pick(movingChannels));
      }
    }

    void run() {
      while (!stop.get()) {
        try {
          int op = random.nextInt(10);
          if (op < 5) {
            insert(random.nextInt(5) == 0 ? pick(otherChannels) : pick(movingChannels));
          } else if (op < 8) {
            Long id = anyId();
            if (id != null) {
              long ch = expected.get(id);
              router.inTransaction(
                  tx ->
                      tx.update(
                          "messages",
                          ch,
                          "UPDATE messages SET body = CONCAT(body, '+') WHERE id = ?",
                          id));
              ack(ch);
            }
          } else if (op < 9) {
            Long id = anyId();
            if (id != null) {
              long ch = expected.remove(id);
              router.inTransaction(
                  tx -> tx.update("messages", ch, "DELETE FROM messages WHERE id = ?", id));
              ack(ch);
            }
          } else {
            long ch = pick(movingChannels);
            router.query("messages", ch, "SELECT * FROM messages WHERE channel_id = ? LIMIT 5", ch);
            reads.incrementAndGet();
          }
          ops.incrementAndGet();
        } catch (RuntimeException e) {
          if (firstError == null) {
            firstError = e.toString();
          }
          writeErrors.incrementAndGet();
        }
      }
    }

    private void insert(long ch) {
      long id = nextId++;
      router.inTransaction(
          tx ->
              tx.update("messages", ch, "INSERT INTO messages VALUES (?, ?, ?)", id, ch, "m" + id));
      expected.put(id, ch);
      ack(ch);
    }

    private void ack(long ch) {
      if (KeyRange.parse("c0-").contains(HASH.keyspaceId(ch))) {
        long now = System.nanoTime();
        long prev = lastMovingAck.getAndSet(now);
        if (prev != 0) {
          longestGap.accumulateAndGet(now - prev, Math::max);
        }
      }
    }

    long longestGapMillis() {
      return longestGap.get() / 1_000_000;
    }

    private Long anyId() {
      List<Long> ids = new ArrayList<>(expected.keySet());
      return ids.isEmpty() ? null : ids.get(random.nextInt(ids.size()));
    }

    private long pick(List<Long> list) {
      return list.get(random.nextInt(list.size()));
    }
  }

  /** The shard map topic of the test cluster, as the switcher's tests publish it. */
  static ShardMapTopicConfig shardMapTopic(TestCluster cluster) {
    return ShardMapTopicConfig.builder()
        .bootstrapServers(cluster.bootstrap())
        .topic(cluster.topicPrefix() + ".shardmaps")
        .transactionalIdPrefix(cluster.topicPrefix() + "-shardmap-")
        .build();
  }

  static ShardServer server(String shard, ClusterDescriptor.Server s, long captureId) {
    return new ShardServer(shard, s.name(), s.host(), s.port(), s.user(), "", captureId);
  }

  static void assertClean(List<DiffReport> reports) {
    for (DiffReport r : reports) {
      assertTrue(r.isClean(), r.toString());
    }
  }

  static boolean readOnly(ClusterDescriptor.Server s) throws Exception {
    try (Connection c = java.sql.DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@read_only")) {
      rs.next();
      return rs.getInt(1) == 1;
    }
  }

  /**
   * Plain SQL on every server of the final map: each expected row once, on its shard, nothing else.
   */
  static void assertEveryRowOnceOnItsShard(
      TestCluster cluster, ShardMap map, Map<Long, Long> expected) throws Exception {
    Map<Long, Integer> seen = new HashMap<>();
    int wrongShard = 0;
    for (var shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      ClusterDescriptor.Server s =
          cluster.descriptor().mariadb().stream()
              .filter(x -> x.name().equals(shard.endpoint()))
              .findFirst()
              .orElseThrow();
      try (Connection c = cluster.connect(s);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT id, channel_id FROM messages")) {
        while (rs.next()) {
          seen.merge(rs.getLong(1), 1, Integer::sum);
          if (!shard.range().contains(HASH.keyspaceId(rs.getLong(2)))) {
            wrongShard++;
          }
        }
      }
    }
    Set<Long> missing = new java.util.TreeSet<>(expected.keySet());
    missing.removeAll(seen.keySet());
    Set<Long> extra = new java.util.TreeSet<>(seen.keySet());
    extra.removeAll(expected.keySet());
    long duplicated = seen.values().stream().filter(n -> n > 1).count();
    assertEquals(Set.of(), missing, "acknowledged rows missing");
    assertEquals(Set.of(), extra, "rows that should not exist (deleted, or never acknowledged)");
    assertEquals(0, duplicated, "rows present more than once");
    assertEquals(0, wrongShard, "rows on a shard their keyspace id does not name");
  }
}
