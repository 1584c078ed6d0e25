package io.reshard.switcher;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import io.reshard.router.ReshardException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
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
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Workflow records in a compacted Kafka topic (DESIGN 5): key = workflow name, value = the record
 * as JSON; the newest record of a name is its state. {@link #save} returns once the broker has
 * acknowledged the record to every in-sync replica; {@link #load} and {@link #list} read the topic
 * to its end. Thread-safe.
 */
public final class KafkaWorkflowStore implements WorkflowStore, AutoCloseable {
  /** The default topic name. */
  public static final String DEFAULT_TOPIC = "reshard.workflows";

  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final String bootstrap;
  private final String topic;
  private final KafkaProducer<String, byte[]> producer;

  private KafkaWorkflowStore(String bootstrap, String topic) {
    this.bootstrap = bootstrap;
    this.topic = topic;
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    // every save is one record awaited at once; the switch's journal is saved inside the fenced
    // window, where Kafka's default linger (5 ms since Kafka 4.0) is pure write pause
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    this.producer = new KafkaProducer<>(p, new StringSerializer(), new ByteArraySerializer());
  }

  /**
   * Opens the store, creating its compacted single-partition topic if it does not exist.
   *
   * @throws ReshardException if Kafka does not answer within 30 s
   */
  public static KafkaWorkflowStore open(String bootstrap, String topic) {
    try (Admin admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
      NewTopic t =
          new NewTopic(topic, Optional.of(1), Optional.empty())
              .configs(
                  Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
      admin.createTopics(List.of(t)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new ReshardException(
            "cannot create the workflow topic " + topic + ": " + e.getCause(), e);
      }
    } catch (Exception e) {
      throw new ReshardException("cannot create the workflow topic " + topic + ": " + e, e);
    }
    return new KafkaWorkflowStore(bootstrap, topic);
  }

  @Override
  public void save(Workflow workflow) {
    try {
      producer
          .send(new ProducerRecord<>(topic, workflow.name(), JSON.writeValueAsBytes(workflow)))
          .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new io.reshard.router.RetriableReshardException(
          "cannot save workflow "
              + workflow.name()
              + " (state "
              + workflow.state()
              + ") to "
              + topic
              + ": "
              + e,
          e);
    }
  }

  @Override
  public Optional<Workflow> load(String name) {
    return Optional.ofNullable(readAll().get(name));
  }

  @Override
  public List<Workflow> list() {
    return new ArrayList<>(readAll().values());
  }

  /**
   * Reads the topic from the beginning to its end; later records of a name replace earlier ones.
   */
  private Map<String, Workflow> readAll() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "reshard-workflows-" + UUID.randomUUID());
    Map<String, Workflow> newest = new TreeMap<>();
    try (KafkaConsumer<String, byte[]> c =
        new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer())) {
      TopicPartition tp = new TopicPartition(topic, 0);
      c.assign(List.of(tp));
      c.seekToBeginning(List.of(tp));
      readOn(c, tp, topic, newest);
    }
    return newest;
  }

  /**
   * Reads the workflow topic {@code topic} with {@code c} (assigned to its partition {@code tp})
   * from where it is to the topic's end, into {@code newest}: later records of a name replace
   * earlier ones, a tombstone removes the name.
   *
   * @throws io.reshard.router.RetriableReshardException if the end is not reached within 30 s
   * @throws ReshardException if a record is not a workflow
   */
  static void readOn(
      KafkaConsumer<String, byte[]> c,
      TopicPartition tp,
      String topic,
      Map<String, Workflow> newest) {
    long end = c.endOffsets(List.of(tp), TIMEOUT).get(tp);
    long deadline = System.nanoTime() + TIMEOUT.toNanos();
    while (c.position(tp, TIMEOUT) < end) {
      if (System.nanoTime() > deadline) {
        throw new io.reshard.router.RetriableReshardException(
            "reading the workflow topic " + topic + " timed out; is the broker up?");
      }
      for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(200))) {
        if (r.value() == null) {
          newest.remove(r.key());
          continue;
        }
        try {
          newest.put(r.key(), JSON.readValue(r.value(), Workflow.class));
        } catch (IOException e) {
          throw new ReshardException(
              "a record in the workflow topic " + topic + " is not a workflow: " + e.getMessage(),
              e);
        }
      }
    }
  }

  @Override
  public void close() {
    producer.close(Duration.ofSeconds(5));
  }
}
