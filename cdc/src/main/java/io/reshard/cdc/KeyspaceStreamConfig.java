package io.reshard.cdc;

import java.time.Duration;
import java.util.Objects;

/**
 * Where the keyspace change stream (DESIGN 4.10, docs/keyspace-stream.md) reads and writes.
 *
 * @param bootstrap the Kafka bootstrap servers
 * @param topicPrefix the change topic prefix: it reads {@code <prefix>.<keyspace>.<shard>}
 * @param keyspace the keyspace
 * @param topic the keyspace topic it writes; {@code <prefix>.<keyspace>} by default
 * @param partitions the keyspace topic's partition count when the stream creates it (an existing
 *     topic keeps its own: a row's partition must never change)
 * @param replicationFactor the keyspace topic's replication factor when created; -1 for the
 *     broker's default
 * @param pollTimeout the longest wait for new change records
 * @param format the records' form: the shard topics' envelope, or Kafka Connect's JSON with schemas
 */
public record KeyspaceStreamConfig(
    String bootstrap,
    String topicPrefix,
    String keyspace,
    String topic,
    int partitions,
    short replicationFactor,
    Duration pollTimeout,
    Format format) {

  /** The form of the keyspace topic's records. */
  public enum Format {
    /** As the shard topics: the Debezium envelope, the table's schema in a header. */
    ENVELOPE,
    /**
     * Kafka Connect's JSON with schemas ({@code JsonConverter}, {@code schemas.enable=true}): key
     * and value {@code {"schema", "payload"}}, Debezium's envelope and schema names, so a stock
     * sink (Debezium's JDBC sink) reads it; no schema header.
     */
    CONNECT_JSON;

    /** The form named {@code envelope} or {@code connect-json}. */
    public static Format parse(String text) {
      return switch (text) {
        case "envelope" -> ENVELOPE;
        case "connect-json" -> CONNECT_JSON;
        default ->
            throw new IllegalArgumentException(
                "keyspace stream format '" + text + "' is not envelope or connect-json");
      };
    }
  }

  /** The default partition count of a keyspace topic. */
  public static final int DEFAULT_PARTITIONS = 16;

  /** Checks the fields. */
  public KeyspaceStreamConfig {
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(pollTimeout, "pollTimeout");
    format = format == null ? Format.ENVELOPE : format;
    if (topic == null || topic.isBlank()) {
      topic = defaultTopic(topicPrefix, keyspace);
    }
    if (partitions < 1) {
      throw new IllegalArgumentException(
          "keyspace stream partitions must be at least 1, not " + partitions);
    }
  }

  /**
   * The defaults: topic {@code <prefix>.<keyspace>}, 16 partitions, 200 ms polls, the envelope
   * form.
   */
  public static KeyspaceStreamConfig of(String bootstrap, String topicPrefix, String keyspace) {
    return new KeyspaceStreamConfig(
        bootstrap,
        topicPrefix,
        keyspace,
        null,
        DEFAULT_PARTITIONS,
        (short) -1,
        Duration.ofMillis(200),
        Format.ENVELOPE);
  }

  /** The keyspace topic's default name, {@code <prefix>.<keyspace>}. */
  public static String defaultTopic(String topicPrefix, String keyspace) {
    return topicPrefix + "." + keyspace;
  }

  /** The Kafka transactional id and consumer group of the keyspace's one stream. */
  public String transactionalId() {
    return "reshard-keyspace-stream." + topic;
  }
}
