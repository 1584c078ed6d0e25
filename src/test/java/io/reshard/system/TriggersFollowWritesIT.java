package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.VSchema;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.TriggerMode;
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
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A workflow with {@code --triggers=follow-writes} on a table whose BEFORE INSERT and BEFORE UPDATE
 * triggers rewrite the row ({@code body} gets a {@code +}, {@code edits} counts the updates) and
 * write an audit row into another moved table. Application writes (plain SQL on whichever side owns
 * writes) before the workflow, while it copies and runs, after the write switch, after reverse
 * traffic and after the second switch: every row's {@code body} has exactly one {@code +} and its
 * {@code edits} the number of updates the test made, there is exactly one audit row per application
 * write, on the owner and on the source the reverse streams fill, and the triggers are only where
 * writes are owned at every step. With triggers on the sources during reverse traffic (the old code
 * accepted them), each reversed update would add a second {@code edits} increment and audit row; on
 * targets that had them while filled, each copied or applied row would.
 */
@ExtendWith(LocalClusterExtension.class)
class TriggersFollowWritesIT {
  private static final String VSCHEMA =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
          + "\"messages\": {\"column_vindexes\": [{\"column\": \"channel_id\", \"name\":"
          + " \"hash\"}]}, \"audit\": {\"column_vindexes\": [{\"column\": \"channel_id\","
          + " \"name\": \"hash\"}]}}}";

  private final Map<Long, Integer> updates = new TreeMap<>();
  private long writes;
  private long chLow;
  private long chHigh;

