package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.ApplyEngine;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopySpec;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.switcher.StreamSeams;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The copy and the change stream converge (DESIGN 4.6): while the copier copies source shard {@code
 * c0-} (db4) to {@code c0-e0} (db5) and {@code e0-} (db6) in small chunks and the appliers apply
 * the stream from P0, a seeded random writer inserts, updates, changes sharding keys (rows move
 * between the targets), changes primary keys, deletes, and swaps unique values. After the stream
 * catches up, the differ at one consistent position, and a plain-SQL comparison, find no
 * difference. The seed is printed; {@code -Dreshard.seed=N} replays a run. {@link
 * MySqlConvergenceIT} runs it on MySQL 8.0.31 servers, smaller.
 */
@ExtendWith(LocalClusterExtension.class)
class ConvergenceIT {
  private static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"items": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]}}}
      """;
  private static final String ITEMS =
      "CREATE TABLE items (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL, uniq VARCHAR(32) NOT NULL,"
          + " val INT NOT NULL, body VARCHAR(64) CHARACTER SET latin1, UNIQUE KEY u (uniq)) ENGINE=InnoDB";

  /** The rows on the source before the copy starts. */
  int preloadRows() {
    return 3000;
  }

  @Test
  void copyAndStreamConvergeUnderRandomWrites(TestCluster cluster) throws Exception {
    long seed = Long.getLong("reshard.seed", System.nanoTime());
    System.err.println("[convergence] seed " + seed + " (replay with -Dreshard.seed=" + seed + ")");
    Random random = new Random(seed);
    ClusterDescriptor.Server source = cluster.shards().get(cluster.shards().size() - 1);
    List<ClusterDescriptor.Server> targets =
        List.of(cluster.spares().get(0), cluster.spares().get(1));
    List<KeyRange> ranges = List.of(KeyRange.parse("c0-e0"), KeyRange.parse("e0-"));
    for (ClusterDescriptor.Server s : List.of(source, targets.get(0), targets.get(1))) {
      cluster.execute(s, ITEMS);
    }
    List<Long> channels = channelsIn(KeyRange.parse("c0-"), 300);
    Writer writer = new Writer(cluster, source, random, channels);
    writer.preload(preloadRows());

    String topic = ChangeRecords.changeTopic(cluster.topicPrefix(), cluster.database(), "c0-");
    try (CaptureEngine capture =
        new CaptureEngine(CaptureConfig.from(captureConfig(cluster, source)))) {
      capture.start();
      GtidPosition p0 = position(cluster, source);
      List<ApplyEngine> appliers = new ArrayList<>();
      try {
        for (int i = 0; i < 2; i++) {
          ApplyEngine a =
              new ApplyEngine(
                  new ApplyConfig(
                      "converge",
                      ranges.get(i).name(),
                      cluster.jdbcUrl(targets.get(i)),
                      "root",
                      "",
                      cluster.database(),
                      VSchema.parse(VSCHEMA),
                      cluster.bootstrap(),
                      Map.of(topic, p0),
                      500,
                      Duration.ofMillis(50)));
          a.start();
          appliers.add(a);
        }
        AtomicBoolean stop = new AtomicBoolean();
        CompletableFuture<Integer> writes = CompletableFuture.supplyAsync(() -> writer.run(stop));
        CopySpec spec =
            new CopySpec(
                "converge",
                cluster.database(),
                endpoint(source),
                KeyRange.parse("c0-"),
                List.of(
                    new TargetShard(ranges.get(0), endpoint(targets.get(0))),
                    new TargetShard(ranges.get(1), endpoint(targets.get(1)))),
                List.of("items"),
                VSchema.parse(VSCHEMA),
                p0.toString());
        Copier.builder(spec)
            .config(
                CopierConfig.builder()
                    .initialChunkRows(20)
                    .minChunkRows(10)
                    .maxChunkRows(40)
                    .build())
            .coverage(StreamSeams.coverage(capture))
            .build()
            .run();
        Thread.sleep(1000); // writes go on after the copy, as they do before a switch
        // the diff runs on the live source: the writer keeps writing while both targets are
        // compared at one consistent position (one Differ, the source read once, each applier
        // run to the same G), so any difference it reports would be a false one
        List<DiffReport> reports =
            new Differ(
                    new DiffSpec(
                        "converge",
                        cluster.database(),
                        endpoint(source),
                        List.of(
                            new TargetShard(ranges.get(0), endpoint(targets.get(0))),
                            new TargetShard(ranges.get(1), endpoint(targets.get(1)))),
                        List.of("items"),
                        VSchema.parse(VSCHEMA)),
                    DifferConfig.defaults(),
                    List.of(
                        StreamSeams.control(appliers.get(0), topic, Duration.ofSeconds(60)),
                        StreamSeams.control(appliers.get(1), topic, Duration.ofSeconds(60))),
                    DiffListener.NONE)
                .runAll();
        for (int i = 0; i < 2; i++) {
          DiffReport report = reports.get(i);
          assertTrue(
              report.isClean(), "seed " + seed + ", target " + ranges.get(i) + ":\n" + report);
          assertTrue(
              report.tables().get(0).compared() > preloadRows() / 3,
              "the diff compared the rows: " + report);
        }
        assertTrue(
            reports.get(0).sourcePosition().equals(reports.get(1).sourcePosition()),
            "both targets at one G: " + reports);
        assertTrue(!writes.isDone(), "the writer was still writing during the diff");
        stop.set(true);
        int transactions = writes.get();
        GtidPosition g = position(cluster, source);
        for (ApplyEngine a : appliers) {
          assertTrue(
              a.awaitApplied(topic, g, Duration.ofSeconds(120)), "caught up: " + a.lastError());
        }
        compareWithPlainSql(cluster, source, targets, ranges, seed);
        System.err.printf(
            "[convergence] seed %d: %d random transactions during the copy and the diff, %d rows at the end, diff clean%n",
            seed, transactions, writer.ids.size());
        assertTrue(transactions > 50, "the writer ran during the copy: " + transactions);
      } finally {
        appliers.forEach(ApplyEngine::close);
      }
    }
  }

  /** Plain SQL on every server: each target holds exactly the source rows of its range. */
  private static void compareWithPlainSql(
      TestCluster cluster,
      ClusterDescriptor.Server source,
      List<ClusterDescriptor.Server> targets,
      List<KeyRange> ranges,
      long seed)
      throws SQLException {
    String sql = "SELECT id, channel_id, HEX(uniq), val, HEX(body) FROM items ORDER BY id";
    List<String> all = rows(cluster, source, sql);
    Vindex hash = Vindex.of(VindexType.HASH);
    for (int i = 0; i < 2; i++) {
      KeyRange r = ranges.get(i);
      List<String> expected =
          all.stream()
              .filter(row -> r.contains(hash.keyspaceId(Long.parseLong(row.split("\\|")[1]))))
              .toList();
      assertEquals(expected, rows(cluster, targets.get(i), sql), "seed " + seed + ", target " + r);
    }
  }

  /** The seeded random writer; the only writer of the source, so it knows which ids exist. */
  static final class Writer {
    final TestCluster cluster;
    final ClusterDescriptor.Server source;
    final Random random;
    final List<Long> channels;
    final List<Long> ids = new ArrayList<>();
    long nextId = 1;

    Writer(
        TestCluster cluster, ClusterDescriptor.Server source, Random random, List<Long> channels) {
      this.cluster = cluster;
      this.source = source;
      this.random = random;
      this.channels = channels;
    }

    void preload(int n) throws SQLException {
      try (Connection c = cluster.connect(source);
          Statement s = c.createStatement()) {
        StringBuilder b = new StringBuilder("INSERT INTO items VALUES ");
        for (int i = 0; i < n; i++) {
          long id = nextId++;
          b.append(i > 0 ? "," : "").append(values(id));
          ids.add(id);
        }
        s.execute(b.toString());
      }
    }

    int run(AtomicBoolean stop) {
      int transactions = 0;
      try (Connection c = cluster.connect(source);
          Statement s = c.createStatement()) {
        while (!stop.get()) {
          c.setAutoCommit(false);
          int statements = 1 + random.nextInt(3);
          for (int k = 0; k < statements; k++) {
            oneChange(s);
          }
          c.commit();
          transactions++;
        }
      } catch (SQLException e) {
        throw new IllegalStateException("the random writer failed: " + e.getMessage(), e);
      }
      return transactions;
    }

    private void oneChange(Statement s) throws SQLException {
      int op = random.nextInt(100);
      if (op < 30 || ids.size() < 10) {
        long id = nextId++;
        s.execute("INSERT INTO items VALUES " + values(id));
        ids.add(id);
      } else if (op < 50) {
        s.execute(
            "UPDATE items SET val = val + 1, body = 'r\u00e9vis\u00e9 "
                + random.nextInt(1000)
                + "' WHERE id = "
                + pick());
      } else if (op < 62) {
        s.execute(
            "UPDATE items SET channel_id = "
                + channel()
                + " WHERE id = "
                + pick()); // may move target
      } else if (op < 72) {
        int i = random.nextInt(ids.size());
        long newId = nextId++;
        s.execute(
            "UPDATE items SET id = " + newId + " WHERE id = " + ids.get(i)); // primary key change
        ids.set(i, newId);
      } else if (op < 84) {
        int i = random.nextInt(ids.size());
        s.execute("DELETE FROM items WHERE id = " + ids.get(i));
        ids.remove(i);
      } else {
        long a = pick();
        long b = pick();
        if (a != b) { // a true swap of two unique values, through a temporary one
          String va = uniqOf(s, a);
          String vb = uniqOf(s, b);
          s.execute("UPDATE items SET uniq = 'tmp-swap' WHERE id = " + a);
          s.execute("UPDATE items SET uniq = '" + va + "' WHERE id = " + b);
          s.execute("UPDATE items SET uniq = '" + vb + "' WHERE id = " + a);
        }
      }
    }

    private static String uniqOf(Statement s, long id) throws SQLException {
      try (ResultSet rs =
          s.executeQuery("SELECT uniq FROM items WHERE id = " + id + " FOR UPDATE")) {
        rs.next();
        return rs.getString(1);
      }
    }

    private String values(long id) {
      return "("
          + id
          + ", "
          + channel()
          + ", 'u"
          + id
          + "', "
          + random.nextInt(1000)
          + ", 'caf\u00e9 "
          + id
          + "')";
    }

    private long pick() {
      return ids.get(random.nextInt(ids.size()));
    }

    private long channel() {
      return channels.get(random.nextInt(channels.size()));
    }
  }

  private static List<Long> channelsIn(KeyRange range, int n) {
    Vindex hash = Vindex.of(VindexType.HASH);
    List<Long> out = new ArrayList<>();
    for (long k = 1; out.size() < n; k++) {
      if (range.contains(hash.keyspaceId(k))) {
        out.add(k);
      }
    }
    return out;
  }

  private static Map<String, String> captureConfig(
      TestCluster cluster, ClusterDescriptor.Server s) {
    Map<String, String> m =
        CaptureConfig.forServer(
            s.host(),
            s.port(),
            s.user(),
            "",
            7301,
            cluster.database(),
            "c0-",
            cluster.bootstrap(),
            cluster.topicPrefix());
    m.put("source.flavor", s.flavorOrDefault().id());
    m.put("heartbeat.interval.ms", "500");
    m.put("batch.max.wait.ms", "20");
    return m;
  }

  private static JdbcEndpoint endpoint(ClusterDescriptor.Server s) {
    return new JdbcEndpoint(s.jdbcUrl(""), s.user(), "");
  }

  private static GtidPosition position(TestCluster cluster, ClusterDescriptor.Server s)
      throws SQLException {
    try (Connection c = cluster.connect(s)) {
      return ServerPositions.current(c);
    }
  }

  private static List<String> rows(TestCluster cluster, ClusterDescriptor.Server s, String sql)
      throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      int n = rs.getMetaData().getColumnCount();
      while (rs.next()) {
        StringBuilder b = new StringBuilder();
        for (int i = 1; i <= n; i++) {
          b.append(i > 1 ? "|" : "").append(rs.getString(i));
        }
        out.add(b.toString());
      }
    }
    return out;
  }
}
