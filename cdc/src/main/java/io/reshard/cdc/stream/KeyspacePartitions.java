package io.reshard.cdc.stream;

import io.reshard.router.KeyspaceId;

/**
 * The keyspace topic's partition of a keyspace id: {@code floor(P * k / 2^32)}, where {@code k} is
 * the keyspace id's first four bytes as an unsigned number (missing bytes are zero) and {@code P}
 * the partition count. Partition {@code i} thus holds the key range {@code [i/P, (i+1)/P)}: with
 * the default 16 partitions, partition 0 holds {@code -10}, partition 15 holds {@code f0-}. A row
 * keeps its partition whatever the keyspace's shards become. Immutable.
 */
public final class KeyspacePartitions {
  private final int count;

  /**
   * @param count the topic's partition count, at least 1
   */
  public KeyspacePartitions(int count) {
    if (count < 1) {
      throw new IllegalArgumentException("a keyspace topic needs at least one partition: " + count);
    }
    this.count = count;
  }

  /** The partition count. */
  public int count() {
    return count;
  }

  /** The partition of {@code ksid}. */
  public int of(KeyspaceId ksid) {
    byte[] b = ksid.bytes();
    long k = 0;
    for (int i = 0; i < 4; i++) {
      k = (k << 8) | (i < b.length ? b[i] & 0xff : 0);
    }
    return (int) ((k * count) >>> 32);
  }
}
