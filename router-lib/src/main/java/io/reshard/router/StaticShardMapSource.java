package io.reshard.router;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A shard map source for tests and small setups: a map read from a JSON file once, or given in
 * code, and newer versions handed to {@link #publish} (an in-memory stand-in for the shard map
 * topic). Thread-safe.
 */
public final class StaticShardMapSource extends ShardMapHolder {

  private StaticShardMapSource(ShardMap first) {
    super(first.keyspace());
    offer(first);
  }

  /** A source holding {@code map}. */
  public static StaticShardMapSource of(ShardMap map) {
    return new StaticShardMapSource(map);
  }

  /**
   * A source holding the map in a JSON file.
   *
   * @throws ShardMapException if the file is not a valid shard map
   * @throws ReshardException if it cannot be read
   */
  public static StaticShardMapSource fromFile(Path file) {
    try {
      return new StaticShardMapSource(
          ShardMap.fromJson(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw new ReshardException("cannot read shard map file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Makes {@code map} current if it is newer than the current one.
   *
   * @return true if it became current
   */
  public boolean publish(ShardMap map) {
    return offer(map);
  }
}
