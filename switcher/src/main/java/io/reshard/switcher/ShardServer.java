package io.reshard.switcher;

import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;

/**
 * One shard of a workflow and the server that holds it (DESIGN 2: one keyspace shard per server).
 *
 * @param shard the shard's name, e.g. {@code c0-e0}
 * @param endpointRef the shard map's reference to the server, e.g. {@code db5}
 * @param host the server's host, for binlog capture
 * @param port the server's port
 * @param user a user with the rights capture, copy, apply and the switch need (on MariaDB 10.11 the
 *     reverse-replication user needs {@code READ_ONLY ADMIN})
 * @param password its password (never logged)
 * @param captureServerId the server id capture presents to this server's binlog
 * @param flavor the server's flavor, which picks the JDBC driver and how positions are read; null
 *     (a workflow recorded before flavors) is MariaDB
 */
public record ShardServer(
    String shard,
    String endpointRef,
    String host,
    int port,
    String user,
    String password,
    long captureServerId,
    GtidPosition.Flavor flavor) {

  /** A shard on a MariaDB server. */
  public ShardServer(
      String shard,
      String endpointRef,
      String host,
      int port,
      String user,
      String password,
      long captureServerId) {
    this(
        shard,
        endpointRef,
        host,
        port,
        user,
        password,
        captureServerId,
        GtidPosition.Flavor.MARIADB);
  }

  /** The server's flavor; MariaDB when none was recorded. */
  public GtidPosition.Flavor flavorOrDefault() {
    return flavor == null ? GtidPosition.Flavor.MARIADB : flavor;
  }

  /** The shard's key range. */
  public KeyRange range() {
    return KeyRange.parse(shard);
  }

  /** The server as a JDBC endpoint (no database). */
  public JdbcEndpoint endpoint() {
    return new JdbcEndpoint(
        ServerPositions.jdbcUrl(flavorOrDefault(), host, port, ""), user, password);
  }

  @Override
  public String toString() {
    return "ShardServer["
        + shard
        + " on "
        + endpointRef
        + " "
        + host
        + ":"
        + port
        + ", user="
        + user
        + ", "
        + flavorOrDefault().name().toLowerCase(java.util.Locale.ROOT)
        + "]";
  }
}
