package io.reshard.cdc;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/** Shared helpers of the capture integration tests. */
final class CaptureSupport {
  /** Capture server ids: distinct per engine so binlog clients never clash (servers use 1..6). */
  private static final AtomicInteger SERVER_IDS = new AtomicInteger(5000);

  private CaptureSupport() {}

  /** A capture configuration for {@code server}'s copy of the class database. */
  static Map<String, String> config(
      TestCluster cluster, ClusterDescriptor.Server server, String shard) {
    Map<String, String> m = new HashMap<>();
    m.put("source.host", server.host());
    m.put("source.port", Integer.toString(server.port()));
    m.put("source.user", server.user());
    m.put("source.flavor", server.flavorOrDefault().id());
    m.put("source.server.id", Integer.toString(SERVER_IDS.incrementAndGet()));
    m.put("keyspace", cluster.database());
    m.put("shard", shard);
    m.put("kafka.bootstrap.servers", cluster.bootstrap());
    m.put("topic.prefix", cluster.topicPrefix());
    m.put("heartbeat.interval.ms", "1000");
    m.put("batch.max.wait.ms", "50");
    m.put("retry.timeout.ms", "20000");
    return m;
  }

  /** The server's current position, by its flavor ({@link ServerPositions#current}). */
  static GtidPosition binlogPosition(TestCluster cluster, ClusterDescriptor.Server server)
      throws Exception {
    try (Connection c = cluster.connect(server)) {
      return ServerPositions.current(c);
    }
  }

  /** Waits until the engine has committed a position covering {@code target}. */
  static void awaitCommitted(CaptureEngine engine, GtidPosition target, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      if (engine.state() == CaptureEngine.State.FAILED) {
        throw new AssertionError("capture failed", engine.failure().orElse(null));
      }
      if (engine.committedPosition().map(p -> p.gtids().covers(target)).orElse(false)) {
        return;
      }
      Thread.sleep(50);
    }
    throw new AssertionError(
        "capture did not reach "
            + target
            + " in "
            + timeout
            + "; at "
            + engine.committedPosition());
  }

  /** Waits until the engine has stopped by itself and returns its failure. */
  static CdcException awaitFailure(CaptureEngine engine, Duration timeout)
      throws InterruptedException {
    if (!engine.awaitTermination(timeout)) {
      throw new AssertionError("capture is still running after " + timeout);
    }
    return engine.failure().orElseThrow(() -> new AssertionError("capture stopped without error"));
  }

  /** Reads a topic from its start with read_committed until {@code done} holds or time is up. */
  static List<ChangeRecord> read(
      String bootstrap, String topic, Duration timeout, Predicate<List<ChangeRecord>> done) {
    List<ChangeRecord> out = new ArrayList<>();
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(ChangeRecords.consumerProperties(bootstrap, null))) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!done.test(out) && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          out.add(ChangeRecords.parse(r));
        }
      }
    }
    return out;
  }

  /** Only the row-change records (op c, u, d, t). */
  static List<ChangeRecord> data(List<ChangeRecord> records) {
    return records.stream().filter(r -> r.kind() == RecordKind.DATA).toList();
  }

  /**
   * Records until the first data record of {@code table} with {@code op} count reaches {@code n}.
   */
  static Predicate<List<ChangeRecord>> rows(String table, String op, int n) {
    return list ->
        list.stream()
                .filter(
                    r ->
                        r.kind() == RecordKind.DATA && table.equals(r.table()) && op.equals(r.op()))
                .count()
            >= n;
  }
}
