package io.reshard.router;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The conventions of the shard map topic, the system of record for shard maps (DESIGN 4.2), in one
 * place.
 *
 * <p><b>Topic.</b> Default name {@value #DEFAULT_NAME}; one partition, so every reader sees every
 * version in the order it was written; {@code cleanup.policy=compact}, so nothing expires, and
 * since every version has its own key, compaction never drops a version (only a rewrite of the same
 * key). Replication follows the broker's {@code default.replication.factor}. Created by {@link
 * #create}.
 *
 * <p><b>Record.</b> Key: {@code <keyspace>/<version>}, the version in decimal zero-padded to
 * {@value #VERSION_DIGITS} digits (every positive {@code long} fits), e.g. {@code
 * commerce/0000000000000000003}; see {@link Key}. Keys therefore sort as (keyspace, version) in
 * plain string order, and a tool can list one keyspace's keys by prefix. Value: {@link
 * ShardMap#toJson()}, UTF-8. No headers. Records are written only inside a transaction of the
 * keyspace's {@link ShardMapPublisher}; readers use {@code isolation.level=read_committed}.
 *
 * <p><b>Newest wins.</b> The newest map of a keyspace is the one with the highest version, wherever
 * it lies in the topic; readers ignore a record older than what they hold.
 *
 * <p>Static methods only; thread-safe.
 */
public final class ShardMapTopic {

  /** The topic's default name. */
  public static final String DEFAULT_NAME = "reshard.shardmaps";

  /** The default prefix of a publisher's {@code transactional.id}; the keyspace follows it. */
  public static final String DEFAULT_TRANSACTIONAL_ID_PREFIX = "reshard-shardmap-";

  /** Digits of the version in a key: {@code Long.MAX_VALUE} has 19, so every version fits. */
  public static final int VERSION_DIGITS = 19;

  /**
   * Client properties that the topic's guarantees rest on, so {@link ShardMapTopicConfig} refuses
   * to override them: read_committed reads, idempotent {@code acks=all} transactional writes, the
   * fixed {@code transactional.id}, string serdes, no auto-commit, no topic auto-creation (a topic
   * created by accident would have the broker's defaults: not compacted, maybe many partitions).
   */
  public static final Set<String> FIXED_CLIENT_PROPERTIES =
      Set.of(
          AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
          ConsumerConfig.ISOLATION_LEVEL_CONFIG,
          ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
          ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
          ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG,
          ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
          ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
          ProducerConfig.TRANSACTIONAL_ID_CONFIG,
          ProducerConfig.ACKS_CONFIG,
          ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
          ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG,
          ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG);

  /**
   * Back-to-back transactions wait on this backoff (the commit's end marker, the next {@code
   * AddPartitions}); Kafka's default of 100 ms would make every publish take a few hundred ms.
   */
  static final int RETRY_BACKOFF_MILLIS = 10;

  /**
   * A publisher that dies inside a transaction holds back every read_committed reader (the last
   * stable offset cannot pass an open transaction) until the broker aborts it after this time, or
   * until the next publisher's {@code initTransactions}. A publish is one record, so 10 s is ample.
   */
  static final int TRANSACTION_TIMEOUT_MILLIS = 10_000;

  private ShardMapTopic() {}

  /**
   * The key of one version of one keyspace's map: {@code <keyspace>/<version, 19 digits>}.
   * Comparable as (keyspace, version), which is also the order of the formatted keys.
   *
   * @param keyspace a non-blank keyspace name without {@code /}
   * @param version 1 or more
   */
  public record Key(String keyspace, long version) implements Comparable<Key> {

    /**
     * @throws IllegalArgumentException if the keyspace is blank or holds {@code /}, or the version
     *     is not 1 or more
     */
    public Key {
      if (keyspace == null || keyspace.isBlank() || keyspace.indexOf('/') >= 0) {
        throw new IllegalArgumentException(
            "keyspace name '" + keyspace + "' cannot name shard map records: blank or holds '/'");
      }
      if (version < 1) {
        throw new IllegalArgumentException("shard map version " + version + " is not 1 or more");
      }
    }

    /** Returns the key of {@code map}. */
    public static Key of(ShardMap map) {
      return new Key(map.keyspace(), map.version());
    }

    /**
     * Parses a formatted key.
     *
     * @throws ShardMapException if {@code text} is not {@code <keyspace>/<19 digits>} with a
     *     version of 1 or more
     */
    public static Key parse(String text) {
      String subject = "shard map record key '" + text + "'";
      if (text == null) {
        throw new ShardMapException(subject, List.of("the record has no key"), null);
      }
      int slash = text.lastIndexOf('/');
      String digits = slash < 0 ? "" : text.substring(slash + 1);
      if (slash <= 0
          || digits.length() != VERSION_DIGITS
          || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
        throw new ShardMapException(
            subject, List.of("expected <keyspace>/<" + VERSION_DIGITS + " digits>"), null);
      }
      try {
        return new Key(text.substring(0, slash), Long.parseLong(digits));
      } catch (IllegalArgumentException e) {
        throw new ShardMapException(subject, List.of(e.getMessage()), e);
      }
    }

    /** Returns the formatted key, e.g. {@code commerce/0000000000000000003}. */
    @Override
    public String toString() {
      return keyspace + "/" + String.format("%0" + VERSION_DIGITS + "d", version);
    }

    @Override
    public int compareTo(Key other) {
      int byKeyspace = keyspace.compareTo(other.keyspace);
      return byKeyspace != 0 ? byKeyspace : Long.compare(version, other.version);
    }
  }

  /**
   * Decodes one record of the topic for a reader of {@code keyspace}. The value is parsed only if
   * the key names that keyspace.
   *
   * @param keyspace the reader's keyspace
   * @param key the record's key, may be null (then malformed)
   * @param value the record's value, may be null (a tombstone: malformed)
   * @return the map, or empty if the record belongs to another keyspace
   * @throws IllegalArgumentException ({@link ShardMapException} or {@link VSchemaException}) if the
   *     key or value is malformed, or the value's keyspace or version differs from the key's
   */
  public static Optional<ShardMap> decode(String keyspace, String key, String value) {
    Key k = Key.parse(key);
    if (!k.keyspace().equals(keyspace)) {
      return Optional.empty();
    }
    String subject = "shard map record " + key;
    if (value == null) {
      throw new ShardMapException(subject, List.of("the record has no value (a tombstone)"), null);
    }
    ShardMap map = ShardMap.fromJson(value);
    if (!Key.of(map).equals(k)) {
      throw new ShardMapException(
          subject,
          List.of(
              "its value is " + map.keyspace() + " v" + map.version() + ", not what its key says"),
          null);
    }
    return Optional.of(map);
  }

  /**
   * Creates the topic {@code name}: one partition, compacted, the broker's replication factor. If
   * it exists already, checks it has that shape. Blocking calls are bounded by the admin client's
   * {@code default.api.timeout.ms}.
   *
   * @return true if this call created it, false if it existed with the right shape
   * @throws ReshardException if it exists with another shape (more partitions, not compacted), or
   *     Kafka refused or did not answer; the message says which and what to do
   */
  public static boolean create(Admin admin, String name) {
    NewTopic topic =
        new NewTopic(name, Optional.of(1), Optional.empty())
            .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
    try {
      admin.createTopics(List.of(topic)).all().get();
      return true;
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new ReshardException(
            "cannot create shard map topic " + name + ": " + e.getCause(), e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReshardException("interrupted while creating shard map topic " + name, e);
    }
    checkShape(admin, name);
    return false;
  }

  /**
   * Refuses an existing topic {@code name} that has more than one partition or is not compacted.
   */
  private static void checkShape(Admin admin, String name) {
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, name);
    try {
      TopicDescription d = admin.describeTopics(List.of(name)).allTopicNames().get().get(name);
      Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
      ConfigEntry policy = config.get(TopicConfig.CLEANUP_POLICY_CONFIG);
      String cleanup = policy == null ? "delete" : policy.value();
      int partitions = d.partitions().size();
      if (partitions != 1 || !List.of(cleanup.split(",")).contains("compact")) {
        throw new ReshardException(
            "topic "
                + name
                + " exists with "
                + partitions
                + " partition(s) and cleanup.policy="
                + cleanup
                + ", but the shard map topic needs exactly 1 partition and cleanup.policy=compact;"
                + " delete it (if it holds no shard maps) or configure another topic name");
      }
    } catch (ExecutionException e) {
      throw new ReshardException(
          "cannot describe shard map topic " + name + ": " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReshardException("interrupted while describing shard map topic " + name, e);
    }
  }

  /** The topic's single partition. */
  public static TopicPartition partition(String topic) {
    return new TopicPartition(topic, 0);
  }

  /** The record that holds {@code map}. */
  static ProducerRecord<String, String> record(String topic, ShardMap map) {
    return new ProducerRecord<>(topic, 0, Key.of(map).toString(), map.toJson());
  }

  /** The config's timeout in ms, at most {@code Integer.MAX_VALUE} (Kafka's int timeouts). */
  private static int timeoutMillis(ShardMapTopicConfig config) {
    return (int) Math.min(Integer.MAX_VALUE, config.timeout().toMillis());
  }

  /**
   * Admin client properties: the bootstrap servers, and every call (and each request in it) bounded
   * by the config's timeout unless overridden.
   */
  static Map<String, Object> adminProperties(ShardMapTopicConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, timeoutMillis(config));
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, timeoutMillis(config));
    p.putAll(config.clientProperties());
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    return p;
  }

  /**
   * Consumer properties: read_committed from the earliest offset, no group, no auto-commit, no
   * topic auto-creation. Every blocking call of the reader passes its own timeout. For readers of
   * every keyspace at once (the daemon's status views); a router reads through {@link
   * KafkaShardMapSource}.
   */
  public static Map<String, Object> consumerProperties(ShardMapTopicConfig config) {
    Map<String, Object> p = new HashMap<>();
    p.putAll(config.clientProperties());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    p.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    return p;
  }

  /**
   * Producer properties of the publisher of {@code keyspace}: transactional with the keyspace's
   * fixed {@code transactional.id}, idempotent, {@code acks=all}; a short retry backoff and
   * transaction timeout (see their constants) and blocking calls bounded by the config's timeout,
   * unless overridden.
   */
  static Map<String, Object> producerProperties(ShardMapTopicConfig config, String keyspace) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, RETRY_BACKOFF_MILLIS);
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, TRANSACTION_TIMEOUT_MILLIS);
    // one record per transaction, inside the switch's fenced window: never wait for more
    p.put(ProducerConfig.LINGER_MS_CONFIG, 0);
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, config.timeout().toMillis());
    p.putAll(config.clientProperties());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId(keyspace));
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  /**
   * Every version of {@code keyspace}'s map in the topic, oldest first, read without a producer (so
   * reading never fences the switcher's publisher): for {@code shardmap show|history}.
   *
   * @return empty if the topic or the keyspace has no map yet
   * @throws RetriableReshardException if Kafka did not answer within the config's timeout
   */
  public static List<ShardMap> history(ShardMapTopicConfig config, String keyspace) {
    TreeMap<Long, ShardMap> versions = new TreeMap<>();
    try (Admin admin = Admin.create(adminProperties(config))) {
      boolean exists;
      try {
        exists =
            admin
                .listTopics()
                .names()
                .get(config.timeout().toMillis(), TimeUnit.MILLISECONDS)
                .contains(config.topic());
      } catch (ExecutionException | TimeoutException e) {
        throw new RetriableReshardException(
            "Kafka at " + config.bootstrapServers() + " did not list its topics: " + e, e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RetriableReshardException("interrupted while listing topics", e);
      }
      if (!exists) {
        return List.of();
      }
      try (ShardMapTopicReader reader = new ShardMapTopicReader(config, keyspace)) {
        reader.readToEnd(admin, config.timeout(), m -> versions.put(m.version(), m));
      }
    }
    return List.copyOf(versions.values());
  }
}
