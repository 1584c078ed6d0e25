package io.reshard.bench.cdc;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Child JVM: Debezium 3.5.0's embedded engine with its MariaDB connector (or, with {@code
 * flavor=mysql}, its MySQL connector, {@code io.debezium.connector.mysql.MySqlConnector}, with the
 * same settings but the word for no TLS, see {@link #connectorSettings}) streams the binlog from
 * its start ({@code snapshot.mode=never}: no snapshot, no offset, so it reads the first binlog
 * file, in which the benchmark's source holds only its schema and the load) and a handler publishes
 * every change event (JSON without schemas, as Debezium's JsonConverter writes it) to a Kafka topic
 * with a plain producer ({@code acks=all}, idempotent, lz4 and linger 5 ms like reshard's capture).
 * The clock runs from the engine's start until {@code rows} change events were sent and the
 * producer flushed.
 *
 * <p>Offsets and schema history are kept in memory: the run never restarts. Arguments: host, port,
 * user, flavor ({@code mariadb} or {@code mysql}), serverId, database, table, bootstrap, topic,
 * rows.
 */
public final class DebeziumCaptureMain {
  private DebeziumCaptureMain() {}

  /**
   * What differs between Debezium's two connectors here: the class, and the word each takes for "no
   * TLS" in {@code database.ssl.mode} (MariaDB's {@code disable}, MySQL's {@code disabled}).
   */
  static Map<String, String> connectorSettings(String flavor) {
    return switch (flavor) {
      case "mariadb" ->
          Map.of(
              "connector.class",
              "io.debezium.connector.mariadb.MariaDbConnector",
              "database.ssl.mode",
              "disable");
      case "mysql" ->
          Map.of(
              "connector.class",
              "io.debezium.connector.mysql.MySqlConnector",
              "database.ssl.mode",
              "disabled");
      default ->
          throw new IllegalArgumentException(
              "unknown flavor '" + flavor + "' for Debezium; use mariadb or mysql");
    };
  }

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
    Properties p = new Properties();
    p.setProperty("name", "bench-" + topic);
    p.putAll(connectorSettings(ChildJvm.arg(a, "flavor")));
    p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
    p.setProperty("offset.flush.interval.ms", "60000");
    p.setProperty("database.hostname", ChildJvm.arg(a, "host"));
    p.setProperty("database.port", ChildJvm.arg(a, "port"));
    p.setProperty("database.user", ChildJvm.arg(a, "user"));
    p.setProperty("database.password", "");
    p.setProperty("database.server.id", ChildJvm.arg(a, "serverId"));
    p.setProperty("topic.prefix", topic);
    p.setProperty("database.include.list", ChildJvm.arg(a, "database"));
    p.setProperty(
        "table.include.list", ChildJvm.arg(a, "database") + "." + ChildJvm.arg(a, "table"));
    p.setProperty("schema.history.internal", "io.debezium.relational.history.MemorySchemaHistory");
    p.setProperty("snapshot.mode", "never");
    p.setProperty("include.schema.changes", "false");
    p.setProperty("tombstones.on.delete", "false");
    p.setProperty("key.converter.schemas.enable", "false");
    p.setProperty("value.converter.schemas.enable", "false");

    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, ChildJvm.arg(a, "bootstrap"));
    pp.put(ProducerConfig.ACKS_CONFIG, "all");
    pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());

    AtomicLong sent = new AtomicLong();
    AtomicLong firstNanos = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    // the broker does not create topics on demand; create it, and connect, before the clock starts
    try (Admin admin =
        Admin.create(
            Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, ChildJvm.arg(a, "bootstrap")))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(pp)) {
      producer.partitionsFor(topic);
      DebeziumEngine.ChangeConsumer<ChangeEvent<String, String>> handler =
          (List<ChangeEvent<String, String>> records,
              DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer) -> {
            for (ChangeEvent<String, String> r : records) {
              if (r.value() != null) {
                producer.send(
                    new ProducerRecord<>(topic, 0, r.key(), r.value()),
                    (meta, e) -> {
                      if (e != null) {
                        failure.compareAndSet(null, e);
                        done.countDown();
                      }
                    });
                if (sent.incrementAndGet() == 1) {
                  firstNanos.set(System.nanoTime());
                }
                if (sent.get() == rows) {
                  done.countDown();
                }
              }
              committer.markProcessed(r);
            }
            committer.markBatchFinished();
          };
      long cpu0 = ChildJvm.cpuNanos();
      long t0 = System.nanoTime();
      DebeziumEngine<ChangeEvent<String, String>> engine =
          DebeziumEngine.create(Json.class)
              .using(p)
              .using(
                  (success, message, error) -> {
                    if (!success) {
                      failure.compareAndSet(
                          null, error != null ? error : new IllegalStateException(message));
                      done.countDown();
                    }
                  })
              .notifying(handler)
              .build();
      ExecutorService executor = Executors.newSingleThreadExecutor();
      executor.execute(engine);
      done.await();
      if (failure.get() != null) {
        throw new IllegalStateException(
            "Debezium failed after " + sent + " records", failure.get());
      }
      producer.flush();
      long t1 = System.nanoTime();
      long cpu1 = ChildJvm.cpuNanos();
      engine.close();
      executor.shutdown();
      executor.awaitTermination(30, TimeUnit.SECONDS);
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("seconds", (t1 - t0) / 1e9);
      r.put("cpuSeconds", (cpu1 - cpu0) / 1e9);
      r.put("firstRecordSeconds", (firstNanos.get() - t0) / 1e9);
      r.put("cpuTotalSeconds", ChildJvm.cpuNanos() / 1e9);
      r.put("records", sent.get());
      ChildJvm.report(r);
    }
  }
}
