package io.reshard.core.placement;

import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import java.util.Objects;

/**
 * One target shard of a workflow: the key range it will own and the server that holds it.
 *
 * <p>Immutable and thread-safe.
 *
 * @param range the target's key range, e.g. {@code c0-e0}
 * @param endpoint its server; the keyspace's database name is appended
 */
public record TargetShard(KeyRange range, JdbcEndpoint endpoint) {

  /** Checks that nothing is null. */
  public TargetShard {
    Objects.requireNonNull(range, "range");
    Objects.requireNonNull(endpoint, "endpoint");
  }

  /** The target's shard name, e.g. {@code c0-e0}. */
  public String name() {
    return range.name();
  }
}