  @Test
  void triggersFireOncePerApplicationWriteAndLiveOnlyWhereWritesAreOwned(TestCluster cluster)
      throws Exception {
    String ks = cluster.database();
    ClusterDescriptor.Server source = cluster.shards().get(3);
    List<ClusterDescriptor.Server> targets = cluster.spares();
    chLow = SplitFixture.channelIn("c0-e0");
    chHigh = SplitFixture.channelIn("e0-");
    List<ShardAssignment> v1 = prepare(cluster, ks);
    WorkflowSpec spec =
        new WorkflowSpec(
            "follow",
            ks,
            VSchema.parse(VSCHEMA),
            List.of(SplitLifecycleIT.server("c0-", source, 7901)),
            List.of(
                SplitLifecycleIT.server("c0-e0", targets.get(0), 7902),
                SplitLifecycleIT.server("e0-", targets.get(1), 7903)),
            cluster.bootstrap(),
            cluster.topicPrefix(),
            SplitLifecycleIT.shardMapTopic(cluster).topic(),
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30),
            io.reshard.switcher.AutoIncrementMode.SEQUENCE,
            java.util.Map.of(),
            TriggerMode.FOLLOW_WRITES);
    try (ShardMapPublisher publisher =
            ShardMapPublisher.open(SplitLifecycleIT.shardMapTopic(cluster), ks);
        KafkaWorkflowStore store =
            KafkaWorkflowStore.open(cluster.bootstrap(), cluster.topicPrefix() + ".workflows");
        WorkflowRunner runner =
            new WorkflowRunner(spec, new WorkflowEngine(store, Clock.systemUTC()), publisher)) {
      publisher.publish(ShardMap.first(ks, VSchema.parse(VSCHEMA), v1));
      writeOn(cluster, source, source, 1, 20, 1, 10);

      runner.create();
      assertEquals(
          2, store.load("follow").orElseThrow().schemaObjects().triggerDefinitions().size());
      runner.copy(CopierConfig.defaults());
      assertTriggers(cluster, ks, 2, 0, 0, "after the copy: on the source only");
      writeOn(cluster, source, source, 21, 30, 11, 20);
      writeOn(cluster, source, source, 0, -1, 1, 5);
      awaitAudit(cluster, ks, List.of(targets.get(0), targets.get(1)), writes, "forward");
      SplitLifecycleIT.assertClean(runner.diff());

      assertEquals(WorkflowState.WRITES_SWITCHED, runner.switchWrites(false).state());
      assertTriggers(cluster, ks, 0, 2, 2, "after the write switch: on the targets only");
      writeOn(cluster, targets.get(0), targets.get(1), 31, 40, 21, 30);
      awaitAudit(cluster, ks, List.of(source), writes, "reverse");

      assertEquals(WorkflowState.RUNNING, runner.reverseTraffic().state());
      assertTriggers(cluster, ks, 2, 0, 0, "after reverse traffic: on the source only");
      writeOn(cluster, source, source, 41, 50, 31, 40);
      awaitAudit(cluster, ks, List.of(targets.get(0), targets.get(1)), writes, "forward again");
      SplitLifecycleIT.assertClean(runner.diff());

      assertEquals(WorkflowState.WRITES_SWITCHED, runner.switchWrites(false).state());
      assertTriggers(cluster, ks, 0, 2, 2, "after the second switch: on the targets only");
      writeOn(cluster, targets.get(0), targets.get(1), 51, 60, 41, 50);
      awaitAudit(cluster, ks, List.of(source), writes, "reverse again");

      assertRowsAsWritten(cluster, ks, source, null);
      assertRowsAsWritten(cluster, ks, targets.get(0), chLow);
      assertRowsAsWritten(cluster, ks, targets.get(1), chHigh);
      assertEquals(WorkflowState.COMPLETED, runner.complete().state());
      assertTriggers(cluster, ks, 0, 2, 2, "after complete: on the targets");
    } finally {
      cluster.execute(source, "SET GLOBAL read_only = OFF");
    }
  }

  /** The tables and triggers on the four shards, their fence rows; the spares without tables. */
  private List<ShardAssignment> prepare(TestCluster cluster, String ks) throws Exception {
    List<ShardAssignment> v1 = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ClusterDescriptor.Server s = cluster.shards().get(i);
      cluster.execute(
          s,
          "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100), edits INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
          "CREATE TABLE audit (msg_id BIGINT, seq INT, channel_id BIGINT NOT NULL,"
              + " PRIMARY KEY (msg_id, seq)) ENGINE=InnoDB",
          "CREATE TRIGGER stamp_insert BEFORE INSERT ON messages FOR EACH ROW BEGIN"
              + " SET NEW.body = CONCAT(NEW.body, '+'), NEW.edits = 0;"
              + " INSERT INTO audit VALUES (NEW.id, 0, NEW.channel_id); END",
          "CREATE TRIGGER stamp_update BEFORE UPDATE ON messages FOR EACH ROW BEGIN"
              + " SET NEW.edits = NEW.edits + 1;"
              + " INSERT INTO audit VALUES (NEW.id, NEW.edits, NEW.channel_id); END");
      try (Connection c = cluster.connect(s)) {
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, ks, SplitLifecycleIT.SHARDS.get(i), 1, true);
      }
      v1.add(
          new ShardAssignment(
              KeyRange.parse(SplitLifecycleIT.SHARDS.get(i)), s.name(), true, true));
    }
    return v1;
  }

  /**
   * Application writes on the owner of each row ({@code low} holds channel {@code chLow}, {@code
   * high} channel {@code chHigh}): inserts ids {@code from..to} (odd ids in {@code chLow}), then
   * updates ids {@code updFrom..updTo} once each.
   */
  private void writeOn(
      TestCluster cluster,
      ClusterDescriptor.Server low,
      ClusterDescriptor.Server high,
      long from,
      long to,
      long updFrom,
      long updTo)
      throws Exception {
    for (long id = from; id <= to; id++) {
      long ch = id % 2 == 1 ? chLow : chHigh;
      cluster.execute(
          id % 2 == 1 ? low : high,
          "INSERT INTO messages (id, channel_id, body) VALUES ("
              + id
              + ", "
              + ch
              + ", 'm"
              + id
              + "')");
      updates.put(id, 0);
      writes++;
    }
    for (long id = updFrom; id <= updTo; id++) {
      cluster.execute(
          id % 2 == 1 ? low : high,
          "UPDATE messages SET body = CONCAT('m', id, '+') WHERE id = " + id);
      updates.merge(id, 1, Integer::sum);
      writes++;
    }
  }

  /** Waits until the audit rows on {@code servers} add up to {@code expected}. */
  private static void awaitAudit(
      TestCluster cluster,
      String ks,
      List<ClusterDescriptor.Server> servers,
      long expected,
      String what)
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    long seen = -1;
    while (System.nanoTime() < deadline) {
      seen = 0;
      for (ClusterDescriptor.Server s : servers) {
        seen += count(cluster, s, "SELECT COUNT(*) FROM `" + ks + "`.audit");
      }
      if (seen == expected) {
        Thread.sleep(500); // and nothing more arrives: a second firing would add rows
        long again = 0;
        for (ClusterDescriptor.Server s : servers) {
          again += count(cluster, s, "SELECT COUNT(*) FROM `" + ks + "`.audit");
        }
        assertEquals(expected, again, what + ": audit rows, one per application write");
        return;
      }
      assertTrue(
          seen < expected, what + ": more audit rows than writes: " + seen + " > " + expected);
      Thread.sleep(100);
    }
    throw new AssertionError(what + ": " + seen + " audit rows, expected " + expected);
  }

  /**
   * Every row as the application wrote it, once on {@code s} (only channel {@code ch}'s, if not
   * null): one {@code +}, {@code edits} its updates, one audit row per write of it.
   */
  private void assertRowsAsWritten(
      TestCluster cluster, String ks, ClusterDescriptor.Server s, Long ch) throws Exception {
    Map<Long, String> expected = new TreeMap<>();
    Map<Long, String> actual = new TreeMap<>();
    updates.forEach(
        (id, n) -> {
          long c = id % 2 == 1 ? chLow : chHigh;
          if (ch == null || ch == c) {
            expected.put(id, "m" + id + "+ " + n + " audit " + (n + 1));
          }
        });
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs =
            st.executeQuery(
                "SELECT m.id, m.body, m.edits, (SELECT COUNT(*) FROM `"
                    + ks
                    + "`.audit a"
                    + " WHERE a.msg_id = m.id) FROM `"
                    + ks
                    + "`.messages m")) {
      while (rs.next()) {
        actual.put(rs.getLong(1), rs.getString(2) + " " + rs.getInt(3) + " audit " + rs.getLong(4));
      }
    }
    assertEquals(expected, actual, "rows on " + s.name());
  }

  private static void assertTriggers(
      TestCluster cluster, String ks, long onSource, long onLow, long onHigh, String when)
      throws Exception {
    String sql =
        "SELECT COUNT(*) FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = '" + ks + "'";
    assertEquals(onSource, count(cluster, cluster.shards().get(3), sql), when + ": source");
    assertEquals(onLow, count(cluster, cluster.spares().get(0), sql), when + ": c0-e0");
    assertEquals(onHigh, count(cluster, cluster.spares().get(1), sql), when + ": e0-");
  }

  private static long count(TestCluster cluster, ClusterDescriptor.Server s, String sql)
      throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
