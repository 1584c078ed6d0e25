package io.reshard.router;

/**
 * A {@link ShardMapPublisher} refused a map whose version is not the successor of the newest
 * version in the shard map topic: a duplicate or older version (someone published meanwhile, or the
 * map was built from a stale version), or a gap. Versions never fork and never skip. Nothing was
 * written. The caller must rebuild the map from the newest version and decide again; retrying the
 * same map can never succeed.
 */
public class ShardMapConflictException extends ReshardException {
  private static final long serialVersionUID = 1L;

  private final String keyspace;
  private final long newestVersion;
  private final long offeredVersion;

  /**
   * @param keyspace the keyspace
   * @param topic the shard map topic
   * @param newestVersion the newest version in the topic, 0 if it holds none of this keyspace
   * @param offeredVersion the version that was refused
   */
  public ShardMapConflictException(
      String keyspace, String topic, long newestVersion, long offeredVersion) {
    super(describe(keyspace, topic, newestVersion, offeredVersion));
    this.keyspace = keyspace;
    this.newestVersion = newestVersion;
    this.offeredVersion = offeredVersion;
  }

  private static String describe(String keyspace, String topic, long newest, long offered) {
    String found =
        newest == 0
            ? "topic " + topic + " holds no shard map of " + keyspace + " yet"
            : "the newest in topic " + topic + " is v" + newest;
    String problem =
        offered <= newest ? "v" + offered + " already exists" : "v" + offered + " would skip";
    return "refused to publish shard map "
        + keyspace
        + " v"
        + offered
        + ": expected v"
        + (newest + 1)
        + " because "
        + found
        + ", and "
        + problem
        + "; nothing was written. Build the next map from the newest version (another switcher"
        + " may have published meanwhile) and publish again";
  }

  /** The keyspace. */
  public String keyspace() {
    return keyspace;
  }

  /** The newest version in the topic, 0 if it holds none of this keyspace. */
  public long newestVersion() {
    return newestVersion;
  }

  /** The only version that would have been accepted: {@code newestVersion() + 1}. */
  public long expectedVersion() {
    return newestVersion + 1;
  }

  /** The version that was refused. */
  public long offeredVersion() {
    return offeredVersion;
  }
}
