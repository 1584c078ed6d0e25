package io.reshard.bench.cdc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cdc.ChangeRecords;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;

/**
 * Child JVM: the baseline for apply. A bare loop reads the same change topic ({@code
 * read_committed}), parses each data record's JSON with Jackson, and writes the chat table's rows
 * with batched JDBC statements: consecutive inserts and updates as one {@code REPLACE} batch,
 * consecutive deletes as one {@code DELETE} batch (a change of op flushes the other batch, so order
 * is kept), one target transaction per poll of up to 2,000 records. It knows the table's five
 * columns; it stores no position, filters no range and handles no primary-key change: what a
 * hand-written one-table sink does.
 *
 * <p>Arguments: jdbcUrl, user, bootstrap, topic, rows (data records to apply). Reports seconds,
 * cpuSeconds and rowsApplied.
 */
public final class BareApplyMain {
  private static final int MAX_POLL_RECORDS = 2000;

  private BareApplyMain() {}

  /**
   * Runs one measurement with {@code key=value} arguments (see the class comment) and reports it.
   */
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = ChildJvm.parse(argv);
    long rows = Long.parseLong(ChildJvm.arg(a, "rows"));
    TopicPartition tp = new TopicPartition(ChildJvm.arg(a, "topic"), 0);
    Properties cp = ChangeRecords.consumerProperties(ChildJvm.arg(a, "bootstrap"), null);
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
    ObjectMapper json = new ObjectMapper();
    long cpu0 = ChildJvm.cpuNanos();
    long t0 = System.nanoTime();
    long applied = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(cp);
        Connection c =
            DriverManager.getConnection(ChildJvm.arg(a, "jdbcUrl"), ChildJvm.arg(a, "user"), "")) {
      try (Statement s = c.createStatement()) {
        s.execute("SET SESSION time_zone = '+00:00'");
        s.execute("SET SESSION foreign_key_checks = 0");
      }
      c.setAutoCommit(false);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      try (PreparedStatement replace =
              c.prepareStatement(
                  "REPLACE INTO messages (id, channel_id, user_id, created_at, body)"
                      + " VALUES (?, ?, ?, ?, ?)");
          PreparedStatement delete = c.prepareStatement("DELETE FROM messages WHERE id = ?")) {
        Batches b = new Batches(replace, delete);
        while (applied < rows) {
          for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
            Header kind = r.headers().lastHeader(ChangeRecords.KIND_HEADER);
            if (kind == null || !"data".equals(new String(kind.value(), StandardCharsets.UTF_8))) {
              continue; // BEGIN, END, heartbeats
            }
            JsonNode v = json.readTree(r.value());
            switch (v.get("op").asText()) {
              case "c", "u" -> b.replace(v.get("after"));
              case "d" -> b.delete(v.get("before"));
              default -> throw new IllegalStateException("unexpected op in " + v);
            }
            applied++;
          }
          b.flush();
          c.commit();
        }
      }
    }
    long t1 = System.nanoTime();
    long cpu1 = ChildJvm.cpuNanos();
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("seconds", (t1 - t0) / 1e9);
    r.put("cpuSeconds", (cpu1 - cpu0) / 1e9);
    r.put("rowsApplied", applied);
    ChildJvm.report(r);
    System.exit(0);
  }

  /** The open batch: REPLACEs or DELETEs, never both, so the target sees changes in order. */
  private static final class Batches {
    private final PreparedStatement replace;
    private final PreparedStatement delete;
    private PreparedStatement open;

    Batches(PreparedStatement replace, PreparedStatement delete) {
      this.replace = replace;
      this.delete = delete;
    }

    void replace(JsonNode after) throws java.sql.SQLException {
      switchTo(replace);
      replace.setLong(1, after.get("id").asLong());
      replace.setLong(2, after.get("channel_id").asLong());
      replace.setLong(3, after.get("user_id").asLong());
      replace.setString(4, after.get("created_at").asText());
      replace.setString(5, after.get("body").asText());
      replace.addBatch();
    }

    void delete(JsonNode before) throws java.sql.SQLException {
      switchTo(delete);
      delete.setLong(1, before.get("id").asLong());
      delete.addBatch();
    }

    void flush() throws java.sql.SQLException {
      if (open != null) {
        open.executeBatch();
        open = null;
      }
    }

    private void switchTo(PreparedStatement st) throws java.sql.SQLException {
      if (open != st) {
        flush();
        open = st;
      }
    }
  }
}
