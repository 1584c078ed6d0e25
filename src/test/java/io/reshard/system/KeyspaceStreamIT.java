package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.system.ReshardLauncherIT.Run;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The keyspace change stream across reshards (DESIGN 4.10), CLI and daemon only: keyspace {@code
 * -80,80-}; router writers insert rows, update them, change their primary (and sharding) key and
 * delete them the whole time, while {@code 80-} is split into {@code 80-c0,c0-} (copy, diff, reads,
 * writes, reverse traffic, writes again, complete) and then {@code -80} and {@code 80-c0} are
 * merged into {@code -c0}. A plain Kafka consumer reads {@code PREFIX.KEYSPACE} from its start
 * throughout. Afterwards: for every row, the changes it saw are exactly the acknowledged ones, once
 * each and in commit order; nothing of the copy or of a stream (no seed row appears); and the last
 * image of every row is the row the keyspace holds (plain SQL on the final owners).
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyspaceStreamIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final long FIRST_WRITTEN_ID = 1_000_000L;
  private static final String TABLE =
      "CREATE TABLE items (id BIGINT NOT NULL PRIMARY KEY, n INT NOT NULL,"
          + " body VARCHAR(60) NOT NULL) ENGINE=InnoDB";

  /** The type matrix the sink carries: one column of each kind whose value must stay exact. */
  private static final String KINDS =
      "CREATE TABLE kinds (id BIGINT NOT NULL PRIMARY KEY, u BIGINT UNSIGNED NOT NULL,"
          + " d DECIMAL(65,30) NOT NULL, f DOUBLE NOT NULL, dt DATETIME(6) NOT NULL,"
          + " dd DATE NOT NULL, tm TIME(6) NOT NULL, y YEAR NOT NULL,"
          + " e ENUM('a','b c') NOT NULL, st SET('x','y') NOT NULL, b VARBINARY(16) NOT NULL,"
          + " txt VARCHAR(40) CHARACTER SET utf8mb4 NOT NULL, j JSON NULL) ENGINE=InnoDB";

  private static final String KINDS_TEXT =
      "SELECT id, CAST(u AS CHAR), CAST(d AS CHAR), CAST(f AS CHAR), CAST(dt AS CHAR),"
          + " CAST(dd AS CHAR), CAST(tm AS CHAR), CAST(y AS CHAR), e, st, HEX(b), HEX(txt), j"
          + " FROM ";
  private static final String CONNECT_FORM = "keyspace.stream.format=connect-json";
  private static final String PROBES =
      "CREATE TABLE probes (id BIGINT NOT NULL PRIMARY KEY, written_ms BIGINT NOT NULL)"
          + " ENGINE=InnoDB";

  private final TestCluster cluster;
  private final CliSession ops;
  private final String ks;
  private final String replica;

  KeyspaceStreamIT(TestCluster cluster) {
    this.cluster = cluster;
    this.ops = new CliSession(cluster);
    this.ks = cluster.database() + "_ks";
    this.replica = cluster.database() + "_replica";
  }

  @AfterAll
  void stopTheDaemon() throws Exception {
    ops.close();
    for (ClusterDescriptor.Server s : cluster.descriptor().mariadb()) {
      cluster.execute(
          s,
          "SET GLOBAL read_only = OFF",
          "DROP DATABASE IF EXISTS `" + ks + "`",
          "DROP DATABASE IF EXISTS `" + replica + "`");
    }
  }

  @Test
  void aConsumerOfTheKeyspaceTopicSeesEveryChangeOnceInOrderThroughASplitAndAMerge()
      throws Exception {
    ClusterDescriptor.Server a = cluster.shards().get(0);
    ClusterDescriptor.Server b = cluster.shards().get(1);
    initKeyspace(a, b);
    ops.startDaemon(CONNECT_FORM);
    String topic = cluster.topicPrefix() + "." + ks;
    Run created =
        ops.cli(
            "workflow",
            "create",
            "--keyspace",
            ks,
            "--source=80-",
            "--targets=80-c0,c0-",
            "--target-servers="
                + cluster.spares().get(0).name()
                + ","
                + cluster.spares().get(1).name(),
            "split");
    assertEquals(0, created.exit(), created.err());
    // the keyspace's stream starts with its first workflow and captures every owner
    awaitCaptured("-80");
    awaitCaptured("80-");
    ClusterDescriptor.Server replicaServer = cluster.shards().get(3);
    cluster.execute(
        replicaServer,
        "DROP DATABASE IF EXISTS `" + replica + "`",
        "CREATE DATABASE `" + replica + "`",
        "USE `" + replica + "`",
        TABLE,
        PROBES,
        KINDS);
    try (StreamReader reader = new StreamReader(topic);
        ConnectWorker sink = jdbcSink(topic, replicaServer);
        Writers writers = new Writers();
        Probes probes = new Probes(replicaServer)) {
      ops.awaitCopyDone("split");
      CliSession.assertClean(ops.diff("split"));
      step("workflow", "switch-traffic", "split", "--reads");
      step("workflow", "switch-traffic", "split", "--writes");
      Thread.sleep(1000);
      // SIGKILL: the stream, the captures and the reverse streams stop mid-transaction; the writers
      // go on, and a new daemon goes on from what each had committed
      ops.killDaemon();
      Thread.sleep(2000);
      ops.startDaemon(CONNECT_FORM);
      Thread.sleep(3000);
      step("workflow", "reverse-traffic", "split");
      Thread.sleep(1000);
      CliSession.assertClean(ops.diff("split"));
      step("workflow", "switch-traffic", "split", "--writes");
      Thread.sleep(1000);
      step("workflow", "complete", "split");

      Run merge =
          ops.cli(
              "workflow",
              "create",
              "--keyspace",
              ks,
              "--source=-80,80-c0",
              "--targets=-c0",
              "--target-servers=" + cluster.shards().get(2).name(),
              "merge");
      assertEquals(0, merge.exit(), merge.err());
      ops.awaitCopyDone("merge");
      CliSession.assertClean(ops.diff("merge"));
      step("workflow", "switch-traffic", "merge", "--reads");
      step("workflow", "switch-traffic", "merge", "--writes");
      Thread.sleep(1000);
      step("workflow", "complete", "merge");
      Thread.sleep(1000);
      writers.stop();
      probes.stop();
      check(writers, reader);
      checkReplica(replicaServer, sink, probes);
    }
    tailReadsTheKeyspaceTopic();
  }

  /** {@code cdc tail} without {@code --shard} prints the keyspace topic; an unknown one refused. */
  private void tailReadsTheKeyspaceTopic() throws Exception {
    Run tail =
        ops.cli(
            "cdc",
            "tail",
            "--keyspace",
            ks,
            "--topic-prefix",
            cluster.topicPrefix(),
            "--from-beginning",
            "--max",
            "5");
    assertEquals(0, tail.exit(), tail.err());
    List<String> lines = tail.out().lines().toList();
    assertEquals(5, lines.size(), tail.out());
    for (String line : lines) {
      JsonNode v = JSON.readTree(line).path("payload");
      assertEquals(ks, v.path("source").path("db").asText(), line);
      JsonNode image = v.path("after").isObject() ? v.path("after") : v.path("before");
      assertTrue(image.path("id").asLong() > 1000, "a row the test wrote, not a seed: " + line);
    }
    Run none =
        ops.cli(
            "cdc",
            "tail",
            "--keyspace",
            ks + "_none",
            "--topic-prefix",
            cluster.topicPrefix(),
            "--max",
            "1");
    assertEquals(3, none.exit(), none.out() + none.err());
    assertTrue(
        none.err().contains("no keyspace " + ks + "_none has change topics under prefix"),
        none.err());
    assertTrue(none.err().contains("keyspaces with change topics: " + ks), none.err());
  }

  private void step(String... args) throws Exception {
    Run r = ops.cli(args);
    assertEquals(0, r.exit(), String.join(" ", args) + ": " + r.out() + r.err());
  }

  /** Waits until the shard's change topic has a record: its capture has started. */
  private void awaitCaptured(String shard) throws Exception {
    String t = ChangeRecords.changeTopic(cluster.topicPrefix(), ks, shard);
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    try (KafkaConsumer<byte[], byte[]> c =
        new KafkaConsumer<>(ChangeRecords.consumerProperties(cluster.bootstrap(), null))) {
      while (true) {
        if (!c.partitionsFor(t, Duration.ofSeconds(5)).isEmpty()) {
          TopicPartition tp = new TopicPartition(t, 0);
          if (c.endOffsets(List.of(tp)).get(tp) > 0) {
            return;
          }
        }
        assertTrue(System.nanoTime() < deadline, "shard " + shard + " was never captured");
        Thread.sleep(200);
      }
    }
  }

  /**
   * Per row, what the writers had acknowledged equals what the stream holds; the last images equal
   * the keyspace's rows.
   */
  private void check(Writers writers, StreamReader reader) throws Exception {
    Map<Long, List<String>> expected = writers.history();
    Map<Long, String> rows = keyspaceRows();
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    Map<Long, List<String>> seen = reader.history();
    while (!seen.equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(500);
      seen = reader.history();
    }
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<Long, List<String>> e : expected.entrySet()) {
      List<String> s = seen.getOrDefault(e.getKey(), List.of());
      if (!s.equals(e.getValue())) {
        wrong.add(e.getKey() + ": acknowledged " + e.getValue() + ", stream " + s);
      }
    }
    for (Long id : seen.keySet()) {
      if (!expected.containsKey(id)) {
        wrong.add(id + ": not written, stream " + seen.get(id));
      }
    }
    assertTrue(
        wrong.isEmpty(),
        wrong.size() + " rows differ (first 10): " + wrong.subList(0, Math.min(10, wrong.size())));
    Map<Long, String> last = reader.lastImages();
    Map<Long, String> written = new TreeMap<>();
    rows.forEach(
        (id, row) -> {
          if (id >= FIRST_WRITTEN_ID) {
            written.put(id, row);
          }
        });
    assertEquals(written, last, "the last image of every row is the keyspace's row");
    int changes = expected.values().stream().mapToInt(List::size).sum();
    assertTrue(changes > 200, "changes written: " + changes);
    System.err.println(
        "[keyspace stream] "
            + changes
            + " acknowledged changes of "
            + expected.size()
            + " rows, each exactly once and in order in "
            + reader.records()
            + " records of "
            + reader.topic
            + "; "
            + last.size()
            + " rows live, equal to the keyspace; time from commit (whole seconds in the binlog)"
            + " to the keyspace topic: "
            + reader.lag());
  }

  /**
   * Debezium's JDBC sink connector, stock, on a Kafka Connect worker: reads the keyspace topic
   * (read_committed) and keeps {@code replica} on {@code server} equal to the keyspace.
   */
  private ConnectWorker jdbcSink(String topic, ClusterDescriptor.Server server) throws Exception {
    Map<String, String> c = new LinkedHashMap<>();
    c.put("name", "replica");
    c.put("connector.class", "io.debezium.connector.jdbc.JdbcSinkConnector");
    c.put("tasks.max", "1");
    c.put("topics", topic);
    c.put(
        "connection.url", "jdbc:mariadb://" + server.host() + ":" + server.port() + "/" + replica);
    c.put("connection.username", server.user());
    c.put("connection.password", "");
    c.put("insert.mode", "upsert");
    c.put("primary.key.mode", "record_key");
    c.put("delete.enabled", "true");
    c.put("schema.evolution", "none");
    c.put("collection.name.format", "${source.table}");
    c.put("consumer.override.isolation.level", "read_committed");
    c.put("consumer.override.auto.offset.reset", "earliest");
    return new ConnectWorker(cluster.dir().resolve("connect-" + replica), cluster.bootstrap(), c);
  }

  /**
   * The replica the sink kept equals the keyspace's rows; prints the sink's settings and how far it
   * lagged behind the source (the probes).
   */
  private void checkReplica(ClusterDescriptor.Server server, ConnectWorker sink, Probes probes)
      throws Exception {
    Map<Long, String> expected = new TreeMap<>();
    keyspaceRows()
        .forEach(
            (id, row) -> {
              if (id > 1000) {
                expected.put(id, row);
              }
            });
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    Map<Long, String> got = replicaRows(server);
    while (!got.equals(expected) && System.nanoTime() < deadline) {
      Thread.sleep(500);
      got = replicaRows(server);
    }
    Map<Long, String> missing = new TreeMap<>(expected);
    got.keySet().forEach(missing::remove);
    Map<Long, String> extra = new TreeMap<>(got);
    expected.keySet().forEach(extra::remove);
    assertEquals(
        expected,
        got,
        "the replica Debezium's JDBC sink kept equals the keyspace; missing "
            + missing.size()
            + ", extra "
            + extra.size()
            + "; sink: "
            + sink.status()
            + "; log "
            + sink.log());
    Map<Long, String> kinds = kindsRows(keyspaceKindsOwners());
    Map<Long, String> replicaKinds = kindsRows(List.of(server), replica);
    long kindsDeadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!replicaKinds.equals(kinds) && System.nanoTime() < kindsDeadline) {
      Thread.sleep(500);
      replicaKinds = kindsRows(List.of(server), replica);
    }
    assertTrue(kinds.size() > 10, "kinds rows written: " + kinds.size());
    assertEquals(kinds, replicaKinds, "every kind's value is exact in the replica");
    System.err.println(
        "[keyspace stream] Debezium JDBC sink 3.5.0.Final (upsert, record_key, delete.enabled,"
            + " collection.name.format=${source.table}, JsonConverter schemas.enable=true,"
            + " read_committed): replica of "
            + got.size()
            + " items and "
            + replicaKinds.size()
            + " rows of the type matrix equal to the keyspace; probe lag from commit to the replica: "
            + probes.lag());
  }

  /** The servers of the keyspace's newest map. */
  private List<ClusterDescriptor.Server> keyspaceKindsOwners() throws Exception {
    List<ClusterDescriptor.Server> owners = new ArrayList<>();
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(ops.topic(), ks)) {
      for (Shard shard : maps.current().shards()) {
        owners.add(ops.server(shard.endpoint()));
      }
    }
    return owners;
  }

  private Map<Long, String> kindsRows(List<ClusterDescriptor.Server> servers) throws Exception {
    return kindsRows(servers, ks);
  }

  /** Every column of {@code db.kinds} as the server's text (binary and strings as hex). */
  private Map<Long, String> kindsRows(List<ClusterDescriptor.Server> servers, String db)
      throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    for (ClusterDescriptor.Server s : servers) {
      try (Connection c = cluster.connect(s);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery(KINDS_TEXT + "`" + db + "`.kinds")) {
        while (rs.next()) {
          StringBuilder row = new StringBuilder();
          for (int i = 2; i <= 13; i++) {
            row.append(i == 2 ? "" : "|").append(rs.getString(i));
          }
          rows.put(rs.getLong(1), row.toString());
        }
      }
    }
    return rows;
  }

  private Map<Long, String> replicaRows(ClusterDescriptor.Server server) throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (Connection c = cluster.connect(server);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT id, n, body FROM `" + replica + "`.items")) {
      while (rs.next()) {
        rows.put(rs.getLong(1), rs.getInt(2) + "|" + rs.getString(3));
      }
    }
    return rows;
  }

  /**
   * Every 2 s a probe row through the router, then the time until the sink's replica has it: how
   * far the replica is behind the source.
   */
  private final class Probes implements AutoCloseable {
    private final List<Long> lags = new CopyOnWriteArrayList<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final KafkaShardMapSource maps;
    private final Router router;
    private final Thread thread;
    private final ClusterDescriptor.Server server;

    Probes(ClusterDescriptor.Server server) {
      this.server = server;
      maps = KafkaShardMapSource.start(ops.topic(), ks);
      router = Router.builder(maps, ops.endpoints()).build();
      thread = new Thread(this::probe, "replica-probes");
      thread.start();
    }

    private void probe() {
      long id = 3 * FIRST_WRITTEN_ID;
      while (!stop.get()) {
        try (Connection c = cluster.connect(server)) {
          long written = System.currentTimeMillis();
          long probe = id++;
          router.insert("probes", Map.of("id", probe, "written_ms", written));
          long deadline = written + 60_000;
          while (!stop.get() && System.currentTimeMillis() < deadline && !replicaHas(c, probe)) {
            Thread.sleep(20);
          }
          if (replicaHas(c, probe)) {
            lags.add(System.currentTimeMillis() - written);
          }
          writeKinds(probe - 3 * FIRST_WRITTEN_ID + 1);
          Thread.sleep(2000);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          System.err.println("[keyspace stream] probe: " + e);
        }
      }
    }

    /** Inserts kinds row {@code k} and changes row {@code k - 3}. */
    private void writeKinds(long k) {
      router.inTransaction(
          tx ->
              tx.update(
                  "kinds",
                  k,
                  "INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  k,
                  new java.math.BigInteger("18446744073709551615")
                      .subtract(java.math.BigInteger.valueOf(k))
                      .toString(),
                  "12345678901234567890123456789012345." + String.format("%030d", k),
                  k + 0.1,
                  String.format("2026-12-02 10:11:%02d.%06d", k % 60, k),
                  "1999-12-31",
                  String.format("%d:45:06.000001", 100 + k % 700),
                  2000 + (int) (k % 100),
                  "b c",
                  "x,y",
                  new byte[] {0, (byte) 0xff, (byte) k},
                  "żółw 🐢 " + k,
                  "{\"k\": " + k + "}"));
      if (k > 3) {
        router.inTransaction(
            tx ->
                tx.update(
                    "kinds",
                    k - 3,
                    "UPDATE kinds SET d = d + 1, tm = '-01:02:03.5', b = X'00', e = 'a',"
                        + " txt = CONCAT(txt, '!') WHERE id = ?",
                    k - 3));
      }
    }

    private boolean replicaHas(Connection c, long id) throws Exception {
      try (Statement st = c.createStatement();
          ResultSet rs =
              st.executeQuery("SELECT 1 FROM `" + replica + "`.probes WHERE id = " + id)) {
        return rs.next();
      }
    }

    void stop() throws Exception {
      stop.set(true);
      thread.join(70_000);
    }

    String lag() {
      return lags.isEmpty() ? "no probe arrived" : lags.size() + " probes, " + percentiles(lags);
    }

    @Override
    public void close() throws Exception {
      stop.set(true);
      thread.interrupt();
      router.close();
      maps.close();
    }
  }

  /** The keyspace's rows with written ids, on the owners of its newest map: id -> "n|body". */
  private Map<Long, String> keyspaceRows() throws Exception {
    Map<Long, String> rows = new TreeMap<>();
    try (KafkaShardMapSource maps = KafkaShardMapSource.start(ops.topic(), ks)) {
      ShardMap map = maps.current();
      for (Shard shard : map.shards()) {
        assertTrue(shard.servesWrites(), "after complete only owners are left: " + map);
        try (Connection c = cluster.connect(ops.server(shard.endpoint()));
            Statement st = c.createStatement();
            ResultSet rs = st.executeQuery("SELECT id, n, body FROM `" + ks + "`.items")) {
          while (rs.next()) {
            rows.put(rs.getLong(1), rs.getInt(2) + "|" + rs.getString(3));
          }
        }
      }
    }
    return rows;
  }

  private void initKeyspace(ClusterDescriptor.Server a, ClusterDescriptor.Server b)
      throws Exception {
    for (ClusterDescriptor.Server s : List.of(a, b)) {
      KeyRange range = KeyRange.parse(s == a ? "-80" : "80-");
      StringBuilder rows = new StringBuilder();
      for (long id = 1; id <= 1000; id++) {
        if (range.contains(HASH.keyspaceId(id))) {
          rows.append(rows.isEmpty() ? "" : ", ").append("(" + id + ", 0, 'seed " + id + "')");
        }
      }
      cluster.execute(
          s,
          "CREATE DATABASE IF NOT EXISTS `" + ks + "`",
          "USE `" + ks + "`",
          TABLE,
          PROBES,
          KINDS,
          "INSERT INTO items VALUES " + rows);
    }
    ops.initKeyspace(
        ks,
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
            + " \"tables\": {\"items\": {\"column_vindexes\": [{\"column\": \"id\","
            + " \"name\": \"hash\"}]}, \"probes\": {\"column_vindexes\":"
            + " [{\"column\": \"id\", \"name\": \"hash\"}]}, \"kinds\":"
            + " {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}",
        "--shards=-80,80-",
        "--servers=" + a.name() + "," + b.name());
  }

  /** The top two bits of a row's keyspace id: rows alike stay on one shard through every move. */
  private static int quarter(long id) {
    return (HASH.keyspaceId(id).bytes()[0] & 0xc0);
  }

  /**
   * Two router threads, each on ids of its own: insert a row, increment a row's counter, change a
   * row's primary key (its sharding key: the new id stays in the same quarter of the keyspace, so
   * on the same shard, though often in another partition of the keyspace topic), delete a row.
   * Every acknowledged change is recorded in the row's history, in the form {@link StreamReader}
   * gives it: {@code born n=N}, {@code u n=N}, {@code gone}.
   */
  private final class Writers implements AutoCloseable {
    private final Map<Long, List<String>> history = new ConcurrentHashMap<>();
    private final AtomicInteger errors = new AtomicInteger();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final KafkaShardMapSource maps;
    private final Router router;
    private final List<Future<?>> threads = new ArrayList<>();

    Writers() {
      maps = KafkaShardMapSource.start(ops.topic(), ks);
      router = Router.builder(maps, ops.endpoints()).build();
      for (int t = 0; t < 2; t++) {
        long first = FIRST_WRITTEN_ID * (t + 1);
        long seed = t;
        threads.add(pool.submit(() -> write(first, new Random(seed))));
      }
    }

    private void write(long first, Random random) {
      long next = first;
      Map<Long, Integer> live = new HashMap<>();
      List<Long> ids = new ArrayList<>();
      while (!stop.get()) {
        try {
          int dice = random.nextInt(10);
          if (ids.size() < 5 || dice < 4) {
            long id = next++;
            router.insert("items", Map.of("id", id, "n", 0, "body", "written " + id));
            record(id, "born n=0");
            live.put(id, 0);
            ids.add(id);
          } else if (dice < 8) {
            long id = ids.get(random.nextInt(ids.size()));
            int n = live.get(id) + 1;
            int changed =
                router.inTransaction(
                    tx -> tx.update("items", id, "UPDATE items SET n = n + 1 WHERE id = ?", id));
            assertEquals(1, changed, "row " + id + " exists");
            record(id, "u n=" + n);
            live.put(id, n);
          } else if (dice < 9) {
            long id = ids.remove(random.nextInt(ids.size()));
            long moved = next++;
            while (quarter(moved) != quarter(id)) {
              moved = next++;
            }
            long to = moved;
            int changed =
                router.inTransaction(
                    tx -> tx.update("items", id, "UPDATE items SET id = ? WHERE id = ?", to, id));
            assertEquals(1, changed, "row " + id + " exists");
            int n = live.remove(id);
            record(id, "gone");
            record(to, "born n=" + n);
            live.put(to, n);
            ids.add(to);
          } else {
            long id = ids.remove(random.nextInt(ids.size()));
            int changed =
                router.inTransaction(
                    tx -> tx.update("items", id, "DELETE FROM items WHERE id = ?", id));
            assertEquals(1, changed, "row " + id + " exists");
            live.remove(id);
            record(id, "gone");
          }
          Thread.sleep(5);
        } catch (InterruptedException e) {
          return;
        } catch (RuntimeException e) {
          errors.incrementAndGet();
          System.err.println("[keyspace stream] write: " + e);
        }
      }
    }

    private void record(long id, String change) {
      history.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(change);
    }

    void stop() throws Exception {
      stop.set(true);
      for (Future<?> f : threads) {
        f.get();
      }
      assertEquals(0, errors.get(), "every write through the router succeeded");
    }

    Map<Long, List<String>> history() {
      Map<Long, List<String>> m = new TreeMap<>();
      history.forEach((id, h) -> m.put(id, List.copyOf(h)));
      return m;
    }

    @Override
    public void close() throws Exception {
      stop.set(true);
      pool.shutdownNow();
      router.close();
      maps.close();
    }
  }

  /**
   * A plain read_committed consumer of the keyspace topic, from its start, on a thread of its own:
   * per row id, the changes in the order of the row's partition.
   */
  private final class StreamReader implements AutoCloseable {
    final String topic;
    private final Map<Long, List<String>> history = new ConcurrentHashMap<>();
    private final Map<Long, String> last = new ConcurrentHashMap<>();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Thread thread;
    private final AtomicInteger records = new AtomicInteger();
    private final List<Long> lags = new CopyOnWriteArrayList<>();
    private volatile Throwable failure;

    StreamReader(String topic) throws Exception {
      this.topic = topic;
      awaitTopic();
      thread = new Thread(this::read, "keyspace-stream-reader");
      thread.start();
    }

    private void awaitTopic() throws Exception {
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(ChangeRecords.consumerProperties(cluster.bootstrap(), null))) {
        while (c.partitionsFor(topic, Duration.ofSeconds(5)).isEmpty()) {
          assertTrue(System.nanoTime() < deadline, "the daemon never created " + topic);
          Thread.sleep(200);
        }
        assertEquals(16, c.partitionsFor(topic, Duration.ofSeconds(5)).size(), "partitions");
      }
    }

    private void read() {
      try (KafkaConsumer<byte[], byte[]> c =
          new KafkaConsumer<>(ChangeRecords.consumerProperties(cluster.bootstrap(), null))) {
        List<TopicPartition> parts = new ArrayList<>();
        for (int p = 0; p < 16; p++) {
          parts.add(new TopicPartition(topic, p));
        }
        c.assign(parts);
        c.seekToBeginning(parts);
        while (!stop.get()) {
          for (ConsumerRecord<byte[], byte[]> r : c.poll(Duration.ofMillis(200))) {
            take(r);
          }
        }
      } catch (Throwable t) {
        failure = t;
      }
    }

    private void take(ConsumerRecord<byte[], byte[]> r) throws Exception {
      records.incrementAndGet();
      JsonNode v = JSON.readTree(r.value()).get("payload"); // the Connect form: schema, payload
      if (!"items".equals(v.path("source").path("table").asText())) {
        return; // the probes
      }
      JsonNode before = v.get("before");
      JsonNode after = v.get("after");
      long commit = v.path("source").path("ts_ms").asLong(0);
      if (commit > 0) {
        lags.add(r.timestamp() - commit);
      }
      String op = v.get("op").asText();
      Long oldId = before == null || before.isNull() ? null : before.get("id").asLong();
      Long newId = after == null || after.isNull() ? null : after.get("id").asLong();
      if (oldId != null && !oldId.equals(newId)) {
        add(oldId, "gone");
        last.remove(oldId);
      }
      if (newId != null) {
        boolean born = "c".equals(op) || oldId == null || !oldId.equals(newId);
        add(newId, (born ? "born n=" : "u n=") + after.get("n").asInt());
        last.put(newId, after.get("n").asInt() + "|" + after.get("body").asText());
      }
    }

    private void add(long id, String change) {
      history.computeIfAbsent(id, k -> new CopyOnWriteArrayList<>()).add(change);
    }

    Map<Long, List<String>> history() {
      assertTrue(failure == null, "the reader failed: " + failure);
      Map<Long, List<String>> m = new TreeMap<>();
      history.forEach((id, h) -> m.put(id, List.copyOf(h)));
      return m;
    }

    Map<Long, String> lastImages() {
      return new TreeMap<>(last);
    }

    int records() {
      return records.get();
    }

    /** How long after its commit each record entered the keyspace topic: p50, p99, max (ms). */
    String lag() {
      return lags.isEmpty() ? "none" : percentiles(lags);
    }

    @Override
    public void close() throws Exception {
      stop.set(true);
      thread.join(10_000);
    }
  }

  /** {@code p50 N ms, p99 N ms, max N ms} of lags in ms; not empty. */
  private static String percentiles(java.util.Collection<Long> lags) {
    List<Long> sorted = new ArrayList<>(lags);
    java.util.Collections.sort(sorted);
    return "p50 "
        + sorted.get(sorted.size() / 2)
        + " ms, p99 "
        + sorted.get(sorted.size() * 99 / 100)
        + " ms, max "
        + sorted.get(sorted.size() - 1)
        + " ms";
  }
}
