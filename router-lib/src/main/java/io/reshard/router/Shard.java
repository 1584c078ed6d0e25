package io.reshard.router;

import java.util.Objects;

/**
 * One shard of a {@link ShardMap}: its key range (its name), its server, its epoch, and whether it
 * serves reads and writes.
 *
 * <p>The epoch is the map version at which the shard's write ownership last changed (DESIGN 1,
 * 4.2): a router's write on this shard carries it, and the shard's fence row must hold the same
 * value for the write to proceed (DESIGN 4.3).
 *
 * <p>Immutable and thread-safe.
 *
 * @param range the shard's key range, which is also its name
 * @param endpoint a reference to the shard's server, resolved elsewhere (e.g. {@code shard-0})
 * @param epoch the map version at which its write ownership last changed; 1 or more
 * @param servesReads whether the shard is in the read partition
 * @param servesWrites whether the shard is in the write partition
 */
public record Shard(
    KeyRange range, String endpoint, long epoch, boolean servesReads, boolean servesWrites) {

  /** Checks that no component is null. */
  public Shard {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(endpoint, "endpoint");
  }

  /** Returns the shard name, e.g. {@code 40-80}. */
  public String name() {
    return range.name();
  }

  /** Returns this shard without its epoch. */
  public ShardAssignment assignment() {
    return new ShardAssignment(range, endpoint, servesReads, servesWrites);
  }
}
