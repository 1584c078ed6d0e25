package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.KeyRange;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowState;
import io.reshard.switcher.WorkflowStatus;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A split moves a table whose primary key starts with an ENUM, and a table placed by an ENUM column
 * with {@code xxhash}, exactly: the copy (in chunks of a few rows, so that many chunk bounds fall
 * inside and between ENUM values, the error value {@code ''} first), then changes through the
 * stream (a primary-key ENUM changed, rows inserted and deleted, a placing ENUM changed so the row
 * moves to the other target), then a clean diff. Independently of the pipeline's own placement,
 * plain SQL checks that every row is on the target that router-lib's vindex gives its label, and
 * that each table's rows on the targets are the source's rows.
 *
 * <p>On the code before the one placement rule the copy placed an ENUM by its index text ({@code
 * xxhash("1")}) while apply and router-lib place it by its label, so the placement check failed;
 * and an ENUM primary key was refused at create.
 */
@ExtendWith(LocalClusterExtension.class)
class EnumKeyMoveIT {
  private static final long CAPTURE_ID = 7701;
  private static final Vindex XXHASH = Vindex.of(VindexType.XXHASH);
  private static final KeyRange LEFT = KeyRange.parse("c0-e0");
  private static final KeyRange RIGHT = KeyRange.parse("e0-");

