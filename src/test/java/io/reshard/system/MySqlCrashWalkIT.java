package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.system.WorkflowCliIT.Inserter;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import io.reshard.testkit.UseFlavor;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The phase-boundary crash walk on MySQL 8.0.31: a split of the MySQL cluster's one shard into
 * {@code -80} and {@code 80-} under a router writer, the daemon halted (as kill -9 would leave it)
 * at every boundary {@link MySqlLifecycleIT} does not already halt at, plus one real kill -9 in the
 * middle of the copy, each time taken up by a new daemon from the stored state; then a clean diff,
 * the writes switched for good, complete, and every acknowledged insert exactly once on its owner.
 * {@link WorkflowCliIT} walks the same boundaries on MariaDB with two sources.
 */
@ExtendWith(LocalClusterExtension.class)
@UseFlavor(Flavor.MYSQL)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@LongRun
class MySqlCrashWalkIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NO_STREAM = "keyspace.stream.enabled=false";
  private static final int ROWS = 60_000;

  private final TestCluster cluster;
  private final CliSession ops;
  private final String ks;
  private final ClusterDescriptor.Server source;

  MySqlCrashWalkIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
    this.ks = cluster.database();
    this.source = cluster.shards().get(0);
    cluster.execute(
        source,
        "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
            + " body VARCHAR(100)) ENGINE=InnoDB");
    for (ClusterDescriptor.Server spare : cluster.spares()) {
      cluster.execute(spare, "DROP TABLE IF EXISTS messages");
    }
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    ops.close();
    cluster.execute(source, "SET GLOBAL super_read_only = OFF", "SET GLOBAL read_only = OFF");
  }

  @Test
  void theDaemonKilledAtEveryPhaseBoundaryFinishesTheSplit() throws Exception {
    load();
    ops.startDaemon(NO_STREAM);
    ops.initKeyspace(ks, SplitLifecycleIT.VSCHEMA, "--shards=-");
    String name = "crashy";
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(ops.topic(), ks);
        Router router = Router.create(maps, ops.endpoints(), RouterConfig.defaults())) {
      Inserter inserter = new Inserter(router, KeyRange.FULL);
      CompletableFuture<Void> writer = CompletableFuture.runAsync(inserter::run);
      try {
        // halted right after the record is stored, then when the copy records COPYING
        ops.startDaemonHaltingAt("state:CREATED", NO_STREAM);
        Run created =
            ops.cli(
                "workflow", "create", "--keyspace", ks, "--source", "-", "--targets=-80,80-", name);
        assertNotEquals(0, created.exit(), "the daemon died inside create: " + created.err());
        ops.awaitDaemonHalted();
        haltAt("state:COPYING");
        // a real kill -9 in the middle of the copy; then halted once it is done
        ops.startDaemon(NO_STREAM);
        ops.killDuringCopy(name);
        haltAt("state:RUNNING");
        ops.startDaemon(NO_STREAM);
        ops.awaitState(name, "RUNNING");
        ops.awaitCaughtUp(name);
        CliSession.assertClean(ops.diff(name));
        // halted right after the journal record, then at each step before the map is out
        ops.startDaemonHaltingAt("state:WRITES_SWITCHED", NO_STREAM);
        ops.awaitCaughtUp(name);
        assertNotEquals(0, ops.cli("workflow", "switch-traffic", name, "--writes").exit());
        ops.awaitDaemonHalted();
        for (String point :
            List.of("switch:reverse-started", "switch:targets-open", "switch:published")) {
          haltAt(point); // taking up the journal reaches the point
        }
        ops.startDaemon(NO_STREAM);
        ops.awaitState(name, "WRITES_SWITCHED");
        JsonNode map =
            JSON.readTree(ops.cli("shardmap", "show", "--keyspace", ks, "--output", "json").out());
        assertTrue(
            CliSession.servesWrites(map, "-80")
                && CliSession.servesWrites(map, "80-")
                && !CliSession.servesWrites(map, "-"),
            map.toString());
        // reverse traffic halted before its journal (rolled back), then after it
        ops.startDaemonHaltingAt("state:REVERSING", NO_STREAM);
        assertNotEquals(0, ops.cli("workflow", "reverse-traffic", name).exit());
        ops.awaitDaemonHalted();
        ops.startDaemonHaltingAt("reverse:journal", NO_STREAM);
        ops.awaitState(name, "WRITES_SWITCHED"); // rolled back
        assertNotEquals(0, ops.cli("workflow", "reverse-traffic", name).exit());
        ops.awaitDaemonHalted();
        for (String point : List.of("reverse:forward-started", "reverse:published")) {
          haltAt(point);
        }
        ops.startDaemon(NO_STREAM);
        ops.awaitState(name, "RUNNING");
        ops.awaitCaughtUp(name);
        CliSession.assertClean(ops.diff(name));
        assertEquals(0, ops.cli("workflow", "switch-traffic", name, "--writes").exit());
        assertEquals(0, ops.cli("workflow", "complete", name).exit());
      } finally {
        inserter.stop.set(true);
        writer.get();
      }
      System.err.printf(
          "[mysql crash walk] %d inserts acknowledged, %d failed while the daemon was down%n",
          inserter.acked.size(), inserter.failed.get());
      assertTrue(inserter.acked.size() > 100, "the writer ran: " + inserter.acked.size());
      Thread.sleep(500);
      ops.assertAckedOnce(ks, maps.current(), inserter.acked);
    }
  }

  /** Starts a daemon armed to halt at {@code failpoint}, which taking the workflow up reaches. */
  private void haltAt(String failpoint) throws Exception {
    ops.startDaemonHaltingAt(failpoint, NO_STREAM);
    ops.awaitDaemonHalted();
  }

  /** {@link #ROWS} rows on the source, 1,000 to a statement, channels 1 to 400. */
  private void load() throws Exception {
    try (Connection c = cluster.connect(source);
        Statement st = c.createStatement()) {
      for (int first = 1; first <= ROWS; first += 1000) {
        StringBuilder sql = new StringBuilder("INSERT INTO messages VALUES ");
        for (int id = first; id < first + 1000; id++) {
          sql.append(id == first ? "" : ", ")
              .append('(')
              .append(id)
              .append(", ")
              .append(1 + id % 400)
              .append(", 'm")
              .append(id)
              .append("')");
        }
        st.execute(sql.toString());
      }
    }
  }
}
