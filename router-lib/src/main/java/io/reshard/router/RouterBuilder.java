package io.reshard.router;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Builds a {@link Router}; not thread-safe. */
public final class RouterBuilder {
  private final ShardMapSource maps;
  private final EndpointResolver endpoints;
  private RouterConfig config = RouterConfig.defaults();
  private MeterRegistry registry = new SimpleMeterRegistry();
  private final List<ShardMapSource> sequenceKeyspaces = new ArrayList<>();

  RouterBuilder(ShardMapSource maps, EndpointResolver endpoints) {
    this.maps = Objects.requireNonNull(maps, "maps");
    this.endpoints = Objects.requireNonNull(endpoints, "endpoints");
  }

  /** How the router behaves; {@link RouterConfig#defaults()} if not set. */
  public RouterBuilder config(RouterConfig v) {
    config = Objects.requireNonNull(v, "config");
    return this;
  }

  /** Where the router's meters go; a private {@code SimpleMeterRegistry} if not set. */
  public RouterBuilder meterRegistry(MeterRegistry v) {
    registry = Objects.requireNonNull(v, "registry");
    return this;
  }

  /**
   * An unsharded keyspace that holds sequence tables ({@link Sequence}) the vschema's {@code
   * auto_increment}s name: its shard map (one shard, {@code -}) from a file or the shard map topic,
   * like the keyspace's own. The router connects to the keyspace's database on that shard's server.
   * Call once per sequence keyspace.
   */
  public RouterBuilder sequenceKeyspace(ShardMapSource v) {
    sequenceKeyspaces.add(Objects.requireNonNull(v, "sequence keyspace"));
    return this;
  }

  /**
   * @throws ReshardException if a source has no map yet
   * @throws IllegalArgumentException if a sequence keyspace was given twice
   */
  public Router build() {
    return new Router(maps, endpoints, config, registry, List.copyOf(sequenceKeyspaces));
  }
}
