package io.reshard.router;

import java.util.List;

/**
 * A shard map document is not valid: not JSON or not shaped as a shard map, a missing or out of
 * range field, a duplicate shard, or read or write shards that do not partition the keyspace. The
 * message names the keyspace and version (when known) and lists every problem, each naming the
 * shard, gap or overlap concerned. A map that fails validation is never published nor used.
 */
public class ShardMapException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final transient List<String> problems;

  /**
   * @param subject the map concerned, e.g. {@code shard map commerce v3}
   * @param problems one or more problems
   * @param cause the parse failure, or {@code null}
   */
  public ShardMapException(String subject, List<String> problems, Throwable cause) {
    super("invalid " + subject + ": " + String.join("; ", problems), cause);
    this.problems = List.copyOf(problems);
  }

  /** Returns every problem found. */
  public List<String> problems() {
    return problems;
  }
}
