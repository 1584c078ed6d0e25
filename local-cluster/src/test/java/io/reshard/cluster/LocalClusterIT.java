package io.reshard.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The local cluster against real processes: one cluster of 2 shards and 1 spare for the class, plus
 * throw-away directories for the failure cases. The last test brings the cluster down and checks
 * that nothing of it is left running.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LocalClusterIT {
  private static Path dir;
  private static ClusterDescriptor cluster;
  private static final List<String> lines = new ArrayList<>();

  @BeforeAll
  static void up() throws IOException {
    Path root = Path.of(System.getProperty("reshard.test.root", "target/test-clusters"));
    dir = root.resolve("local-cluster-it-" + ProcessHandle.current().pid());
    ClusterSpec spec =
        new ClusterSpec(dir, 2, 1, FreePorts.block(24306, 3), FreePorts.block(29192, 2));
    cluster = LocalCluster.up(spec, lines::add);
  }

  @AfterAll
  static void downEvenIfATestFailed() {
    if (Files.exists(dir.resolve(ClusterDescriptor.FILE_NAME))) {
      LocalCluster.down(dir);
    }
  }

  @Test
  @Order(1)
  void upPrintsOneLinePerProcessAndWritesTheDescriptor() {
    assertEquals(4, lines.size(), lines.toString());
    assertTrue(lines.stream().allMatch(l -> l.endsWith("started")), lines.toString());
    ClusterDescriptor onDisk = ClusterDescriptor.read(dir).orElseThrow();
    assertEquals(cluster, onDisk);
    assertEquals(
        List.of("db1", "db2"),
        onDisk.shards().stream().map(ClusterDescriptor.Server::name).toList());
    assertEquals("db3", onDisk.spares().get(0).name());
    assertTrue(LocalCluster.status(dir).stream().allMatch(LocalCluster.ProcessStatus::up));
  }

  @Test
  @Order(2)
  void aRowWriteAppearsAsARowEventUnderItsGtid() throws SQLException {
    ClusterDescriptor.Server db2 = cluster.shards().get(1);
    try (Connection c = connect(db2);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS it");
      s.execute("CREATE TABLE it.t (id INT PRIMARY KEY, v VARCHAR(10)) ENGINE=InnoDB");
      s.execute("INSERT INTO it.t VALUES (1, 'one')");
      String gtid = scalar(s, "SELECT @@last_gtid");
      assertTrue(gtid.startsWith("2-2-"), "db2's GTIDs are in domain 2: " + gtid);
      String file = scalar(s, "SHOW MASTER STATUS");
      List<String> eventsOfGtid = new ArrayList<>();
      boolean inside = false;
      try (ResultSet rs = s.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
        while (rs.next()) {
          String type = rs.getString("Event_type");
          String info = rs.getString("Info");
          if (type.equals("Gtid")) {
            inside = info.matches(".*GTID " + gtid + "( .*)?");
          } else if (inside) {
            eventsOfGtid.add(type);
          }
        }
      }
      assertTrue(eventsOfGtid.contains("Table_map"), eventsOfGtid.toString());
      assertTrue(
          eventsOfGtid.stream().anyMatch(t -> t.startsWith("Write_rows")), eventsOfGtid.toString());
      assertEquals("ROW", scalar(s, "SELECT @@binlog_format"));
      assertEquals("FULL", scalar(s, "SELECT @@binlog_row_image"));
      assertEquals("FULL", scalar(s, "SELECT @@binlog_row_metadata"));
      assertEquals("utf8mb4", scalar(s, "SELECT @@character_set_server"));
    }
  }

  @Test
  @Order(3)
  void aCommittedTransactionIsSeenAndAnAbortedOneIsNot() throws Exception {
    String bootstrap = cluster.kafka().bootstrap();
    String topic = "it-transactions";
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "it-tx");
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      producer.initTransactions();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "a", "committed-1"));
      producer.send(new ProducerRecord<>(topic, "b", "committed-2"));
      producer.commitTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "c", "aborted"));
      producer.flush();
      producer.abortTransaction();
      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, "d", "committed-3"));
      producer.commitTransaction();
    }
    assertEquals(
        List.of("committed-1", "committed-2", "committed-3"),
        readAll(bootstrap, topic, "read_committed", 3));
    assertTrue(
        readAll(bootstrap, topic, "read_uncommitted", 4).contains("aborted"),
        "the aborted record is in the log");
  }

  @Test
  @Order(4)
  void upAgainReusesRunningProcesses() {
    List<String> again = new ArrayList<>();
    ClusterDescriptor d = LocalCluster.up(new ClusterSpec(dir, 2, 1, 1024, 2000), again::add);
    assertEquals(cluster, d, "same pids and ports");
    assertTrue(again.stream().allMatch(l -> l.endsWith("reused")), again.toString());
  }

  @Test
  @Order(5)
  void aServerKilledWithSigkillComesBackWithItsData() throws SQLException {
    ClusterDescriptor.Server db1 = cluster.shards().get(0);
    try (Connection c = connect(db1);
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS it");
      s.execute("CREATE TABLE it.kept (id INT PRIMARY KEY) ENGINE=InnoDB");
      s.execute("INSERT INTO it.kept VALUES (7), (8)");
      // a fenced shard, as a write switch leaves its source
      s.execute("CREATE DATABASE IF NOT EXISTS _reshard");
      s.execute(
          "CREATE TABLE _reshard.fence (keyspace VARBINARY(64) NOT NULL, shard VARBINARY(64) NOT"
              + " NULL, epoch BIGINT NOT NULL, writable TINYINT NOT NULL, PRIMARY KEY (keyspace,"
              + " shard)) ENGINE=InnoDB");
      s.execute("INSERT INTO _reshard.fence VALUES ('it', '-80', 2, 0)");
      s.execute("SET GLOBAL read_only = ON");
    }
    ProcessHandle.of(db1.pid()).orElseThrow().destroyForcibly();
    waitUntil(() -> !OsProcesses.commandLine(db1.pid()).isPresent(), Duration.ofSeconds(10));
    assertFalse(LocalCluster.status(dir).get(0).up());

    List<String> again = new ArrayList<>();
    ClusterDescriptor d = LocalCluster.up(new ClusterSpec(dir, 2, 1, 1024, 2000), again::add);
    assertTrue(
        again.stream().anyMatch(l -> l.startsWith("db1") && l.endsWith("restarted")),
        again.toString());
    assertTrue(
        again.stream().filter(l -> !l.startsWith("db1")).allMatch(l -> l.endsWith("reused")),
        again.toString());
    assertNotEquals(db1.pid(), d.shards().get(0).pid());
    assertTrue(
        again.stream().anyMatch(l -> l.startsWith("db1") && l.contains("read_only again")),
        again.toString());
    try (Connection c = connect(d.shards().get(0));
        Statement s = c.createStatement()) {
      assertEquals("2", scalar(s, "SELECT COUNT(*) FROM it.kept"));
      assertEquals("1", scalar(s, "SELECT @@GLOBAL.read_only"), "fenced: read_only again");
      s.execute("UPDATE _reshard.fence SET writable = 1"); // the shard opened again
    }
    cluster = d;
    // a server whose fence rows leave a shard writable comes back as it starts: writable
    ClusterDescriptor.Server restarted = d.shards().get(0);
    ProcessHandle.of(restarted.pid()).orElseThrow().destroyForcibly();
    waitUntil(() -> !OsProcesses.commandLine(restarted.pid()).isPresent(), Duration.ofSeconds(10));
    List<String> third = new ArrayList<>();
    cluster = LocalCluster.up(new ClusterSpec(dir, 2, 1, 1024, 2000), third::add);
    assertTrue(third.stream().noneMatch(l -> l.contains("read_only")), third.toString());
    try (Connection c = connect(cluster.shards().get(0));
        Statement s = c.createStatement()) {
      assertEquals("0", scalar(s, "SELECT @@GLOBAL.read_only"), "a writable shard on it");
      s.execute("DROP DATABASE _reshard");
    }
  }

  @Test
  @Order(6)
  void aPortOfOurClusterIsRefusedNamingTheCluster() throws IOException {
    Path other = Files.createTempDirectory("reshard-it-other");
    int taken = cluster.shards().get(0).port();
    ClusterException e;
    try {
      e =
          assertThrows(
              ClusterException.class,
              () ->
                  LocalCluster.up(
                      new ClusterSpec(other, 1, 0, taken, FreePorts.block(29392, 2)), l -> {}));
    } finally {
      downIfStarted(other); // a refusal that did not happen must not leave a cluster running
    }
    assertEquals(ClusterException.Kind.PORT_IN_USE, e.kind());
    assertTrue(e.getMessage().contains("port " + taken), e.getMessage());
    assertTrue(e.getMessage().contains("belongs to the local cluster in " + dir), e.getMessage());
    assertFalse(Files.exists(other.resolve(ClusterDescriptor.FILE_NAME)), "nothing written");
  }

  @Test
  @Order(7)
  void aForeignPortIsRefusedNamingThePort() throws IOException {
    Path other = Files.createTempDirectory("reshard-it-other");
    int port = FreePorts.block(25306, 1);
    try (ServerSocket held = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
      ClusterException e;
      try {
        e =
            assertThrows(
                ClusterException.class,
                () ->
                    LocalCluster.up(
                        new ClusterSpec(other, 1, 0, port, FreePorts.block(29492, 2)), l -> {}));
      } finally {
        downIfStarted(other);
      }
      assertEquals(ClusterException.Kind.PORT_IN_USE, e.kind());
      assertTrue(
          e.getMessage().contains("port " + port + " (wanted by db1) is already in use"),
          e.getMessage());
      assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
    }
  }

  @Test
  @Order(8)
  void aMissingMariaDbNamesThePackageToInstall() throws IOException {
    Path other = Files.createTempDirectory("reshard-it-other");
    ClusterException e =
        assertThrows(
            ClusterException.class,
            () ->
                LocalCluster.up(
                    ClusterSpec.withDefaultPorts(other, 1, 0), l -> {}, p -> Optional.empty()));
    assertEquals(ClusterException.Kind.MISSING_PROGRAM, e.kind());
    assertTrue(e.getMessage().contains("mariadbd is not installed"), e.getMessage());
    assertTrue(e.getMessage().contains("apt-get install -y mariadb-server"), e.getMessage());
  }

  @Test
  @Order(9)
  void aServerThatDiesAtStartReportsTheTailOfItsLog() throws Exception {
    Path other = Files.createTempDirectory("reshard-it-dies");
    ClusterDescriptor d =
        ClusterLayout.describe(
            new ClusterSpec(other, 1, 0, FreePorts.block(25406, 1), FreePorts.block(29592, 2)));
    MariaDbServer server =
        new MariaDbServer(
            other,
            d.mariadb().get(0),
            OsProcesses.findProgram("mariadbd").orElseThrow(),
            OsProcesses.findProgram("mariadb-install-db").orElseThrow());
    server.writeConfig();
    server.initialise();
    Files.writeString(
        server.configFile(),
        "no_such_setting_at_all = 1\n",
        java.nio.file.StandardOpenOption.APPEND);
    ClusterException e = assertThrows(ClusterException.class, server::start);
    assertEquals(ClusterException.Kind.START_FAILED, e.kind());
    assertTrue(e.getMessage().contains("died at start"), e.getMessage());
    assertTrue(
        e.getMessage().contains("no_such_setting_at_all"),
        "the log tail names the bad setting: " + e.getMessage());
  }

  @Test
  @Order(10)
  void downWithoutAClusterSaysSo() throws IOException {
    Path empty = Files.createTempDirectory("reshard-it-empty");
    ClusterException e = assertThrows(ClusterException.class, () -> LocalCluster.down(empty));
    assertEquals(ClusterException.Kind.NO_CLUSTER, e.kind());
    assertTrue(e.getMessage().contains("there is no cluster in"), e.getMessage());
  }

  @Test
  @Order(11)
  void downLeavesNoProcessOfOursRunning() throws IOException {
    List<Long> pids = new ArrayList<>();
    cluster.mariadb().forEach(s -> pids.add(s.pid()));
    pids.add(cluster.kafka().pid());
    List<String> out = LocalCluster.down(dir);
    assertEquals(4, out.size());
    assertTrue(out.stream().allMatch(l -> l.endsWith("stopped")), out.toString());
    for (long pid : pids) {
      // down returns once each process has exited and its exit status is collected (here by this
      // JVM's reaper thread, since this JVM started them; ClusterDownIT in cli covers init)
      assertTrue(ProcessHandle.of(pid).isEmpty(), "pid " + pid + " exists after down: " + out);
    }
    try (var procs = Files.list(Path.of("/proc"))) {
      List<String> ours =
          procs
              .filter(p -> p.getFileName().toString().matches("\\d+"))
              .map(p -> OsProcesses.commandLine(Long.parseLong(p.getFileName().toString())))
              .flatMap(Optional::stream)
              .filter(c -> c.contains(dir.toString()))
              .toList();
      assertEquals(
          List.of(), ours, "processes still running with the cluster dir in their command line");
    }
    assertTrue(LocalCluster.status(dir).stream().noneMatch(LocalCluster.ProcessStatus::up));
  }

  private static void downIfStarted(Path dir) {
    if (Files.exists(dir.resolve(ClusterDescriptor.FILE_NAME))) {
      LocalCluster.down(dir);
    }
  }

  private static Connection connect(ClusterDescriptor.Server s) throws SQLException {
    return DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
  }

  private static String scalar(Statement s, String sql) throws SQLException {
    try (ResultSet rs = s.executeQuery(sql)) {
      assertTrue(rs.next(), "no row from " + sql);
      return rs.getString(1);
    }
  }

  private static List<String> readAll(
      String bootstrap, String topic, String isolation, int expected) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
      while (values.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          values.add(r.value());
        }
      }
      // one more poll to catch anything beyond what was expected
      consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
    }
    return values;
  }

  private static void waitUntil(java.util.function.BooleanSupplier condition, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!condition.getAsBoolean()) {
      assertTrue(System.nanoTime() < deadline, "condition not met within " + timeout);
      OsProcesses.sleep(Duration.ofMillis(50));
    }
  }
}
