package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/** Fenced writes against real shards (DESIGN 4.3; issue 3 tests a and b). */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterFenceIT {
  private final ChatKeyspace ks;
  private Router router;

  RouterFenceIT(TestCluster cluster) throws SQLException {
    ks = new ChatKeyspace(cluster);
  }

  @BeforeEach
  void openRouter() throws SQLException {
    for (int i = 0; i < 4; i++) {
      ks.setFence("db" + (i + 1), ChatKeyspace.SHARDS.get(i), 1, true);
      ks.cluster.execute(ks.server("db" + (i + 1)), "DELETE FROM accounts");
    }
    router = ks.router(RouterConfig.builder().bufferWindow(Duration.ofMillis(300)).build());
  }

  @AfterEach
  void closeRouter() {
    router.close();
  }

  @Test
  void aFencedShardRefusesTheWriteAndKeepsNothing() throws SQLException {
    long id = ChatKeyspace.keyIn("-40", 1);
    ks.setFence("db1", "-40", 1, false);
    try (RouterTransaction tx = router.begin()) {
      StaleShardMapException e =
          assertThrows(
              StaleShardMapException.class,
              () -> tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1000)", id));
      assertTrue(e.isSwitching(), e.getMessage());
      assertTrue(
          e.getMessage().contains("shard " + ks.keyspace + "/-40 is fenced"), e.getMessage());
    }
    assertEquals(0, ks.count("db1", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void aShardAtAnotherEpochRefusesTheWrite() throws SQLException {
    long id = ChatKeyspace.keyIn("40-80", 1);
    ks.setFence("db2", "40-80", 7, true);
    try (RouterTransaction tx = router.begin()) {
      StaleShardMapException e =
          assertThrows(
              StaleShardMapException.class,
              () -> tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1000)", id));
      assertFalse(e.isSwitching());
      assertEquals(7, e.fenceEpoch());
      assertEquals(1, e.mapEpoch());
      assertTrue(
          e.getMessage().contains("is at epoch 7 but shard map version 1 says 1"), e.getMessage());
    }
    assertEquals(0, ks.count("db2", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void theFenceUpdateWaitsForAWriteInFlightSoNoWriteCommitsAfterIt() throws Exception {
    long id = ChatKeyspace.keyIn("80-c0", 1);
    ExecutorService fencer = Executors.newSingleThreadExecutor();
    try (RouterTransaction tx = router.begin()) {
      tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1000)", id);
      // the switcher's fence, issued while the router transaction holds the fence row
      Future<Long> fencedAt = fencer.submit(() -> fence("db3", "80-c0", 10));
      Thread.sleep(300);
      assertFalse(fencedAt.isDone(), "the fence update must wait for the write in flight");
      long committedAt = System.nanoTime();
      tx.commit();
      assertTrue(
          fencedAt.get(10, TimeUnit.SECONDS) > committedAt, "fence completed after the commit");
    } finally {
      fencer.shutdownNow();
    }
    assertEquals(1, ks.count("db3", "SELECT COUNT(*) FROM accounts WHERE id = " + id));
    long id2 = ChatKeyspace.keyIn("80-c0", id + 1);
    try (RouterTransaction tx = router.begin()) {
      assertThrows(
          StaleShardMapException.class,
          () -> tx.update("accounts", id2, "INSERT INTO accounts VALUES (?, 1000)", id2));
    }
    assertEquals(1, ks.count("db3", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void aFenceThatTimesOutBehindAWriteChangesNothing() throws Exception {
    long id = ChatKeyspace.keyIn("c0-", 1);
    try (RouterTransaction tx = router.begin()) {
      tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1000)", id);
      SQLException e = assertThrows(SQLException.class, () -> fence("db4", "c0-", 1));
      assertEquals(1205, e.getErrorCode(), e.getMessage());
      tx.commit();
    }
    assertEquals(
        1,
        ks.count(
            "db4", "SELECT writable FROM _reshard.fence WHERE keyspace = '" + ks.keyspace + "'"));
    long id2 = ChatKeyspace.keyIn("c0-", id + 1);
    router.inTransaction(
        tx -> tx.update("accounts", id2, "INSERT INTO accounts VALUES (?, 5)", id2));
    assertEquals(2, ks.count("db4", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void concurrentWritersEitherCommitBeforeTheFenceOrAreRefused() throws Exception {
    int writers = 8;
    Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger otherErrors = new AtomicInteger();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicInteger refusedAfterFence = new AtomicInteger();
    AtomicBoolean fenceDone = new AtomicBoolean();
    CountDownLatch started = new CountDownLatch(writers);
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    for (int w = 0; w < writers; w++) {
      long base = 1_000_000L * (w + 1);
      pool.submit(
          () -> {
            started.countDown();
            long next = base;
            while (!stop.get()) {
              long id = ChatKeyspace.keyIn("-40", next);
              next = id + 1;
              try (RouterTransaction tx = router.begin()) {
                tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1)", id);
                tx.commit();
                acknowledged.add(id);
              } catch (StaleShardMapException e) {
                refused.incrementAndGet();
                if (fenceDone.get()) {
                  refusedAfterFence.incrementAndGet();
                }
              } catch (RuntimeException e) {
                otherErrors.incrementAndGet();
              }
            }
          });
    }
    started.await();
    Thread.sleep(500);
    fence("db1", "-40", 10);
    fenceDone.set(true);
    long rowsAtFence = ks.count("db1", "SELECT COUNT(*) FROM accounts");
    Thread.sleep(500);
    stop.set(true);
    pool.shutdown();
    assertTrue(pool.awaitTermination(30, TimeUnit.SECONDS));

    long rowsAtEnd = ks.count("db1", "SELECT COUNT(*) FROM accounts");
    assertEquals(0, otherErrors.get());
    assertTrue(rowsAtFence > 0, "writers committed before the fence");
    assertTrue(refusedAfterFence.get() > 0, "writers kept trying after the fence");
    assertEquals(rowsAtFence, rowsAtEnd, "no write committed after the fence update");
    assertEquals(acknowledged.size(), rowsAtEnd, "every acknowledged write is there, nothing else");
    System.err.printf(
        "fence under load: %d writes committed before the fence, %d refused (%d after it)%n",
        acknowledged.size(), refused.get(), refusedAfterFence.get());
  }

  @Test
  void singleModeRefusesASecondShardAndRollsBackTheFirst() throws SQLException {
    long a = ChatKeyspace.keyIn("-40", 1);
    long b = ChatKeyspace.keyIn("c0-", 1);
    CrossShardTransactionException e =
        assertThrows(
            CrossShardTransactionException.class,
            () ->
                router.inTransaction(
                    tx -> {
                      tx.update("accounts", a, "INSERT INTO accounts VALUES (?, 10)", a);
                      return tx.update("accounts", b, "INSERT INTO accounts VALUES (?, 10)", b);
                    }));
    assertTrue(e.getMessage().contains("/-40 and shard " + ks.keyspace + "/c0-"), e.getMessage());
    assertEquals(0, ks.count("db1", "SELECT COUNT(*) FROM accounts"));
    assertEquals(0, ks.count("db4", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void multiModeCommitsOnBothShards() throws SQLException {
    long a = ChatKeyspace.keyIn("-40", 1);
    long b = ChatKeyspace.keyIn("c0-", 1);
    try (Router multi = ks.router(RouterConfig.builder().mode(TransactionMode.MULTI).build())) {
      multi.inTransaction(
          tx -> {
            tx.update("accounts", a, "INSERT INTO accounts VALUES (?, 10)", a);
            return tx.update("accounts", b, "INSERT INTO accounts VALUES (?, 10)", b);
          });
    }
    assertEquals(1, ks.count("db1", "SELECT COUNT(*) FROM accounts"));
    assertEquals(1, ks.count("db4", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void aWriteToASwitchingShardFailsClearlyWhenNoNewMapComesInTheWindow() throws SQLException {
    long id = ChatKeyspace.keyIn("c0-", 1);
    ks.setFence("db4", "c0-", 1, false);
    long t0 = System.nanoTime();
    ShardSwitchingException e =
        assertThrows(
            ShardSwitchingException.class,
            () ->
                router.inTransaction(
                    tx -> tx.update("accounts", id, "INSERT INTO accounts VALUES (?, 1)", id)));
    long waitedMs = (System.nanoTime() - t0) / 1_000_000;
    assertTrue(e.getMessage().contains("the shard was switching"), e.getMessage());
    assertTrue(e.getMessage().contains("within the buffer window of 300 ms"), e.getMessage());
    assertTrue(waitedMs >= 300, "waited " + waitedMs + " ms");
    assertEquals(0, ks.count("db4", "SELECT COUNT(*) FROM accounts"));
  }

  @Test
  void aNullShardingKeyIsRefused() {
    UnmappableValueException e =
        assertThrows(
            UnmappableValueException.class,
            () ->
                router.inTransaction(
                    tx -> tx.update("accounts", null, "INSERT INTO accounts VALUES (NULL, 1)")));
    assertTrue(e.getMessage().toLowerCase().contains("null"), e.getMessage());
  }

  /** The switcher's fence step on one shard; returns System.nanoTime() when it committed. */
  private long fence(String server, String shard, int lockWaitSeconds) throws SQLException {
    try (Connection c = ks.cluster.connect(ks.server(server));
        Statement s = c.createStatement()) {
      s.execute("SET SESSION innodb_lock_wait_timeout = " + lockWaitSeconds);
      c.setAutoCommit(false);
      ReshardSchema.setWritable(c, ks.keyspace, shard, false);
      c.commit();
      return System.nanoTime();
    }
  }
}
