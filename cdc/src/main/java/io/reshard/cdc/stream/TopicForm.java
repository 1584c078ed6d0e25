package io.reshard.cdc.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cdc.KeyspaceTopicFormException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The form of the records a keyspace topic already holds, so that a stream started with the other
 * {@code keyspace.stream.format} does not mix the two in one topic: its consumers read one form (a
 * Connect sink fails on an envelope record, a plain consumer finds {@code schema} and {@code
 * payload} where it expects {@code op}). The newest records of every partition are read; a record
 * whose value is an object of exactly {@code schema} and {@code payload} is in the Connect form,
 * one with {@code op} is an envelope, anything else (a tombstone, a record not of reshard) tells
 * nothing. Stateless.
 */
public final class TopicForm {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How many of each partition's newest offsets are read (commit markers take some). */
  private static final int NEWEST = 20;

  private TopicForm() {}

  /**
   * Refuses to write {@code config}'s form into a topic that holds the other one.
   *
   * @param partitions the topic's partition count
   * @throws KeyspaceTopicFormException naming the topic, both forms and what to do
   */
  public static void requireSame(KeyspaceStreamConfig config, int partitions) {
    Optional<KeyspaceStreamConfig.Format> held =
        held(config.bootstrap(), config.topic(), partitions);
    if (held.isPresent() && held.get() != config.format()) {
      throw new KeyspaceTopicFormException(
          "keyspace stream of "
              + config.keyspace()
              + ": topic "
              + config.topic()
              + " holds records in the "
              + name(held.get())
              + " form, but keyspace.stream.format is "
              + name(config.format())
              + "; a topic keeps one form, the one its consumers read: set keyspace.stream.format="
              + name(held.get())
              + " again, or give the stream a new topic (keyspace.stream.topic.prefix), which its"
              + " consumers then read from the start");
    }
  }

  /** The form of the newest record the topic holds, if one tells it. */
  static Optional<KeyspaceStreamConfig.Format> held(
      String bootstrap, String topic, int partitions) {
    List<TopicPartition> tps = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      tps.add(new TopicPartition(topic, p));
    }
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(ChangeRecords.consumerProperties(bootstrap, null))) {
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(30));
      List<TopicPartition> filled = tps.stream().filter(tp -> ends.get(tp) > 0).toList();
      consumer.assign(filled);
      filled.forEach(tp -> consumer.seek(tp, Math.max(0, ends.get(tp) - NEWEST)));
      ConsumerRecord<byte[], byte[]> newest = null;
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (!filled.isEmpty() && !readToEnd(consumer, filled, ends)) {
        if (System.nanoTime() > deadline) {
          throw new CdcException.Retriable(
              "timed out reading the newest records of " + topic, null);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (form(r.value()).isPresent()
              && (newest == null || r.timestamp() >= newest.timestamp())) {
            newest = r;
          }
        }
      }
      return newest == null ? Optional.empty() : form(newest.value());
    }
  }

  private static boolean readToEnd(
      KafkaConsumer<byte[], byte[]> consumer,
      List<TopicPartition> tps,
      Map<TopicPartition, Long> ends) {
    for (TopicPartition tp : tps) {
      if (consumer.position(tp, Duration.ofSeconds(30)) < ends.get(tp)) {
        return false;
      }
    }
    return true;
  }

  /** The form of one record's value, if it tells one. */
  static Optional<KeyspaceStreamConfig.Format> form(byte[] value) {
    if (value == null) {
      return Optional.empty();
    }
    JsonNode v;
    try {
      v = JSON.readTree(value);
    } catch (IOException e) {
      return Optional.empty();
    }
    if (v == null || !v.isObject()) {
      return Optional.empty();
    }
    if (v.size() == 2 && v.has("schema") && v.has("payload")) {
      return Optional.of(KeyspaceStreamConfig.Format.CONNECT_JSON);
    }
    return v.has("op") ? Optional.of(KeyspaceStreamConfig.Format.ENVELOPE) : Optional.empty();
  }

  private static String name(KeyspaceStreamConfig.Format f) {
    return f == KeyspaceStreamConfig.Format.CONNECT_JSON ? "connect-json" : "envelope";
  }
}
