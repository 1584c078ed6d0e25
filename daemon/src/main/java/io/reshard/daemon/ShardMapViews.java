package io.reshard.daemon;

import io.reshard.router.ReshardException;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;

/**
 * The newest shard map of every keyspace, as {@code GET /keyspaces} shows it: one read_committed
 * consumer of the shard map topic, read on from where it was at every request (at most {@link
 * #READ_WAIT}), keeping each keyspace's newest version. The keyspaces of the daemon's configured
 * shards and of its workflows are listed even before they have a map, saying so. When the topic
 * cannot be read, the maps read before stay, marked stale, with the reason. Thread-safe.
 */
final class ShardMapViews implements AutoCloseable {
  /** How long one request may read the topic. */
  static final Duration READ_WAIT = Duration.ofSeconds(2);

  private final DaemonConfig config;
  private final WorkflowStore workflows;
  private final Map<String, ShardMap> newest = new TreeMap<>();
  private KafkaConsumer<String, String> consumer;
  private TopicPartition partition;

  ShardMapViews(DaemonConfig config, WorkflowStore workflows) {
    this.config = config;
    this.workflows = workflows;
  }

  /**
   * {@code [{keyspace, version, shards: [{name, server, epoch, reads, writes}]}]} sorted by
   * keyspace; {@code {keyspace, error}} for a keyspace without a map; {@code stale} and {@code
   * error} on every map while the topic cannot be read.
   */
  synchronized List<Map<String, Object>> views() {
    String readError = readOn();
    SortedSet<String> names = new TreeSet<>(newest.keySet());
    config.shards().forEach(s -> names.add(s.keyspace()));
    if (readError == null) { // else Kafka is away, and reading the workflows would wait on it too
      try {
        workflows.list().stream().map(Workflow::keyspace).forEach(names::add);
      } catch (ReshardException e) {
        // /workflows says why; the keyspaces known so far are shown
      }
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (String keyspace : names) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("keyspace", keyspace);
      ShardMap m = newest.get(keyspace);
      if (m != null) {
        v.put("version", m.version());
        v.put("shards", m.shards().stream().map(ShardMapViews::shard).toList());
      }
      if (readError != null) {
        v.put("stale", m != null);
        v.put("error", readError);
      } else if (m == null) {
        v.put("error", "no shard map yet: run `reshard keyspace init` for it");
      }
      out.add(v);
    }
    return out;
  }

  /** Reads the topic on to its end; the reason it could not, or null. */
  private String readOn() {
    long deadline = System.nanoTime() + READ_WAIT.toNanos();
    try {
      if (consumer == null) {
        ShardMapTopicConfig c =
            ShardMapTopicConfig.builder()
                .bootstrapServers(config.bootstrapServers())
                .topic(config.shardmapsTopic())
                .build();
        consumer = new KafkaConsumer<>(ShardMapTopic.consumerProperties(c));
        partition = ShardMapTopic.partition(config.shardmapsTopic());
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
      }
      long end = consumer.endOffsets(List.of(partition), READ_WAIT).get(partition);
      while (consumer.position(partition, READ_WAIT) < end) {
        if (System.nanoTime() > deadline) {
          return "the shard map topic " + config.shardmapsTopic() + " is still being read";
        }
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          keep(r);
        }
      }
      return null;
    } catch (KafkaException e) {
      return "cannot read the shard map topic "
          + config.shardmapsTopic()
          + " ("
          + e.getMessage()
          + "): is Kafka up at "
          + config.bootstrapServers()
          + "?";
    }
  }

  private void keep(ConsumerRecord<String, String> r) {
    try {
      String keyspace = ShardMapTopic.Key.parse(r.key()).keyspace();
      ShardMapTopic.decode(keyspace, r.key(), r.value())
          .filter(
              m -> !newest.containsKey(keyspace) || newest.get(keyspace).version() < m.version())
          .ifPresent(m -> newest.put(keyspace, m));
    } catch (IllegalArgumentException malformed) {
      // routers skip it too (KafkaShardMapSource); the page shows the newest well-formed map
    }
  }

  private static Map<String, Object> shard(Shard s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.name());
    m.put("server", s.endpoint());
    m.put("epoch", s.epoch());
    m.put("reads", s.servesReads());
    m.put("writes", s.servesWrites());
    return m;
  }

  @Override
  public synchronized void close() {
    if (consumer != null) {
      consumer.close(Duration.ofSeconds(1));
    }
  }
}
