package io.reshard.router;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * How to reach the shard map topic (DESIGN 4.2), shared by {@link KafkaShardMapSource} and {@link
 * ShardMapPublisher}. Immutable; built with {@link #builder()}, which validates every value and
 * reports all problems at once.
 *
 * @param bootstrapServers the Kafka {@code bootstrap.servers} value, e.g. {@code
 *     host1:9092,host2:9092}; required
 * @param topic the shard map topic; default {@link ShardMapTopic#DEFAULT_NAME}
 * @param transactionalIdPrefix the publisher's {@code transactional.id} is this prefix followed by
 *     the keyspace; default {@link ShardMapTopic#DEFAULT_TRANSACTIONAL_ID_PREFIX}. Every publisher
 *     of one keyspace must use the same prefix, or they do not fence each other
 * @param timeout the bound of each blocking step: reading the topic to its end, {@code
 *     initTransactions}, a commit; default 30 s
 * @param clientProperties extra Kafka client properties given to every consumer, producer and admin
 *     client (security settings, for instance); default none. The settings that make the topic safe
 *     ({@link ShardMapTopic#FIXED_CLIENT_PROPERTIES}) cannot be overridden
 */
public record ShardMapTopicConfig(
    String bootstrapServers,
    String topic,
    String transactionalIdPrefix,
    Duration timeout,
    Map<String, String> clientProperties) {

  /** Kafka's legal topic names (its {@code Topic.validate}): these characters, 1 to 249 of them. */
  private static final Pattern TOPIC_NAME = Pattern.compile("[a-zA-Z0-9._-]{1,249}");

  /**
   * Validates every value.
   *
   * @throws IllegalArgumentException listing every invalid value
   */
  public ShardMapTopicConfig {
    List<String> problems = new ArrayList<>();
    if (bootstrapServers == null || bootstrapServers.isBlank()) {
      problems.add("bootstrapServers is required");
    }
    if (topic == null
        || !TOPIC_NAME.matcher(topic).matches()
        || topic.equals(".")
        || topic.equals("..")) {
      problems.add(
          "topic '" + topic + "' is not a legal Kafka topic name ([a-zA-Z0-9._-], 1 to 249)");
    }
    if (transactionalIdPrefix == null || transactionalIdPrefix.isBlank()) {
      problems.add("transactionalIdPrefix must not be blank");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      problems.add("timeout must be positive, not " + timeout);
    }
    clientProperties = clientProperties == null ? Map.of() : Map.copyOf(clientProperties);
    for (String key : new TreeSet<>(clientProperties.keySet())) {
      if (ShardMapTopic.FIXED_CLIENT_PROPERTIES.contains(key)) {
        problems.add("client property " + key + " is fixed by the shard map topic's contract");
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "invalid shard map topic config: " + String.join("; ", problems));
    }
  }

  /**
   * Returns the {@code transactional.id} of the publisher of {@code keyspace}: the prefix followed
   * by the keyspace, e.g. {@code reshard-shardmap-commerce}. Fixed per keyspace, so a newer
   * publisher fences an older one.
   */
  public String transactionalId(String keyspace) {
    return transactionalIdPrefix + keyspace;
  }

  /** A builder starting from the defaults; {@code bootstrapServers} must still be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** The defaults with these bootstrap servers. */
  public static ShardMapTopicConfig of(String bootstrapServers) {
    return builder().bootstrapServers(bootstrapServers).build();
  }

  /** Builds a {@link ShardMapTopicConfig}; not thread-safe. */
  public static final class Builder {
    private String bootstrapServers;
    private String topic = ShardMapTopic.DEFAULT_NAME;
    private String transactionalIdPrefix = ShardMapTopic.DEFAULT_TRANSACTIONAL_ID_PREFIX;
    private Duration timeout = Duration.ofSeconds(30);
    private final Map<String, String> clientProperties = new LinkedHashMap<>();

    private Builder() {}

    /** Sets the Kafka {@code bootstrap.servers} value. */
    public Builder bootstrapServers(String v) {
      bootstrapServers = v;
      return this;
    }

    /** Sets the shard map topic's name. */
    public Builder topic(String v) {
      topic = v;
      return this;
    }

    /** Sets the prefix of the publisher's {@code transactional.id}. */
    public Builder transactionalIdPrefix(String v) {
      transactionalIdPrefix = v;
      return this;
    }

    /** Sets the bound of each blocking step. */
    public Builder timeout(Duration v) {
      timeout = v;
      return this;
    }

    /** Adds one Kafka client property given to every client. */
    public Builder clientProperty(String key, String value) {
      clientProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, key));
      return this;
    }

    /**
     * Validates and builds.
     *
     * @throws IllegalArgumentException listing every invalid value
     */
    public ShardMapTopicConfig build() {
      return new ShardMapTopicConfig(
          bootstrapServers, topic, transactionalIdPrefix, timeout, clientProperties);
    }
  }
}
