package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Ids from a sequence (a table in an unsharded keyspace on db1, Vitess's layout): 8 threads
 * inserting through two routers, one of them restarted, and through writes switched from {@code
 * c0-} to {@code c0-e0} and {@code e0-} and back (played by hand, as in {@link RouterSwitchIT}).
 * Every id is counted on every server with plain SQL: none twice.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SequenceIT {
  private static final int THREADS = 8;

  private final ChatKeyspace ks;
  private final String seqKeyspace;
  private final StaticShardMapSource seqMaps;

  SequenceIT(TestCluster cluster) throws SQLException {
    seqKeyspace = cluster.database() + "_seq";
    String vschema =
        ChatKeyspace.VSCHEMA.replace(
            "\"accounts\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}",
            "\"accounts\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}],"
                + " \"auto_increment\": {\"column\": \"id\", \"sequence\": \""
                + seqKeyspace
                + ".accounts_seq\"}},"
                + " \"notes\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}],"
                + " \"auto_increment\": {\"column\": \"id\", \"sequence\": \""
                + seqKeyspace
                + ".missing_seq\"}}");
    ks = new ChatKeyspace(cluster, vschema);
    ClusterDescriptor.Server db1 = ks.server("db1");
    cluster.execute(db1, "CREATE DATABASE IF NOT EXISTS `" + seqKeyspace + "`");
    VSchema seqVSchema =
        VSchema.parse("{\"tables\": {\"accounts_seq\": {\"type\": \"sequence\"}}}");
    seqMaps =
        StaticShardMapSource.of(
            ShardMap.first(
                seqKeyspace,
                seqVSchema,
                List.of(new ShardAssignment(KeyRange.parse("-"), "db1", true, true))));
  }

  @BeforeEach
  void reset() throws SQLException {
    for (int i = 1; i <= 6; i++) {
      ks.cluster.execute(ks.server("db" + i), "DELETE FROM accounts");
    }
    for (int i = 0; i < 4; i++) {
      ks.setFence("db" + (i + 1), ChatKeyspace.SHARDS.get(i), 1, true);
    }
    try (Connection c = seqConnection()) {
      try (Statement st = c.createStatement()) {
        st.execute("DROP TABLE IF EXISTS accounts_seq");
      }
      // a small block, so the 8 threads reserve hundreds of blocks concurrently
      Sequence.createTable(c, "accounts_seq", 1, 7);
    }
  }

  @AfterAll
  void dropSequenceKeyspace() throws SQLException {
    ks.cluster.execute(ks.server("db1"), "DROP DATABASE IF EXISTS `" + seqKeyspace + "`");
  }

  private Connection seqConnection() throws SQLException {
    ClusterDescriptor.Server db1 = ks.server("db1");
    Connection c = ks.cluster.connect(db1);
    c.setCatalog(seqKeyspace);
    return c;
  }

  private Router router(StaticShardMapSource maps) {
    return Router.builder(maps, ks.endpoints()).sequenceKeyspace(seqMaps).build();
  }

  @Test
  void eightThreadsOverTwoRoutersAndARestartNeverRepeatAnId() throws Exception {
    StaticShardMapSource maps = StaticShardMapSource.of(ks.v1);
    List<AtomicReference<Router>> routers =
        List.of(new AtomicReference<>(router(maps)), new AtomicReference<>(router(maps)));
    // inserts hold the read lock; the restart takes the write lock, so no insert is cut off
    ReadWriteLock restart = new ReentrantReadWriteLock();
    int perThread = 150;
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<List<Long>>> results = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      AtomicReference<Router> mine = routers.get(t % 2);
      results.add(
          pool.submit(
              () -> {
                List<Long> ids = new ArrayList<>();
                for (int i = 0; i < perThread; i++) {
                  restart.readLock().lock();
                  try {
                    Map<String, Object> row = mine.get().insert("accounts", Map.of("credits", 1L));
                    ids.add((Long) row.get("id"));
                  } finally {
                    restart.readLock().unlock();
                  }
                }
                return ids;
              }));
    }
    Thread.sleep(500);
    restart.writeLock().lock();
    try { // a restart: the router closes, losing the rest of its block; a new one starts
      routers.get(0).getAndSet(router(maps)).close();
    } finally {
      restart.writeLock().unlock();
    }
    List<Long> acknowledged = new ArrayList<>();
    for (Future<List<Long>> f : results) {
      acknowledged.addAll(f.get(120, TimeUnit.SECONDS));
    }
    pool.shutdown();
    routers.forEach(r -> r.get().close());
    assertEquals(THREADS * perThread, acknowledged.size());
    assertEquals(acknowledged.size(), acknowledged.stream().distinct().count(), "no id twice");
    Map<Long, Integer> onServers = idsOnEveryServer();
    assertEquals(acknowledged.size(), onServers.size(), "every acknowledged row is stored");
    assertTrue(onServers.values().stream().allMatch(n -> n == 1), "each id on one server once");
    assertTrue(
        onServers.keySet().containsAll(acknowledged), "the ids stored are the ids acknowledged");
    try (Connection c = seqConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT next_id FROM accounts_seq WHERE id = 0")) {
      rs.next();
      long max = acknowledged.stream().mapToLong(Long::longValue).max().orElseThrow();
      assertTrue(rs.getLong(1) > max, "next_id is past every id handed out");
    }
  }

  @Test
  void idsStayUniqueWhileWritesSwitchAndReverse() throws Exception {
    StaticShardMapSource maps = StaticShardMapSource.of(ks.v1);
    AtomicBoolean stop = new AtomicBoolean();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    List<Future<List<Long>>> results = new ArrayList<>();
    try (Router router = router(maps)) {
      for (int t = 0; t < THREADS; t++) {
        results.add(
            pool.submit(
                () -> {
                  List<Long> ids = new ArrayList<>();
                  while (!stop.get()) {
                    Map<String, Object> row = new HashMap<>();
                    row.put("id", null); // NULL is filled as well as a missing column
                    row.put("credits", 1L);
                    ids.add((Long) router.insert("accounts", row).get("id"));
                  }
                  return ids;
                }));
      }
      Thread.sleep(300);
      ShardMap v2 = switchC0(maps, maps.current(), true); // the split: c0-e0 and e0- take writes
      Thread.sleep(300);
      switchC0(maps, v2, false); // the reverse: c0- takes them again
      Thread.sleep(300);
      stop.set(true);
      List<Long> acknowledged = new ArrayList<>();
      for (Future<List<Long>> f : results) {
        acknowledged.addAll(f.get(60, TimeUnit.SECONDS));
      }
      pool.shutdown();
      assertTrue(acknowledged.size() > 100, "writes went on: " + acknowledged.size());
      assertEquals(acknowledged.size(), acknowledged.stream().distinct().count(), "no id twice");
      Map<Long, Integer> onServers = idsOnEveryServer();
      assertEquals(acknowledged.size(), onServers.size());
      assertTrue(onServers.values().stream().allMatch(n -> n == 1), "each id on one server once");
      assertTrue(ks.count("db5", "SELECT COUNT(*) FROM accounts") > 0, "c0-e0 took inserts");
      assertTrue(ks.count("db6", "SELECT COUNT(*) FROM accounts") > 0, "e0- took inserts");
    }
  }

  @Test
  void aSequenceTheRouterCannotUseIsNamedWithWhatToDo() throws Exception {
    try (Router without =
            Router.create(StaticShardMapSource.of(ks.v1), ks.endpoints(), RouterConfig.defaults());
        Router with = router(StaticShardMapSource.of(ks.v1))) {
      ReshardException noKeyspace =
          assertThrows(ReshardException.class, () -> without.nextId("accounts"));
      assertTrue(
          noKeyspace.getMessage().contains("this router was built without keyspace " + seqKeyspace),
          noKeyspace.getMessage());
      ReshardException undeclared =
          assertThrows(ReshardException.class, () -> with.nextId("notes"));
      assertTrue(
          undeclared.getMessage().contains("\"missing_seq\": {\"type\": \"sequence\"}"),
          undeclared.getMessage());
      IllegalArgumentException none =
          assertThrows(IllegalArgumentException.class, () -> with.nextId("messages"));
      assertTrue(none.getMessage().contains("has no \"auto_increment\""), none.getMessage());
      try (Connection c = seqConnection();
          Statement st = c.createStatement()) {
        st.execute("DELETE FROM accounts_seq");
      }
      ReshardException noRow = assertThrows(ReshardException.class, () -> with.nextId("accounts"));
      assertTrue(noRow.getMessage().contains("has no row id = 0; give it one"), noRow.getMessage());
      assertEquals(0, ks.count("db1", "SELECT COUNT(*) FROM accounts"));
    }
  }

  /**
   * Moves writes of {@code c0-} to {@code c0-e0} (db5) and {@code e0-} (db6), or back: fence the
   * old owners, open the new ones at the next map's epoch, publish.
   */
  private ShardMap switchC0(StaticShardMapSource maps, ShardMap current, boolean forward)
      throws SQLException {
    List<ShardAssignment> a = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      a.add(
          new ShardAssignment(
              KeyRange.parse(ChatKeyspace.SHARDS.get(i)), "db" + (i + 1), true, true));
    }
    a.add(new ShardAssignment(KeyRange.parse("c0-"), "db4", !forward, !forward));
    a.add(new ShardAssignment(KeyRange.parse("c0-e0"), "db5", forward, forward));
    a.add(new ShardAssignment(KeyRange.parse("e0-"), "db6", forward, forward));
    ShardMap next = current.next(current.vschema(), a);
    if (forward) {
      ks.setFence("db4", "c0-", current.shard(KeyRange.parse("c0-")).orElseThrow().epoch(), false);
      ks.setFence("db5", "c0-e0", next.shard(KeyRange.parse("c0-e0")).orElseThrow().epoch(), true);
      ks.setFence("db6", "e0-", next.shard(KeyRange.parse("e0-")).orElseThrow().epoch(), true);
    } else {
      ks.setFence(
          "db5", "c0-e0", current.shard(KeyRange.parse("c0-e0")).orElseThrow().epoch(), false);
      ks.setFence("db6", "e0-", current.shard(KeyRange.parse("e0-")).orElseThrow().epoch(), false);
      ks.setFence("db4", "c0-", next.shard(KeyRange.parse("c0-")).orElseThrow().epoch(), true);
    }
    assertTrue(maps.publish(next));
    return next;
  }

  /** How often each id of {@code accounts} is stored, over all six servers. */
  private Map<Long, Integer> idsOnEveryServer() throws SQLException {
    Map<Long, Integer> seen = new HashMap<>();
    for (int i = 1; i <= 6; i++) {
      try (Connection c = ks.cluster.connect(ks.server("db" + i));
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT id FROM accounts")) {
        while (rs.next()) {
          seen.merge(rs.getLong(1), 1, Integer::sum);
        }
      }
    }
    return seen;
  }
}
