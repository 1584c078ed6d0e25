package io.reshard.cluster;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
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
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Checks that a running local cluster does what the pipeline needs: on every MariaDB server a row
 * write shows up as a row event in the binlog under a GTID of the server's own domain, and the
 * broker commits a transactional produce that a {@code read_committed} consumer sees while it hides
 * an aborted one.
 *
 * <p>Writes only to the database {@link #DATABASE} and to a topic named {@code reshard-smoke-UUID},
 * which it deletes. Not thread-safe.
 */
public final class SmokeCheck {

  /** The database the check writes to on every server. */
  public static final String DATABASE = "reshard_smoke";

  private SmokeCheck() {}

  /**
   * The outcome of one check.
   *
   * @param serverLines per server: its name and the GTID its write got
   * @param committedSeen records of the committed transaction a read_committed consumer saw
   * @param abortedSeen records of the aborted transaction it saw (must be 0)
   */
  public record Result(List<String> serverLines, int committedSeen, int abortedSeen) {
    /** True if every server logged its row event and Kafka kept the aborted records hidden. */
    public boolean ok() {
      return committedSeen == 3 && abortedSeen == 0;
    }
  }

  /**
   * Runs the check against every server and the broker of {@code d}.
   *
   * @throws ClusterException if a server does not log the write as a row event with a GTID, or
   *     Kafka fails
   */
  public static Result run(ClusterDescriptor d) {
    List<String> lines = new ArrayList<>();
    for (ClusterDescriptor.Server s : d.mariadb()) {
      lines.add(s.name() + " wrote a row logged as GTID " + writeAndFindRowEvent(s));
    }
    int[] seen = transactionalRoundTrip(d.kafka().bootstrap());
    return new Result(lines, seen[0], seen[1]);
  }

  /** Writes one row and returns the GTID under which the binlog holds its row event. */
  static String writeAndFindRowEvent(ClusterDescriptor.Server s) {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
        Statement st = c.createStatement()) {
      st.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
      st.execute(
          "CREATE TABLE IF NOT EXISTS "
              + DATABASE
              + ".probe (id BIGINT AUTO_INCREMENT PRIMARY KEY, note VARCHAR(64)) ENGINE=InnoDB");
      st.execute("INSERT INTO " + DATABASE + ".probe (note) VALUES ('smoke')");
      String gtid = scalar(st, "SELECT @@last_gtid");
      String expectedDomain = s.serverId() + "-";
      if (gtid == null || !gtid.startsWith(expectedDomain)) {
        throw new ClusterException(
            ClusterException.Kind.OTHER,
            s.name() + ": the write got GTID " + gtid + ", not one of domain " + s.serverId());
      }
      String file = scalar(st, "SELECT SUBSTRING_INDEX(@@log_bin_basename, '/', -1)");
      if (!binlogHasRowEventAfter(st, gtid)) {
        throw new ClusterException(
            ClusterException.Kind.OTHER,
            s.name() + ": no Write_rows event follows GTID " + gtid + " in binlogs " + file);
      }
      return gtid;
    } catch (SQLException e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER,
          s.name()
              + " (port "
              + s.port()
              + "): "
              + e.getMessage()
              + " [error "
              + e.getErrorCode()
              + "]",
          e);
    }
  }

  /**
   * Scans the binlogs for the GTID event {@code gtid} followed by a row event before its commit.
   */
  private static boolean binlogHasRowEventAfter(Statement st, String gtid) throws SQLException {
    List<String> files = new ArrayList<>();
    try (ResultSet rs = st.executeQuery("SHOW BINARY LOGS")) {
      while (rs.next()) {
        files.add(rs.getString(1));
      }
    }
    for (String file : files) {
      boolean inTransaction = false;
      try (ResultSet rs = st.executeQuery("SHOW BINLOG EVENTS IN '" + file + "'")) {
        while (rs.next()) {
          String type = rs.getString("Event_type");
          String info = rs.getString("Info");
          if ("Gtid".equals(type)) {
            inTransaction =
                info != null
                    && (info.endsWith("GTID " + gtid) || info.contains("GTID " + gtid + " "));
          } else if (inTransaction && type.startsWith("Write_rows")) {
            return true;
          } else if ("Xid".equals(type)) {
            inTransaction = false;
          }
        }
      }
    }
    return false;
  }

  private static String scalar(Statement st, String sql) throws SQLException {
    try (ResultSet rs = st.executeQuery(sql)) {
      return rs.next() ? rs.getString(1) : null;
    }
  }

  /**
   * Commits three records and aborts two in a transactional producer, then reads the topic with a
   * {@code read_committed} consumer.
   *
   * @return {committed records seen, aborted records seen}
   */
  static int[] transactionalRoundTrip(String bootstrap) {
    String topic = "reshard-smoke-" + UUID.randomUUID();
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      admin
          .createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
          .all()
          .get(30, TimeUnit.SECONDS);
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(bootstrap))) {
        producer.initTransactions();
        producer.beginTransaction();
        for (int i = 0; i < 3; i++) {
          producer.send(new ProducerRecord<>(topic, "k" + i, "committed"));
        }
        producer.commitTransaction();
        producer.beginTransaction();
        for (int i = 0; i < 2; i++) {
          producer.send(new ProducerRecord<>(topic, "a" + i, "aborted"));
        }
        producer.flush();
        producer.abortTransaction();
        producer.beginTransaction();
        producer.send(new ProducerRecord<>(topic, "end", "marker"));
        producer.commitTransaction();
      }
      int[] seen = readCommitted(bootstrap, topic);
      admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      return seen;
    } catch (Exception e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER, "Kafka at " + bootstrap + ": " + e, e);
    }
  }

  private static int[] readCommitted(String bootstrap, String topic) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
      consumer.assign(List.of(new org.apache.kafka.common.TopicPartition(topic, 0)));
      int committed = 0;
      int aborted = 0;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      boolean end = false;
      while (!end && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          switch (r.value()) {
            case "committed" -> committed++;
            case "aborted" -> aborted++;
            default -> end = true;
          }
        }
      }
      return new int[] {committed, aborted};
    }
  }

  /**
   * A transactional producer's properties for {@code bootstrap}: string keys and values, a new
   * transactional id each call (used by the lab's startup benchmark too).
   */
  public static Properties producerProps(String bootstrap) {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "reshard-smoke-" + UUID.randomUUID());
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    // back-to-back small transactions wait on this backoff; the default makes each take ~25 ms
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 10);
    return p;
  }
}
