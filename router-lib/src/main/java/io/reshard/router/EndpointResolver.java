package io.reshard.router;

import java.util.Map;

/**
 * Resolves a shard map's endpoint reference (e.g. {@code db3}) to a {@link JdbcEndpoint}. Must be
 * thread-safe.
 */
@FunctionalInterface
public interface EndpointResolver {

  /**
   * @param endpoint the reference from the shard map
   * @return where that server is
   * @throws ReshardException if the reference is unknown
   */
  JdbcEndpoint resolve(String endpoint);

  /** A resolver backed by a fixed map. */
  static EndpointResolver of(Map<String, JdbcEndpoint> endpoints) {
    Map<String, JdbcEndpoint> copy = Map.copyOf(endpoints);
    return ref -> {
      JdbcEndpoint e = copy.get(ref);
      if (e == null) {
        throw new ReshardException(
            "unknown endpoint '" + ref + "' in the shard map; known: " + copy.keySet());
      }
      return e;
    };
  }
}
