package io.reshard.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * One MariaDB server of a local cluster: its configuration file, datadir initialisation with {@code
 * mariadb-install-db}, start, readiness, and stop.
 *
 * <p>Files live under {@code DIR/mariadb/NAME/}: {@code my.cnf}, {@code data/} (datadir and
 * binlogs), {@code tmp/}, {@code error.log}, {@code mariadbd.pid}, {@code mariadbd.out}. Not
 * thread-safe; each instance is used by one thread at a time.
 */
final class MariaDbServer implements DatabaseServer {

  /** The longest unix socket path Linux accepts is 107 bytes; keep a margin. */
  private static final int MAX_SOCKET_PATH = 100;

  private final ClusterDescriptor.Server server;
  private final Path home;
  private final Path mariadbd;
  private final Path installDb;

  /** For status and stop only: no programs. */
  MariaDbServer(Path clusterDir, ClusterDescriptor.Server server) {
    this(clusterDir, server, null, null);
  }

  /** With the programs that {@link #initialise} and {@link #start} run. */
  MariaDbServer(Path clusterDir, ClusterDescriptor.Server server, Path mariadbd, Path installDb) {
    this.server = server;
    this.home = homeOf(clusterDir, server.name());
    this.mariadbd = mariadbd;
    this.installDb = installDb;
  }

  /** The directory of MariaDB server {@code name} inside a cluster directory. */
  static Path homeOf(Path clusterDir, String name) {
    return DatabaseServer.homeOf(clusterDir, Flavor.MARIADB, name);
  }

  /** The socket path of MariaDB server {@code name} ({@link #socketPath(Path, String, Path)}). */
  static String socketPath(Path clusterDir, String name) {
    return socketPath(clusterDir, name, homeOf(clusterDir, name).resolve("mariadbd.sock"));
  }

  /**
   * The socket path for server {@code name}: {@code inHome} when short enough, else under {@code
   * /tmp/reshard-HASH/}, where HASH is derived from the cluster directory.
   */
  static String socketPath(Path clusterDir, String name, Path inHome) {
    if (inHome.toString().length() <= MAX_SOCKET_PATH) {
      return inHome.toString();
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256")
              .digest(clusterDir.toString().getBytes(StandardCharsets.UTF_8));
      String hash = HexFormat.of().formatHex(digest, 0, 6);
      return Path.of("/tmp", "reshard-" + hash, name + ".sock").toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always present", e);
    }
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
   * Writes {@code my.cnf}: row-based binlog with full images and full metadata, GTID domain =
   * server id, and a small footprint for a 2-core machine. The durability settings ({@code
   * innodb_flush_log_at_trx_commit=2}, {@code sync_binlog=0}, no doublewrite) are for local
   * development only and are not crash-safe against a power loss.
   */
  @Override
  public void writeConfig() throws IOException {
    Files.createDirectories(home.resolve("tmp"));
    Files.createDirectories(Path.of(server.socket()).getParent());
    String cnf =
        """
        [mariadbd]
        user                           = root
        bind-address                   = %1$s
        port                           = %2$d
        socket                         = %3$s
        pid-file                       = %4$s
        datadir                        = %5$s
        tmpdir                         = %6$s
        log-error                      = %7$s
        skip-name-resolve
        # the compiled-in default charset is latin1
        character-set-server           = utf8mb4
        collation-server               = utf8mb4_general_ci
        # replication and change capture
        server_id                      = %8$d
        gtid_domain_id                 = %8$d
        log_bin                        = mariadb-bin
        log_bin_index                  = mariadb-bin.index
        binlog_format                  = ROW
        binlog_row_image               = FULL
        binlog_row_metadata            = FULL
        binlog_checksum                = CRC32
        # annotate events repeat each statement's SQL text and double the binlog
        binlog_annotate_row_events     = OFF
        log_slave_updates              = ON
        gtid_strict_mode               = ON
        binlog_expire_logs_seconds     = 86400
        max_binlog_size                = 256M
        # small footprint; durability relaxed for local development only
        innodb_buffer_pool_size        = 64M
        innodb_log_file_size           = 32M
        innodb_log_buffer_size         = 8M
        innodb_flush_log_at_trx_commit = 2
        innodb_flush_method            = O_DIRECT
        innodb_doublewrite             = 0
        sync_binlog                    = 0
        key_buffer_size                = 4M
        aria_pagecache_buffer_size     = 8M
        performance_schema             = OFF
        max_connections                = 200
        thread_cache_size              = 8
        table_open_cache               = 400
        """
            .formatted(
                server.host(),
                server.port(),
                server.socket(),
                home.resolve("mariadbd.pid"),
                dataDir(),
                home.resolve("tmp"),
                errorLog(),
                server.serverId());
    Files.writeString(configFile(), cnf);
  }

  /**
   * Creates an empty datadir with {@code mariadb-install-db}. The bootstrap runs without binlog, so
   * the first user transaction gets GTID {@code N-N-1}. {@code root} may connect from 127.0.0.1
   * without a password.
   *
   * @throws ClusterException with the tool's output if it fails
   */
  @Override
  public void initialise() throws IOException, InterruptedException {
    Files.createDirectories(dataDir());
    Path log = home.resolve("install-db.log");
    Files.deleteIfExists(log);
    Process p =
        OsProcesses.launch(
            List.of(
                installDb.toString(),
                "--defaults-file=" + configFile(), // must be the first option
                "--user=root",
                "--auth-root-authentication-method=normal",
                "--skip-test-db",
                "--skip-name-resolve"),
            home,
            log);
    if (!p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new ClusterException(
          ClusterException.Kind.START_FAILED,
          "mariadb-install-db failed for "
              + server.name()
              + " (datadir "
              + dataDir()
              + "); the disk may be full. Last lines of "
              + log
              + ":\n"
              + OsProcesses.tail(log, 20));
    }
  }

  /** Starts {@code mariadbd} on the existing datadir and waits until it accepts a SQL query. */
  @Override
  public long start() {
    Process p =
        OsProcesses.launch(
            List.of(mariadbd.toString(), "--defaults-file=" + configFile()),
            home,
            home.resolve("mariadbd.out"));
    return DatabaseServer.awaitReady(p, server, "mariadbd", errorLog());
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
