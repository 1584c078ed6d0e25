package io.reshard.switcher;

import io.reshard.cdc.HandOver;
import io.reshard.cdc.HandOverLog;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The hand-overs of write ownership that the workflow records hold ({@link Workflow#handOvers}),
 * for the keyspace change stream: follows the workflow topic, and each {@link #read} first reads it
 * to its end as it is at the call, so a hand-over saved before the call is in the answer. The
 * newest record of a workflow holds all its hand-overs, so compaction loses none. Not thread-safe:
 * one stream's loop.
 */
public final class WorkflowHandOvers implements HandOverLog, AutoCloseable {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final String topic;
  private final KafkaConsumer<String, byte[]> consumer;
  private final TopicPartition partition;
  private final Map<String, Workflow> newest = new HashMap<>();

  /**
   * @param bootstrap the Kafka bootstrap servers
   * @param topic the workflow topic
   */
  public WorkflowHandOvers(String bootstrap, String topic) {
    this.topic = topic;
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "reshard-handovers-" + UUID.randomUUID());
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    this.consumer = new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    this.partition = new TopicPartition(topic, 0);
    consumer.assign(List.of(partition));
    consumer.seekToBeginning(List.of(partition));
  }

  @Override
  public List<HandOver> read(String keyspace) {
    readToEnd();
    List<HandOver> all = new ArrayList<>();
    for (Workflow w : newest.values()) {
      if (w.keyspace().equals(keyspace)) {
        all.addAll(w.handOvers());
      }
    }
    return all;
  }

  /** The keyspaces that have a workflow, read to the topic's end now. */
  public java.util.Set<String> keyspaces() {
    readToEnd();
    java.util.Set<String> all = new java.util.TreeSet<>();
    newest.values().forEach(w -> all.add(w.keyspace()));
    return all;
  }

  private void readToEnd() {
    KafkaWorkflowStore.readOn(consumer, partition, topic, newest);
  }

  @Override
  public void close() {
    consumer.close(Duration.ofSeconds(5));
  }
}
