package io.reshard.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One MySQL 8.0.31 server of a local cluster, run from the {@link MySqlDistribution}: its {@code
 * my.cnf}, datadir initialisation with {@code mysqld --initialize-insecure}, start, readiness and
 * stop.
 *
 * <p>Files live under {@code DIR/mysql/NAME/}: {@code my.cnf}, {@code init.sql}, {@code data/}
 * (datadir and binlogs {@code mysql-bin.NNNNNN}), {@code tmp/}, {@code error.log}, {@code
 * mysqld.pid}, {@code mysqld.out}. Not thread-safe; each instance is used by one thread at a time.
 */
final class MySqlServer implements DatabaseServer {

  private final ClusterDescriptor.Server server;
  private final Path home;

  MySqlServer(Path clusterDir, ClusterDescriptor.Server server) {
    this.server = server;
    this.home = homeOf(clusterDir, server.name());
  }

  /** The directory of MySQL server {@code name} inside a cluster directory. */
  static Path homeOf(Path clusterDir, String name) {
    return DatabaseServer.homeOf(clusterDir, Flavor.MYSQL, name);
  }

  /** The socket path of MySQL server {@code name} (shortened like a MariaDB server's). */
  static String socketPath(Path clusterDir, String name) {
    return MariaDbServer.socketPath(
        clusterDir, name, homeOf(clusterDir, name).resolve("mysqld.sock"));
  }

  @Override
  public ClusterDescriptor.Server descriptor() {
    return server;
  }

  /** The text that identifies this server's process in {@code /proc/PID/cmdline}. */
  String marker() {
    return configFile().toString();
  }

  Path configFile() {
    return home.resolve("my.cnf");
  }

  Path dataDir() {
    return home.resolve("data");
  }

  Path errorLog() {
    return home.resolve("error.log");
  }

  @Override
  public boolean isInitialised() {
    return Files.isDirectory(dataDir().resolve("mysql"));
  }

  /**
   * Writes {@code my.cnf} with what a capture source needs: GTIDs on ({@code gtid_mode = ON},
   * {@code enforce_gtid_consistency = ON}), a row-based binlog with full images and full metadata,
   * a unique {@code server_id} (the server's uuid is drawn at initialisation), no X Protocol
   * listener, and the MariaDB servers' small footprint and relaxed durability ({@code
   * innodb_flush_log_at_trx_commit = 2}, {@code sync_binlog = 0}, no doublewrite: local development
   * only, not safe against a power loss). The charset and collation are MySQL 8's defaults ({@code
   * utf8mb4}, {@code utf8mb4_0900_ai_ci}), as a MySQL user has them.
   */
  @Override
  public void writeConfig() throws IOException {
    Files.createDirectories(home.resolve("tmp"));
    Files.createDirectories(Path.of(server.socket()).getParent());
    String cnf =
        """
        [mysqld]
        user                           = root
        basedir                        = %1$s
        bind-address                   = %2$s
        port                           = %3$d
        socket                         = %4$s
        pid-file                       = %5$s
        datadir                        = %6$s
        tmpdir                         = %7$s
        log-error                      = %8$s
        skip-name-resolve
        mysqlx                         = OFF
        # replication and change capture
        server_id                      = %9$d
        log_bin                        = mysql-bin
        gtid_mode                      = ON
        enforce_gtid_consistency       = ON
        binlog_format                  = ROW
        binlog_row_image               = FULL
        binlog_row_metadata            = FULL
        binlog_checksum                = CRC32
        log_replica_updates            = ON
        binlog_expire_logs_seconds     = 86400
        max_binlog_size                = 256M
        # small footprint; durability relaxed for local development only
        innodb_buffer_pool_size        = 64M
        innodb_redo_log_capacity       = 32M
        innodb_log_buffer_size         = 8M
        innodb_flush_log_at_trx_commit = 2
        innodb_flush_method            = O_DIRECT
        innodb_doublewrite             = OFF
        sync_binlog                    = 0
        key_buffer_size                = 4M
        performance_schema             = OFF
        max_connections                = 200
        thread_cache_size              = 8
        table_open_cache               = 400
        """
            .formatted(
                MySqlDistribution.home(),
                server.host(),
                server.port(),
                server.socket(),
                home.resolve("mysqld.pid"),
                dataDir(),
                home.resolve("tmp"),
                errorLog(),
                server.serverId());
    Files.writeString(configFile(), cnf);
  }

  /**
   * Creates an empty datadir with {@code mysqld --initialize-insecure}, whose init file adds {@code
   * root@127.0.0.1} (with {@code skip-name-resolve} a TCP client from 127.0.0.1 is not {@code
   * root@localhost}) with an empty {@code caching_sha2_password}, outside the binlog, so the first
   * user transaction is the server uuid's number 1.
   *
   * @throws ClusterException with the server's output if it fails
   */
  @Override
  public void initialise() throws IOException, InterruptedException {
    Path init = home.resolve("init.sql");
    // mysqld runs an init file one statement per line
    Files.writeString(
        init,
        """
        SET SESSION sql_log_bin = 0;
        CREATE USER 'root'@'127.0.0.1' IDENTIFIED WITH caching_sha2_password BY '';
        GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
        """);
    Path log = home.resolve("initialize.log");
    Files.deleteIfExists(log);
    Process p =
        OsProcesses.launch(
            List.of(
                MySqlDistribution.mysqld(MySqlDistribution.home()).toString(),
                "--defaults-file=" + configFile(), // must be the first option
                "--initialize-insecure",
                "--init-file=" + init),
            home,
            log);
    if (!p.waitFor(180, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new ClusterException(
          ClusterException.Kind.START_FAILED,
          "mysqld --initialize-insecure failed for "
              + server.name()
              + " (datadir "
              + dataDir()
              + "); the disk may be full. Last lines of "
              + errorLog()
              + ":\n"
              + OsProcesses.tail(errorLog(), 20));
    }
  }

  @Override
  public long start() {
    Process p =
        OsProcesses.launch(
            List.of(
                MySqlDistribution.mysqld(MySqlDistribution.home()).toString(),
                "--defaults-file=" + configFile()),
            home,
            home.resolve("mysqld.out"));
    return DatabaseServer.awaitReady(p, server, "mysqld", errorLog());
  }

  @Override
  public boolean isRunning() {
    return OsProcesses.isOurs(server.pid(), marker());
  }

  @Override
  public String stop() {
    return OsProcesses.stop(server.pid(), marker(), STOP_GRACE).describe(STOP_GRACE);
  }
}
