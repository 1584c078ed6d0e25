package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.VSchema;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Rows of any size the source allows: capture sizes its topic and producer from the source's {@code
 * max_allowed_packet}, so a 60 MiB value moves through capture, Kafka and apply exactly with no
 * setting at all; and a capture held to smaller limits stops naming each one with advice that,
 * followed literally, lets it publish the change.
 *
 * <p>The source and the target get {@code max_allowed_packet} = 96 MiB for the test (a client could
 * not write a 60 MiB value otherwise, nor the applier write it back); the local cluster's broker
 * accepts produce requests of 256 MiB ({@code socket.request.max.bytes}), since an update of a 60
 * MiB binary value is a record of 160 MiB (both images, base64).
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BigRowIT {
  private static final long PACKET = 96L * 1024 * 1024;
  private static final int VALUE_BYTES = 60 * 1024 * 1024;
  private static final String TABLE =
      "CREATE TABLE big (id BIGINT PRIMARY KEY, note VARCHAR(20), b LONGBLOB) ENGINE=InnoDB";

  private final TestCluster cluster;
  private final ClusterDescriptor.Server source;
  private final ClusterDescriptor.Server target;
  private final Map<ClusterDescriptor.Server, Long> packets = new java.util.HashMap<>();

  BigRowIT(TestCluster cluster) {
    this.cluster = cluster;
    this.source = cluster.shards().get(1);
    this.target = cluster.spares().get(1);
  }

  @BeforeAll
  void raisePackets() throws Exception {
    for (ClusterDescriptor.Server s : List.of(source, target)) {
      try (Connection c = cluster.connect(s);
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT @@GLOBAL.max_allowed_packet")) {
        rs.next();
        packets.put(s, rs.getLong(1));
      }
      cluster.execute(s, "SET GLOBAL max_allowed_packet = " + PACKET, TABLE);
    }
  }

  @AfterAll
  void restorePackets() throws Exception {
    for (Map.Entry<ClusterDescriptor.Server, Long> e : packets.entrySet()) {
      cluster.execute(e.getKey(), "SET GLOBAL max_allowed_packet = " + e.getValue());
    }
  }

  @Test
  void aSixtyMebibyteValueIsCapturedAndAppliedExactlyWithNoSetting() throws Exception {
    CaptureConfig config = CaptureConfig.from(CaptureSupport.config(cluster, source, "-"));
    GtidPosition p0;
    try (CaptureEngine capture = new CaptureEngine(config)) {
      capture.start();
      p0 = CaptureSupport.binlogPosition(cluster, source);
      CaptureSupport.awaitCommitted(capture, p0, Duration.ofSeconds(60));
      write("INSERT INTO big VALUES (1, 'first', ?)", 1);
      write("UPDATE big SET b = ?, note = 'second' WHERE id = 1", 2);
      GtidPosition g = CaptureSupport.binlogPosition(cluster, source);
      CaptureSupport.awaitCommitted(capture, g, Duration.ofSeconds(120));
      try (ApplyEngine apply = new ApplyEngine(applyConfig(config.changeTopic(), p0))) {
        apply.start();
        assertTrue(
            apply.awaitApplied(config.changeTopic(), g, Duration.ofSeconds(120)),
            "applied: " + apply.lastError());
      }
    }
    String sql = "SELECT note, LENGTH(b), MD5(b) FROM big WHERE id = 1";
    String onSource = row(source, sql);
    assertTrue(onSource.startsWith("second|" + VALUE_BYTES + "|"), onSource);
    assertEquals(onSource, row(target, sql), "the target holds the source's bytes");
  }

  @Test
  void eachLimitCaptureNamesIsLiftedByTheAdviceItGives() throws Exception {
    cluster.execute(
        source, "CREATE TABLE advised (id BIGINT PRIMARY KEY, b LONGBLOB) ENGINE=InnoDB");
    Map<String, String> m = CaptureSupport.config(cluster, source, "-80");
    m.put("kafka.producer.max.request.size", "1000000");
    m.put("kafka.producer.buffer.memory", "1500000");
    CaptureConfig config = CaptureConfig.from(m);
    try (CaptureEngine capture = new CaptureEngine(config)) {
      capture.start();
      CaptureSupport.awaitCommitted(
          capture, CaptureSupport.binlogPosition(cluster, source), Duration.ofSeconds(60));
    }
    // the topic exists now; a segment smaller than the record holds it back too
    cluster.setTopicConfig(config.changeTopic(), "segment.bytes", "1048576");
    cluster.execute(source, "INSERT INTO advised VALUES (3, REPEAT('a', 3000000))");
    String message;
    try (CaptureEngine capture = new CaptureEngine(config)) {
      capture.start();
      CdcException failure = CaptureSupport.awaitFailure(capture, Duration.ofSeconds(60));
      assertInstanceOf(UnsupportedChangeException.class, failure, failure.toString());
      message = failure.getMessage();
    }
    assertTrue(message.contains(cluster.database() + ".advised key {\"id\":3}"), message);
    for (String limit :
        List.of(
            "the producer's max.request.size is 1000000",
            "the producer's buffer.memory is 1500000",
            "segment.bytes is 1048576")) {
      assertTrue(message.contains(limit), message);
    }
    // follow the advice literally
    m.put("kafka.producer.max.request.size", advised(message, "kafka.producer.max.request.size="));
    m.put("kafka.producer.buffer.memory", advised(message, "kafka.producer.buffer.memory="));
    cluster.setTopicConfig(
        config.changeTopic(), "segment.bytes", advised(message, "--add-config segment.bytes="));
    CaptureConfig raised = CaptureConfig.from(m);
    try (CaptureEngine capture = new CaptureEngine(raised)) {
      capture.start();
      CaptureSupport.awaitCommitted(
          capture, CaptureSupport.binlogPosition(cluster, source), Duration.ofSeconds(60));
    }
    List<ChangeRecord> rows =
        CaptureSupport.data(
            CaptureSupport.read(
                cluster.bootstrap(),
                config.changeTopic(),
                Duration.ofSeconds(30),
                CaptureSupport.rows("advised", "c", 1)));
    assertEquals(1, rows.stream().filter(r -> "advised".equals(r.table())).count(), "once");
  }

  /** The number that follows {@code prefix} in {@code message}. */
  private static String advised(String message, String prefix) {
    Matcher mt = Pattern.compile(Pattern.quote(prefix) + "(\\d+)").matcher(message);
    assertTrue(mt.find(), "no " + prefix + " in: " + message);
    return mt.group(1);
  }

  /** Runs {@code sql} on the source with a random value of {@link #VALUE_BYTES} as parameter 1. */
  private void write(String sql, long seed) throws Exception {
    byte[] value = new byte[VALUE_BYTES];
    new Random(seed).nextBytes(value);
    try (Connection c = cluster.connect(source);
        PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setBytes(1, value);
      assertEquals(1, ps.executeUpdate());
    }
  }

  private ApplyConfig applyConfig(String topic, GtidPosition p0) {
    return new ApplyConfig(
        "bigrow",
        "-",
        cluster.jdbcUrl(target),
        target.user(),
        "",
        cluster.database(),
        VSchema.parse(
            "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\":"
                + " {\"big\": {\"column_vindexes\": [{\"column\": \"id\", \"name\":"
                + " \"hash\"}]}}}"),
        cluster.bootstrap(),
        Map.of(topic, p0),
        1000,
        Duration.ofMillis(100));
  }

  private String row(ClusterDescriptor.Server s, String sql) throws Exception {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      assertTrue(rs.next(), "no row on " + s);
      return rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3);
    }
  }
}
