package io.reshard.router;

import java.util.Objects;

/**
 * What a shard map version says about one shard, apart from its epoch: the range it holds, where it
 * is, and whether it serves reads and writes. The input of {@link ShardMap#first} and {@link
 * ShardMap#next}, which assign the epochs.
 *
 * <p>Immutable and thread-safe.
 *
 * @param range the shard's key range, which is also its name
 * @param endpoint a reference to the shard's server, resolved elsewhere (e.g. {@code shard-0})
 * @param servesReads whether the shard is in the read partition
 * @param servesWrites whether the shard is in the write partition
 */
public record ShardAssignment(
    KeyRange range, String endpoint, boolean servesReads, boolean servesWrites) {

  /** Checks that no component is null. */
  public ShardAssignment {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(endpoint, "endpoint");
  }
}