  @Test
  void anEnumPrimaryKeyAndAnEnumShardingColumnMoveExactly(TestCluster cluster) throws Exception {
    String ks = cluster.database();
    ClusterDescriptor.Server source = cluster.shards().get(3);
    List<ShardAssignment> v1 = SplitFixture.prepare(cluster, ks);
    // colors are placed by their label: two that belong on each target
    List<String> colors = new ArrayList<>(labelsIn(LEFT, 2));
    colors.addAll(labelsIn(RIGHT, 2));
    String colorType =
        "ENUM(" + String.join(",", colors.stream().map(l -> "'" + l + "'").toList()) + ")";
    List<Long> ids = idsIn(KeyRange.parse("c0-"), 120);
    StringBuilder tickets = new StringBuilder();
    StringBuilder painted = new StringBuilder();
    String[] states = {"new", "open", "held", "closed"};
    for (int i = 0; i < ids.size(); i++) {
      tickets.append(i == 0 ? "" : ",");
      tickets.append("('").append(states[i % 4]).append("',").append(ids.get(i));
      tickets.append(",'t").append(i).append("')");
      painted.append(i == 0 ? "" : ",");
      painted.append("(").append(i + 1).append(",'").append(colors.get(i % 4)).append("',");
      painted.append(ids.get(i)).append(")");
    }
    cluster.execute(
        source,
        // the labels are not in alphabetical order: the key orders by index, as the server does
        "CREATE TABLE tickets (state ENUM('new','open','held','closed') NOT NULL,"
            + " id BIGINT NOT NULL, body VARCHAR(40), PRIMARY KEY (state, id)) ENGINE=InnoDB",
        "CREATE TABLE painted (id BIGINT PRIMARY KEY, color "
            + colorType
            + " NOT NULL, owner BIGINT NOT NULL) ENGINE=InnoDB",
        "INSERT INTO tickets VALUES " + tickets,
        "INSERT INTO painted VALUES " + painted);
    try (Connection c = cluster.connect(source);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION sql_mode = ''"); // the ENUM's error value, index 0
      st.execute("INSERT INTO tickets VALUES ('no-such-state', " + ids.get(0) + ", 'error')");
    }
    String vschemaJson =
        """
        {"sharded": true,
         "vindexes": {"hash": {"type": "hash"}, "xx": {"type": "xxhash"}},
         "tables": {
           "tickets": {"column_vindexes": [{"column": "id", "name": "hash"}]},
           "painted": {"column_vindexes": [{"column": "color", "name": "xx"}]}}}
        """;
    VSchema vschema = VSchema.parse(vschemaJson);
    ShardMapTopicConfig topic = SplitLifecycleIT.shardMapTopic(cluster);
    WorkflowSpec spec = spec(cluster, vschema);
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ks);
        KafkaWorkflowStore store =
            KafkaWorkflowStore.open(cluster.bootstrap(), cluster.topicPrefix() + ".workflows");
        WorkflowRunner runner =
            new WorkflowRunner(spec, new WorkflowEngine(store, Clock.systemUTC()), publisher)) {
      publisher.publish(ShardMap.first(ks, vschema, v1));
      runner.create();
      runner.copy(
          CopierConfig.from(
              Map.of(
                  "copy.chunk.rows", "7", "copy.chunk.rows.min", "5", "copy.chunk.rows.max", "9")));
      assertEquals(WorkflowState.RUNNING, runner.workflow().state());
      assertPlacedAndComplete(cluster, spec);

      cluster.execute(
          source,
          "UPDATE tickets SET state = 'closed' WHERE state = 'open' AND id = " + ids.get(1),
          "UPDATE tickets SET state = 'held', body = 'was error' WHERE state = ''",
          "DELETE FROM tickets WHERE state = 'new' AND id = " + ids.get(4),
          "INSERT INTO tickets VALUES ('new', " + ids.get(1) + ", 'again')",
          "UPDATE painted SET color = '" + colors.get(3) + "' WHERE id = 1", // to the other target
          "UPDATE painted SET color = '" + colors.get(0) + "' WHERE id = 4", // and back
          "DELETE FROM painted WHERE id = 2",
          "INSERT INTO painted VALUES (1000, '" + colors.get(2) + "', 7)");
      awaitApplied(runner, sourcePosition(cluster, source));
      assertPlacedAndComplete(cluster, spec);
      SplitLifecycleIT.assertClean(runner.diff());
    }
  }

  /**
   * Every row of both tables on the target its label (or id) places it on, by router-lib's vindex
   * alone, and the targets together hold exactly the source's rows.
   */
  private static void assertPlacedAndComplete(TestCluster cluster, WorkflowSpec spec)
      throws Exception {
    Map<String, String> sourceTickets = rows(cluster, cluster.shards().get(3), TICKETS);
    Map<String, String> sourcePainted = rows(cluster, cluster.shards().get(3), PAINTED);
    Map<String, String> targetTickets = new TreeMap<>();
    Map<String, String> targetPainted = new TreeMap<>();
    List<KeyRange> ranges = List.of(LEFT, RIGHT);
    for (int i = 0; i < 2; i++) {
      ClusterDescriptor.Server t = cluster.spares().get(i);
      KeyRange range = ranges.get(i);
      Map<String, String> tickets = rows(cluster, t, TICKETS);
      for (String key : tickets.keySet()) {
        long id = Long.parseLong(key.substring(key.indexOf('/') + 1));
        assertTrue(range.contains(Vindex.of(VindexType.HASH).keyspaceId(id)), key + " on " + range);
      }
      Map<String, String> painted = rows(cluster, t, PAINTED);
      for (Map.Entry<String, String> row : painted.entrySet()) {
        String color = row.getValue().substring(0, row.getValue().indexOf('/'));
        assertTrue(
            range.contains(XXHASH.keyspaceId(color)),
            "painted " + row.getKey() + " (" + color + ") on " + range);
      }
      targetTickets.putAll(tickets);
      targetPainted.putAll(painted);
    }
    assertEquals(sourceTickets, targetTickets, "tickets on the targets");
    assertEquals(sourcePainted, targetPainted, "painted on the targets");
    assertTrue(sourceTickets.size() > 100 && sourcePainted.size() > 100, "rows were moved");
  }

  private static final String TICKETS =
      "SELECT CONCAT(state + 0, '/', id), CONCAT(state, '/', COALESCE(body, '-')) FROM tickets";
  private static final String PAINTED =
      "SELECT id, CONCAT(color, '/', color + 0, '/', owner) FROM painted";

  private static Map<String, String> rows(
      TestCluster cluster, ClusterDescriptor.Server s, String sql) throws Exception {
    Map<String, String> out = new TreeMap<>();
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.put(rs.getString(1), rs.getString(2));
      }
    }
    return out;
  }

  /** The first {@code n} labels {@code l0, l1, ...} whose xxhash lies in {@code range}. */
  private static List<String> labelsIn(KeyRange range, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; out.size() < n; i++) {
      if (range.contains(XXHASH.keyspaceId("l" + i))) {
        out.add("l" + i);
      }
    }
    return out;
  }

  /** The first {@code n} ids whose hash lies in {@code range}. */
  private static List<Long> idsIn(KeyRange range, int n) {
    List<Long> out = new ArrayList<>();
    for (long id = 1; out.size() < n; id++) {
      if (range.contains(Vindex.of(VindexType.HASH).keyspaceId(id))) {
        out.add(id);
      }
    }
    return out;
  }

  private static WorkflowSpec spec(TestCluster cluster, VSchema vschema) {
    return new WorkflowSpec(
        "enum-keys",
        cluster.database(),
        vschema,
        List.of(SplitLifecycleIT.server("c0-", cluster.shards().get(3), CAPTURE_ID)),
        List.of(
            SplitLifecycleIT.server("c0-e0", cluster.spares().get(0), CAPTURE_ID + 1),
            SplitLifecycleIT.server("e0-", cluster.spares().get(1), CAPTURE_ID + 2)),
        cluster.bootstrap(),
        cluster.topicPrefix(),
        SplitLifecycleIT.shardMapTopic(cluster).topic(),
        Duration.ofSeconds(5),
        Duration.ofSeconds(2),
        Duration.ofSeconds(30));
  }

  private static GtidPosition sourcePosition(TestCluster cluster, ClusterDescriptor.Server s)
      throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@gtid_binlog_pos")) {
      rs.next();
      return GtidPosition.parse(rs.getString(1));
    }
  }

  /** Waits until every forward stream has applied {@code position}. */
  private static void awaitApplied(WorkflowRunner runner, GtidPosition position)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (true) {
      List<WorkflowStatus.Stream> streams = runner.status().streams();
      if (streams.stream()
          .allMatch(
              st ->
                  st.positions().values().stream()
                      .allMatch(p -> GtidPosition.parse(p).covers(position)))) {
        return;
      }
      assertTrue(System.nanoTime() < deadline, "the streams did not apply " + position);
      Thread.sleep(100);
    }
  }
}
