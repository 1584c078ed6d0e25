package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What routers see while the write ownership of {@code c0-} moves to {@code c0-e0} (db5) and {@code
 * e0-} (db6): the switcher's steps are played here by hand (fence the source, make the targets
 * writable at the new epoch, publish version 2). Issue 3 tests d and e.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterSwitchIT {
  private final ChatKeyspace ks;

  RouterSwitchIT(TestCluster cluster) throws SQLException {
    ks = new ChatKeyspace(cluster);
  }

  @BeforeEach
  void reset() throws SQLException {
    for (int i = 1; i <= 6; i++) {
      ks.cluster.execute(ks.server("db" + i), "DELETE FROM accounts");
    }
    for (int i = 0; i < 4; i++) {
      ks.setFence("db" + (i + 1), ChatKeyspace.SHARDS.get(i), 1, true);
    }
  }

  /** Version 2: c0- stays on db4 but serves nothing; c0-e0 on db5 and e0- on db6 serve both. */
  private ShardMap splitOfC0(ShardMap v1) {
    List<ShardAssignment> a = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      a.add(
          new ShardAssignment(
              KeyRange.parse(ChatKeyspace.SHARDS.get(i)), "db" + (i + 1), true, true));
    }
    a.add(new ShardAssignment(KeyRange.parse("c0-"), "db4", false, false));
    a.add(new ShardAssignment(KeyRange.parse("c0-e0"), "db5", true, true));
    a.add(new ShardAssignment(KeyRange.parse("e0-"), "db6", true, true));
    return v1.next(v1.vschema(), a);
  }

  /** The switcher's steps 2, 7 and 8, with a pause while the source is fenced. */
  private ShardMap switchWrites(StaticShardMapSource maps, Duration fencedFor) throws Exception {
    ShardMap v2 = splitOfC0(maps.current());
    ks.setFence("db4", "c0-", 1, false);
    Thread.sleep(fencedFor.toMillis());
    ks.setFence("db5", "c0-e0", v2.shard(KeyRange.parse("c0-e0")).orElseThrow().epoch(), true);
    ks.setFence("db6", "e0-", v2.shard(KeyRange.parse("e0-")).orElseThrow().epoch(), true);
    assertTrue(maps.publish(v2));
    return v2;
  }

  @Test
  void aWriteBufferedDuringTheSwitchLandsOnTheNewOwner() throws Exception {
    StaticShardMapSource maps = StaticShardMapSource.of(ks.v1);
    long id = ChatKeyspace.keyIn("c0-e0", 1);
    try (Router router = Router.create(maps, ks.endpoints(), RouterConfig.defaults())) {
      ks.setFence("db4", "c0-", 1, false);
      CompletableFuture<Integer> write =
          CompletableFuture.supplyAsync(
              () ->
                  router.inTransaction(
                      tx ->
                          tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1000)", id)));
      Thread.sleep(400);
      assertFalse(write.isDone(), "the write waits while c0- is fenced and no new map exists");
      ShardMap v2 = switchWrites(maps, Duration.ZERO);
      assertEquals(1, write.get(10, TimeUnit.SECONDS));
      assertEquals(2, v2.shard(KeyRange.parse("c0-e0")).orElseThrow().epoch());
    }
    assertEquals(1, ks.count("db5", "SELECT COUNT(*) FROM accounts WHERE id = " + id));
    assertEquals(0, ks.count("db4", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void publishingAMapThatMovesOneRangeLeavesTheOtherShardsUndisturbed() throws Exception {
    StaticShardMapSource maps = StaticShardMapSource.of(ks.v1);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger errors = new AtomicInteger();
    AtomicLong written = new AtomicLong();
    AtomicLong writtenAtSwitch = new AtomicLong(-1);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try (Router router = Router.create(maps, ks.endpoints(), RouterConfig.defaults())) {
      for (String shard : List.of("-40", "40-80")) {
        pool.submit(
            () -> {
              long next = shard.equals("-40") ? 1 : 10_000_000;
              while (!stop.get()) {
                long id = ChatKeyspace.keyIn(shard, next);
                next = id + 1;
                try {
                  router.inTransaction(
                      tx -> tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1)", id));
                  written.incrementAndGet();
                } catch (RuntimeException e) {
                  errors.incrementAndGet();
                }
              }
            });
      }
      Thread.sleep(300);
      ShardMap v2 = switchWrites(maps, Duration.ofMillis(200));
      writtenAtSwitch.set(written.get());
      Thread.sleep(300);
      stop.set(true);
      pool.shutdown();
      assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));
      assertEquals(
          1,
          v2.shard(KeyRange.parse("-40")).orElseThrow().epoch(),
          "untouched shards keep their epoch");
      assertEquals(1, v2.shard(KeyRange.parse("40-80")).orElseThrow().epoch());
    }
    assertEquals(0, errors.get(), "writes to -40 and 40-80 never failed");
    assertTrue(written.get() > writtenAtSwitch.get(), "writes went on after the new map");
    assertEquals(
        written.get(),
        ks.count("db1", "SELECT COUNT(*) FROM accounts")
            + ks.count("db2", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void aRouterThatNeverRefreshesIsRefusedByTheOldOwnerEveryTime() throws Exception {
    StaticShardMapSource switcherView = StaticShardMapSource.of(ks.v1);
    StaticShardMapSource frozen = StaticShardMapSource.of(ks.v1);
    switchWrites(switcherView, Duration.ZERO);
    int attempts = 50;
    int accepted = 0;
    int refused = 0;
    try (Router stale =
        Router.create(
            frozen,
            ks.endpoints(),
            RouterConfig.builder().bufferWindow(Duration.ofMillis(50)).build())) {
      for (int i = 0; i < attempts; i++) {
        long id = ChatKeyspace.keyIn("c0-", 1000L * i);
        try (RouterTransaction tx = stale.begin()) {
          tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1)", id);
          tx.commit();
          accepted++;
        } catch (StaleShardMapException e) {
          refused++;
        }
      }
    }
    assertEquals(0, accepted);
    assertEquals(attempts, refused);
    assertEquals(0, ks.count("db4", "SELECT COUNT(*) FROM accounts"));
  }
}
