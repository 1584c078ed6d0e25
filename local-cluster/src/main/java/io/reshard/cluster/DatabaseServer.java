package io.reshard.cluster;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * One database server of a local cluster, of either {@link Flavor}: its configuration file, datadir
 * initialisation, start, readiness, and stop. Not thread-safe; each instance is used by one thread
 * at a time.
 */
sealed interface DatabaseServer permits MariaDbServer, MySqlServer {

  /** How long a fresh or restarted server may take to accept connections (seen: under 3 s). */
  Duration READY_TIMEOUT = Duration.ofSeconds(90);

  /** How long a shutdown may take before SIGKILL (seen: 1.2-2 s). */
  Duration STOP_GRACE = Duration.ofSeconds(60);

  /**
   * The server of {@code server}'s flavor, for status and stop; starting a MariaDB server needs the
   * programs {@link LocalCluster} found, so it builds its own.
   */
  static DatabaseServer of(Path clusterDir, ClusterDescriptor.Server server) {
    return server.flavorOrDefault() == Flavor.MYSQL
        ? new MySqlServer(clusterDir, server)
        : new MariaDbServer(clusterDir, server);
  }

  /** The directory of server {@code name} of flavor {@code flavor} inside a cluster directory. */
  static Path homeOf(Path clusterDir, Flavor flavor, String name) {
    return clusterDir.resolve(flavor.id()).resolve(name);
  }

  /** The server as {@code cluster.json} describes it. */
  ClusterDescriptor.Server descriptor();

  /** Writes the server's configuration file (and the directories it names). */
  void writeConfig() throws IOException;

  /** True if the datadir has been initialised (it holds the {@code mysql} system schema). */
  boolean isInitialised();

  /**
   * Creates an empty datadir in which {@code root} connects from 127.0.0.1 without a password.
   *
   * @throws ClusterException with the tool's output if it fails
   */
  void initialise() throws IOException, InterruptedException;

  /**
   * Starts the server on its existing datadir and waits until it accepts a SQL query.
   *
   * @return the server's pid
   * @throws ClusterException with the tail of its error log if it dies or is not ready in time
   */
  long start();

  /** True if the recorded pid is running and is this server's process. */
  boolean isRunning();

  /**
   * Stops the process (SIGTERM, SIGKILL after {@link #STOP_GRACE}) and returns once it has exited
   * and its pid is gone.
   *
   * @return how it ended, as a line's words: {@code stopped}, {@code was not running}, ...
   */
  String stop();

  /**
   * Waits until the server started as {@code p} answers a query.
   *
   * @param program the program's name for messages ({@code mariadbd}, {@code mysqld})
   * @return its pid
   * @throws ClusterException quoting {@code errorLog} if it dies or is not ready in time
   */
  static long awaitReady(
      Process p, ClusterDescriptor.Server server, String program, Path errorLog) {
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      if (!p.isAlive()) {
        throw new ClusterException(
            ClusterException.Kind.START_FAILED,
            program
                + " "
                + server.name()
                + " on port "
                + server.port()
                + " died at start (exit code "
                + p.exitValue()
                + "). Last lines of "
                + errorLog
                + ":\n"
                + OsProcesses.tail(errorLog, 20));
      }
      if (answersQuery(server)) {
        return p.pid();
      }
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new ClusterException(
            ClusterException.Kind.START_FAILED,
            program
                + " "
                + server.name()
                + " on port "
                + server.port()
                + " did not accept connections within "
                + READY_TIMEOUT.toSeconds()
                + " s. Last lines of "
                + errorLog
                + ":\n"
                + OsProcesses.tail(errorLog, 20));
      }
      OsProcesses.sleep(Duration.ofMillis(50));
    }
  }

  /**
   * True if {@code server} answers {@code SELECT 1} over TCP as its user, with its flavor's driver.
   */
  static boolean answersQuery(ClusterDescriptor.Server server) {
    String url = server.jdbcUrl("") + "?connectTimeout=1000&socketTimeout=5000";
    try (Connection c = DriverManager.getConnection(url, server.user(), "");
        Statement s = c.createStatement()) {
      return s.execute("SELECT 1");
    } catch (SQLException e) {
      return false;
    }
  }
}
