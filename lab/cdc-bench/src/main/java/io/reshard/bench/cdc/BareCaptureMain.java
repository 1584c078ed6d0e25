package io.reshard.bench.cdc;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.DeleteRowsEventData;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.TableMapEventData;
import com.github.shyiko.mysql.binlog.event.UpdateRowsEventData;
import com.github.shyiko.mysql.binlog.event.WriteRowsEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Child JVM: the ceiling for capture. A bare loop on the binlog client (the version reshard uses,
 * its stock deserializers, temporal values as epoch microseconds and strings as bytes) turns each
 * row of the chat table into a small JSON object by hand ({@code op}, {@code before}, {@code after}
 * with the table's five column names, {@code gtid}) and sends it to a topic with the same producer
 * settings as the Debezium run. No transactions, no stored position, no schema tracking, no charset
 * handling beyond UTF-8: what a hand-written one-table forwarder does.
 *
 * <p>The same loop reads a MariaDB or a MySQL binlog: the client tells the two apart when it
 * connects and takes {@code start} in either GTID form; a transaction's GTID comes as a MariaDB
 * GTID event ({@code domain-server-sequence}) or a MySQL one ({@code uuid:number}).
 *
 * <p>Arguments: host, port, user, serverId, database, table, bootstrap, topic, start (GTID
 * position), rows.
 */
public final class BareCaptureMain {
  private static final String[] COLUMNS = {"id", "channel_id", "user_id", "created_at", "body"};

  private BareCaptureMain() {}

  /**
   * Runs one measurement with {@code key=value} arguments (see the class comment) and reports it.
   */
  public static void main(String[] argv) {
    ChildJvm.exitWhenDone(() -> measure(argv));
  }

  private static void measure(String[] argv) throws Exception {
    Map<String, String> a = ChildJvm.parse(argv);
    long rows = Long.parseLong(ChildJvm.arg(a, "rows"));
    String topic = ChildJvm.arg(a, "topic");
    String table = ChildJvm.arg(a, "database") + "." + ChildJvm.arg(a, "table");
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ChildJvm.arg(a, "bootstrap")))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ChildJvm.arg(a, "bootstrap"));
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(pp)) {
      producer.partitionsFor(topic);
      long cpu0 = ChildJvm.cpuNanos();
      long t0 = System.nanoTime();
      BinaryLogClient client =
          new BinaryLogClient(
              ChildJvm.arg(a, "host"),
              Integer.parseInt(ChildJvm.arg(a, "port")),
              ChildJvm.arg(a, "user"),
              "");
      client.setServerId(Long.parseLong(ChildJvm.arg(a, "serverId")));
      client.setKeepAlive(false);
      client.setUseSendAnnotateRowsEvent(false);
      client.setGtidSet(ChildJvm.arg(a, "start"));
      EventDeserializer d = new EventDeserializer();
      d.setCompatibilityMode(
          EventDeserializer.CompatibilityMode.DATE_AND_TIME_AS_LONG_MICRO,
          EventDeserializer.CompatibilityMode.CHAR_AND_BINARY_AS_BYTE_ARRAY);
      client.setEventDeserializer(d);
      Forwarder f = new Forwarder(producer, topic, table, rows, failure, done);
      client.registerEventListener(f::onEvent);
      client.connect(10_000);
      done.await();
      if (failure.get() != null) {
        throw new IllegalStateException("the bare loop failed after " + f.sent, failure.get());
      }
      producer.flush();
      long t1 = System.nanoTime();
      long cpu1 = ChildJvm.cpuNanos();
      client.disconnect();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("seconds", (t1 - t0) / 1e9);
      r.put("cpuSeconds", (cpu1 - cpu0) / 1e9);
      r.put("firstRecordSeconds", (f.firstNanos - t0) / 1e9);
      r.put("records", f.sent);
      ChildJvm.report(r);
    }
  }

  /** The event listener: runs on the binlog client's reader thread. */
  private static final class Forwarder {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;
    private final String table;
    private final long rows;
    private final AtomicReference<Throwable> failure;
    private final CountDownLatch done;
    private final Map<Long, String> tables = new HashMap<>();
    private final StringBuilder json = new StringBuilder(512);
    private String gtid;
    volatile long sent;
    volatile long firstNanos;

    Forwarder(
        KafkaProducer<byte[], byte[]> producer,
        String topic,
        String table,
        long rows,
        AtomicReference<Throwable> failure,
        CountDownLatch done) {
      this.producer = producer;
      this.topic = topic;
      this.table = table;
      this.rows = rows;
      this.failure = failure;
      this.done = done;
    }

    void onEvent(Event e) {
      EventData data = e.getData();
      if (data instanceof MariadbGtidEventData g) {
        gtid = g.getDomainId() + "-" + g.getServerId() + "-" + g.getSequence();
      } else if (data instanceof GtidEventData g) {
        gtid = g.getGtid(); // MySQL: uuid:number
      } else if (data instanceof TableMapEventData m) {
        tables.put(m.getTableId(), m.getDatabase() + "." + m.getTable());
      } else if (data instanceof WriteRowsEventData w && ours(w.getTableId())) {
        w.getRows().forEach(after -> send("c", null, after));
      } else if (data instanceof UpdateRowsEventData u && ours(u.getTableId())) {
        u.getRows().forEach(row -> send("u", row.getKey(), row.getValue()));
      } else if (data instanceof DeleteRowsEventData del && ours(del.getTableId())) {
        del.getRows().forEach(before -> send("d", before, null));
      }
    }

    private boolean ours(long tableId) {
      return table.equals(tables.get(tableId));
    }

    private void send(String op, Serializable[] before, Serializable[] after) {
      json.setLength(0);
      json.append("{\"op\":\"").append(op).append("\",\"before\":");
      image(before);
      json.append(",\"after\":");
      image(after);
      json.append(",\"gtid\":\"").append(gtid).append("\"}");
      Serializable id = (after != null ? after : before)[0];
      producer.send(
          new ProducerRecord<>(
              topic,
              0,
              String.valueOf(id).getBytes(StandardCharsets.UTF_8),
              json.toString().getBytes(StandardCharsets.UTF_8)),
          (meta, ex) -> {
            if (ex != null) {
              failure.compareAndSet(null, ex);
              done.countDown();
            }
          });
      if (++sent == 1) {
        firstNanos = System.nanoTime();
      }
      if (sent == rows) {
        done.countDown();
      }
    }

    private void image(Serializable[] row) {
      if (row == null) {
        json.append("null");
        return;
      }
      json.append('{');
      for (int i = 0; i < row.length; i++) {
        json.append(i == 0 ? "\"" : ",\"").append(COLUMNS[i]).append("\":");
        Serializable v = row[i];
        if (v == null || v instanceof Number) {
          json.append(v);
        } else {
          String s = v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString();
          json.append('"').append(s.replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
        }
      }
      json.append('}');
    }
  }
}
