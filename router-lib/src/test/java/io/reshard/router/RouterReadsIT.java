package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Lookup, targeted and scatter reads return exactly what one server holding every row returns
 * (issue 3 test c). Rows go in through the router (so lookup rows are kept in step); the same rows
 * go into {@code messages_ref} on a spare server with plain SQL.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouterReadsIT {
  private static final int MESSAGES = 400;
  private static final int CHANNELS = 40;
  private static final int USERS = 25;
  private static final Comparator<Map<String, Object>> NEWEST_FIRST =
      Comparator.<Map<String, Object>, java.sql.Timestamp>comparing(
              r -> (java.sql.Timestamp) r.get("created_at"))
          .thenComparing(r -> (Long) r.get("id"))
          .reversed();

  private final ChatKeyspace ks;
  private final ClusterDescriptor.Server reference;
  private Router router;

  RouterReadsIT(TestCluster cluster) throws SQLException {
    ks = new ChatKeyspace(cluster);
    reference = cluster.spares().get(0);
  }

  @BeforeAll
  void load() throws SQLException {
    router = ks.router(RouterConfig.defaults());
    ks.cluster.execute(reference, "CREATE TABLE messages_ref LIKE messages");
    Random random = new Random(42);
    LocalDateTime t0 = LocalDateTime.of(2026, 1, 1, 0, 0);
    try (Connection ref = ks.cluster.connect(reference);
        var ps = ref.prepareStatement("INSERT INTO messages_ref VALUES (?, ?, ?, ?, ?)")) {
      for (long id = 1; id <= MESSAGES; id++) {
        long channel = 1 + random.nextInt(CHANNELS);
        long user = 1 + random.nextInt(USERS);
        LocalDateTime at =
            t0.plusSeconds(random.nextInt(100_000)).plusNanos(random.nextInt(1000) * 1000L);
        String body = "message " + id;
        router.insert(
            "messages",
            ordered(
                "id", id, "channel_id", channel, "user_id", user, "created_at", at, "body", body));
        ps.setLong(1, id);
        ps.setLong(2, channel);
        ps.setLong(3, user);
        ps.setObject(4, at);
        ps.setString(5, body);
        ps.executeUpdate();
      }
    }
  }

  @AfterAll
  void close() {
    router.close();
  }

  @Test
  void everyRowIsOnTheShardItsKeyspaceIdSaysAndOnlyThere() throws SQLException {
    long total = 0;
    for (int i = 0; i < 4; i++) {
      String server = "db" + (i + 1);
      KeyRange range = KeyRange.parse(ChatKeyspace.SHARDS.get(i));
      List<Map<String, Object>> rows = rows(server, "SELECT channel_id FROM messages");
      for (Map<String, Object> r : rows) {
        assertTrue(range.contains(Vindex.of(VindexType.HASH).keyspaceId(r.get("channel_id"))));
      }
      total += rows.size();
      assertEquals(
          ks.count(server, "SELECT COUNT(*) FROM message_lookup"),
          rows(server, "SELECT id FROM message_lookup").stream()
              .filter(r -> range.contains(Vindex.of(VindexType.HASH).keyspaceId(r.get("id"))))
              .count(),
          "lookup rows are placed by their own id");
    }
    assertEquals(MESSAGES, total);
    assertEquals(MESSAGES, router.scatterCount("SELECT COUNT(*) FROM message_lookup"));
  }

  @Test
  void aLookupReadReturnsWhatTheReferenceReturns() throws SQLException {
    for (long id = 1; id <= MESSAGES; id += 7) {
      List<Map<String, Object>> got =
          router.queryByLookup("messages", "id", id, "SELECT * FROM messages WHERE id = ?", id);
      assertEquals(
          rows(reference.name(), "SELECT * FROM messages_ref WHERE id = " + id), got, "id " + id);
    }
    assertEquals(
        List.of(),
        router.queryByLookup(
            "messages", "id", 999_999L, "SELECT * FROM messages WHERE id = ?", 999_999L));
    assertEquals(Optional.empty(), router.lookup("messages", "id", 999_999L));
  }

  @Test
  void targetedReadsByChannelReturnWhatTheReferenceReturns() throws SQLException {
    for (long channel = 1; channel <= CHANNELS; channel++) {
      String sql =
          "SELECT * FROM %s WHERE channel_id = ? ORDER BY created_at DESC, id DESC LIMIT 50";
      List<Map<String, Object>> got =
          router.query("messages", channel, sql.formatted("messages"), channel);
      assertEquals(
          rows(reference.name(), sql.formatted("messages_ref").replace("?", "" + channel)), got);
    }
  }

  @Test
  void scatterReadsByUserReturnWhatTheReferenceReturns() throws SQLException {
    for (long user = 1; user <= USERS; user++) {
      String sql = "SELECT * FROM %s WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT 5";
      List<Map<String, Object>> got =
          router.scatterOrdered(sql.formatted("messages"), NEWEST_FIRST, 5, user);
      assertEquals(
          rows(reference.name(), sql.formatted("messages_ref").replace("?", "" + user)),
          got,
          "user " + user);
      assertEquals(
          ks.count(reference.name(), "SELECT COUNT(*) FROM messages_ref WHERE user_id = " + user),
          router.scatterCount("SELECT COUNT(*) FROM messages WHERE user_id = ?", user));
    }
  }

  @Test
  void aDeleteRemovesTheLookupRowToo() throws SQLException {
    long id = MESSAGES + 1;
    router.insert(
        "messages",
        ordered(
            "id",
            id,
            "channel_id",
            3L,
            "user_id",
            1L,
            "created_at",
            LocalDateTime.now(),
            "body",
            "bye"));
    assertTrue(router.lookup("messages", "id", id).isPresent());
    assertEquals(1, router.delete("messages", ordered("id", id, "channel_id", 3L)));
    assertEquals(Optional.empty(), router.lookup("messages", "id", id));
    assertEquals(MESSAGES, router.scatterCount("SELECT COUNT(*) FROM messages"));
  }

  @Test
  void metricsCountShardQueriesPerReadKind() {
    double before = router.metrics().reads("lookup");
    router.queryByLookup("messages", "id", 5L, "SELECT * FROM messages WHERE id = ?", 5L);
    assertEquals(before + 1, router.metrics().reads("lookup"));
    assertTrue(router.metrics().reads("scatter") > 0);
    assertTrue(router.metrics().meanFanout() > 1);
    assertTrue(!router.metrics().hottestKeys(3).isEmpty());
  }

  private List<Map<String, Object>> rows(String server, String sql) throws SQLException {
    try (Connection c = ks.cluster.connect(ks.server(server))) {
      return Rows.query(c, sql);
    }
  }

  private static Map<String, Object> ordered(Object... kv) {
    Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      m.put((String) kv[i], kv[i + 1]);
    }
    return m;
  }
}
