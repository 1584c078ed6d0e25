package io.reshard.router;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One HikariCP pool per shard server, for the keyspace's database on that server: opened on first
 * use, or ahead of it by {@link #warm} when a shard map names the server (so the first write after
 * a cutover does not wait for a pool to start and for its first connection). Thread-safe.
 */
final class ShardPools implements AutoCloseable {
  private final String keyspace;
  private final EndpointResolver endpoints;
  private final RouterConfig config;
  private final Map<String, HikariDataSource> pools = new ConcurrentHashMap<>();
  private volatile boolean closed;

  ShardPools(String keyspace, EndpointResolver endpoints, RouterConfig config) {
    this.keyspace = keyspace;
    this.endpoints = endpoints;
    this.config = config;
  }

  /**
   * A connection to {@code shard}'s server, in the keyspace's database, in autocommit mode.
   *
   * @throws ShardQueryException if none can be had within the connection timeout
   */
  Connection connect(Shard shard) {
    HikariDataSource pool = pools.computeIfAbsent(shard.endpoint(), this::open);
    try {
      return pool.getConnection();
    } catch (SQLException e) {
      throw new ShardQueryException(shard.name(), "connecting to " + shard.endpoint(), e);
    }
  }

  /**
   * Opens the pool of every server of {@code map} that has none yet. A pool starts without blocking
   * and fills its minimum of idle connections in the background. Does nothing once closed.
   */
  void warm(ShardMap map) {
    for (Shard shard : map.shards()) {
      if (closed) {
        return;
      }
      try {
        pools.computeIfAbsent(shard.endpoint(), this::open);
      } catch (RuntimeException e) {
        // an endpoint that cannot be resolved or pooled fails its own queries, as before
      }
    }
  }

  private HikariDataSource open(String endpointRef) {
    JdbcEndpoint e = endpoints.resolve(endpointRef);
    HikariConfig hc = new HikariConfig();
    hc.setPoolName("reshard-" + keyspace + "-" + endpointRef);
    hc.setJdbcUrl(e.urlFor(keyspace));
    hc.setUsername(e.user());
    hc.setPassword(e.password());
    hc.setMaximumPoolSize(config.poolSizePerShard());
    hc.setMinimumIdle(1);
    hc.setConnectionTimeout(config.connectionTimeout().toMillis());
    hc.setInitializationFailTimeout(
        -1); // a shard that is down fails its own queries, not the router
    return new HikariDataSource(hc);
  }

  @Override
  public void close() {
    closed = true;
    pools.values().forEach(HikariDataSource::close);
    pools.clear();
  }
}
