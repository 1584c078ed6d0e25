package io.reshard.router;

/**
 * No shard map of a keyspace exists where one was expected: the shard map topic does not exist, or
 * holds no committed map of that keyspace. Usually the keyspace has not been initialised ({@code
 * reshard keyspace init}), or the keyspace or topic name is wrong. Nothing was changed.
 */
public class ShardMapNotFoundException extends ReshardException {
  private static final long serialVersionUID = 1L;

  private final String keyspace;
  private final String topic;

  /**
   * @param keyspace the keyspace looked for
   * @param topic the shard map topic read
   * @param message what was found and what to do
   */
  public ShardMapNotFoundException(String keyspace, String topic, String message) {
    super(message);
    this.keyspace = keyspace;
    this.topic = topic;
  }

  /** The keyspace looked for. */
  public String keyspace() {
    return keyspace;
  }

  /** The shard map topic read. */
  public String topic() {
    return topic;
  }
}
