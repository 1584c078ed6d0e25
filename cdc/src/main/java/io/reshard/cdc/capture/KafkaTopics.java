package io.reshard.cdc.capture;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureRefusedException;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.ChangeRecords;
import io.reshard.core.position.CapturePosition;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Creates capture's topics when missing (the change topic with one partition, the offsets topic
 * compacted) and reads the stored position back. Stateless; each call opens and closes its own
 * clients.
 */
final class KafkaTopics {
  private static final long TIMEOUT_SECONDS = 30;

  private KafkaTopics() {}

  /**
   * What the change topic and its broker accept of one record batch (bytes).
   *
   * @param maxMessageBytes the topic's {@code max.message.bytes}
   * @param segmentBytes the topic's {@code segment.bytes} (a batch larger than a segment is
   *     refused)
   * @param socketRequestMaxBytes the smallest {@code socket.request.max.bytes} of the brokers, or
   *     {@link Long#MAX_VALUE} if capture may not read the brokers' configuration
   */
  record Limits(long maxMessageBytes, long segmentBytes, long socketRequestMaxBytes) {}

  /**
   * Creates the change and offsets topics if missing and returns the change topic's limits. A
   * change topic capture creates gets {@code max.message.bytes} = {@code recordBytes}, and a {@code
   * segment.bytes} that holds such a record where the broker's default would not.
   *
   * @param recordBytes the largest record capture is sized for ({@code topic.max.message.bytes}, or
   *     sized from the source's {@code max_allowed_packet})
   * @throws CaptureRefusedException if the change topic has more than one partition
   * @throws CdcException.Retriable if Kafka cannot be reached
   */
  static Limits ensure(CaptureConfig config, int recordBytes) {
    try (Admin admin = Admin.create(adminProperties(config))) {
      Optional<Short> rf =
          config.replicationFactor() < 0
              ? Optional.empty()
              : Optional.of(config.replicationFactor());
      Map<String, Long> broker = brokerLimits(admin);
      Map<String, String> changeConfig = new java.util.HashMap<>();
      changeConfig.put(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(recordBytes));
      long segmentNeeded = Math.min(Integer.MAX_VALUE, recordBytes + 1024L * 1024);
      if (broker.getOrDefault(SEGMENT_BYTES, Long.MAX_VALUE) < segmentNeeded) {
        changeConfig.put(TopicConfig.SEGMENT_BYTES_CONFIG, Long.toString(segmentNeeded));
      }
      // both topics in one request, and both descriptions at once: each round trip to the
      // controller is part of capture's start-up
      create(
          admin,
          List.of(
              new NewTopic(config.changeTopic(), Optional.of(1), rf).configs(changeConfig),
              new NewTopic(config.offsetsTopic(), Optional.of(1), rf)
                  .configs(
                      Map.of(
                          TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT))));
      ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, config.changeTopic());
      KafkaFuture<Map<String, TopicDescription>> described =
          admin.describeTopics(List.of(config.changeTopic())).allTopicNames();
      KafkaFuture<Map<ConfigResource, Config>> configs =
          admin.describeConfigs(List.of(resource)).all();
      TopicDescription d =
          described.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(config.changeTopic());
      if (d.partitions().size() != 1) {
        throw new CaptureRefusedException(
            "capture of " + config.describe(),
            List.of(
                "change topic "
                    + config.changeTopic()
                    + " has "
                    + d.partitions().size()
                    + " partitions; it needs exactly 1 so that its order is total"));
      }
      Config c = configs.get(TIMEOUT_SECONDS, TimeUnit.SECONDS).get(resource);
      return new Limits(
          Long.parseLong(c.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG).value()),
          Long.parseLong(c.get(TopicConfig.SEGMENT_BYTES_CONFIG).value()),
          broker.getOrDefault(SOCKET_REQUEST_MAX_BYTES, Long.MAX_VALUE));
    } catch (ExecutionException | TimeoutException e) {
      throw new CdcException.Retriable("cannot create or describe capture topics: " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CdcException.Retriable("interrupted while creating topics", e);
    }
  }

  private static final String SEGMENT_BYTES = "log.segment.bytes";
  private static final String SOCKET_REQUEST_MAX_BYTES = "socket.request.max.bytes";

  /**
   * The smallest {@code log.segment.bytes} and {@code socket.request.max.bytes} of the brokers;
   * empty where capture's principal may not describe the cluster (then only the producer and the
   * topic are checked, and the broker refuses what it must).
   */
  private static Map<String, Long> brokerLimits(Admin admin)
      throws InterruptedException, TimeoutException, ExecutionException {
    List<ConfigResource> brokers =
        admin.describeCluster().nodes().get(TIMEOUT_SECONDS, TimeUnit.SECONDS).stream()
            .map(n -> new ConfigResource(ConfigResource.Type.BROKER, n.idString()))
            .toList();
    Map<ConfigResource, Config> configs;
    try {
      configs = admin.describeConfigs(brokers).all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof org.apache.kafka.common.errors.AuthorizationException) {
        return Map.of();
      }
      throw e;
    }
    Map<String, Long> smallest = new java.util.HashMap<>();
    for (Config c : configs.values()) {
      for (String name : List.of(SEGMENT_BYTES, SOCKET_REQUEST_MAX_BYTES)) {
        org.apache.kafka.clients.admin.ConfigEntry e = c.get(name);
        if (e != null && e.value() != null) {
          smallest.merge(name, Long.parseLong(e.value()), Math::min);
        }
      }
    }
    return smallest;
  }

  /**
   * The last position stored for {@code key} in the offsets topic, read with {@code read_committed}
   * to the topic's end (call after {@code initTransactions}, which completes any transaction a
   * previous process left open).
   */
  static Optional<CapturePosition> readPosition(CaptureConfig config, byte[] key) {
    Properties p = ChangeRecords.consumerProperties(config.bootstrapServers(), null);
    TopicPartition tp = new TopicPartition(config.offsetsTopic(), 0);
    byte[] last = null;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(TIMEOUT_SECONDS)).get(tp);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
      while (consumer.position(tp) < end) {
        if (System.nanoTime() > deadline) {
          throw new CdcException.Retriable(
              "timed out reading positions from " + config.offsetsTopic(), null);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
          if (Arrays.equals(r.key(), key)) {
            last = r.value();
          }
        }
      }
    } catch (org.apache.kafka.common.KafkaException e) {
      throw new CdcException.Retriable("cannot read " + config.offsetsTopic() + ": " + e, e);
    }
    return last == null ? Optional.empty() : Optional.of(CapturePosition.fromJson(last));
  }

  /** Creates the topics that do not exist yet; one that exists is left as it is. */
  private static void create(Admin admin, List<NewTopic> topics)
      throws InterruptedException, TimeoutException, ExecutionException {
    Map<String, KafkaFuture<Void>> created = admin.createTopics(topics).values();
    for (KafkaFuture<Void> f : created.values()) {
      try {
        f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw e;
        }
      }
    }
  }

  private static Properties adminProperties(CaptureConfig config) {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    return p;
  }
}
