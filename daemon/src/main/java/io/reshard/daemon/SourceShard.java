package io.reshard.daemon;

/**
 * One source shard the daemon captures: a keyspace's shard on one MariaDB/MySQL server. Its
 * password is a {@link Secret}, so {@link #toString()} never shows it.
 *
 * @param keyspace the keyspace
 * @param shard the shard's name, lower case ({@code -80}, {@code 40-80}, {@code c0-})
 * @param host the server's host
 * @param port the server's TCP port
 * @param user the user capture connects as
 * @param password that user's password
 * @param serverId the server id capture presents to the source
 * @param startPosition where capture starts when no position is stored
 */
public record SourceShard(
    String keyspace,
    String shard,
    String host,
    int port,
    String user,
    Secret password,
    long serverId,
    String startPosition,
    String flavor) {

  /** A shard on a MariaDB server. */
  public SourceShard(
      String keyspace,
      String shard,
      String host,
      int port,
      String user,
      Secret password,
      long serverId,
      String startPosition) {
    this(keyspace, shard, host, port, user, password, serverId, startPosition, "mariadb");
  }

  /** {@code keyspace/shard}, the name of its capture service. */
  public String id() {
    return keyspace + "/" + shard;
  }
}
