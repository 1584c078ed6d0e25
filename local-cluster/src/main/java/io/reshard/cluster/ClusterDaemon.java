package io.reshard.cluster;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The pipeline daemon that runs for a local cluster ({@code reshard daemon --cluster DIR}), as far
 * as the cluster is concerned: its entry in {@code DIR/cluster.json} ({@link
 * ClusterDescriptor.DaemonProcess}: pid and admin endpoint), starting it detached, and stopping it
 * ({@code cluster down} stops it before the servers, so it never sees its sources vanish).
 *
 * <p>The daemon writes its own entry once its admin endpoint listens ({@link #record}) and removes
 * it when it stops ({@link #clear}). A recorded pid counts as the daemon only while {@code
 * /proc/PID/cmdline} is a reshard daemon's ({@link #MARKER}), so a recycled pid is never signalled.
 *
 * <p>Entries are written by read-modify-write of the descriptor, atomically replaced; a concurrent
 * {@code cluster up} on the same directory may overwrite an entry written at the same moment (not
 * supported, as two concurrent {@code up} are not). Stateless; all methods are static.
 */
public final class ClusterDaemon {

  /** The text every daemon's command line holds: the CLI's main class and the subcommand. */
  public static final String MARKER = "io.reshard.cli.ReshardCli daemon";

  /** The daemon's log file inside the cluster directory, when started detached. */
  public static final String LOG_FILE = "daemon.log";

  /**
   * How long the daemon gets to stop its services after SIGTERM before SIGKILL: capture aborts its
   * open Kafka transaction and may wait for a broker round trip per shard.
   */
  private static final Duration STOP_GRACE = Duration.ofSeconds(60);

  private ClusterDaemon() {}

  /**
   * Records {@code pid} and {@code admin} as the cluster's daemon in {@code DIR/cluster.json}.
   *
   * @throws ClusterException of kind {@code NO_CLUSTER} if {@code dir} holds no cluster
   */
  public static void record(Path dir, long pid, String admin) {
    Path d = normalize(dir);
    ClusterDescriptor cd = LocalCluster.require(d);
    cd.withDaemon(new ClusterDescriptor.DaemonProcess(pid, admin)).write(d);
  }

  /**
   * Removes the daemon entry if it names {@code pid} (another daemon's entry is left alone).
   *
   * @return true if an entry was removed
   */
  public static boolean clear(Path dir, long pid) {
    Path d = normalize(dir);
    Optional<ClusterDescriptor> cd = ClusterDescriptor.read(d);
    if (cd.isEmpty() || cd.get().daemon() == null || cd.get().daemon().pid() != pid) {
      return false;
    }
    cd.get().withDaemon(null).write(d);
    return true;
  }

  /**
   * The daemon recorded for the cluster in {@code dir}, if one is recorded and its pid is still a
   * running reshard daemon.
   *
   * @throws ClusterException of kind {@code NO_CLUSTER} if {@code dir} holds no cluster
   */
  public static Optional<ClusterDescriptor.DaemonProcess> running(Path dir) {
    ClusterDescriptor.DaemonProcess p = LocalCluster.require(normalize(dir)).daemon();
    return p != null && isRunning(p.pid()) ? Optional.of(p) : Optional.empty();
  }

  /** True if {@code pid} is a running reshard daemon. */
  public static boolean isRunning(long pid) {
    return OsProcesses.isOurs(pid, MARKER);
  }

  /**
   * Starts {@code command} (a {@code reshard daemon ...} JVM) detached from the caller, in a
   * session of its own ({@code setsid}), in {@code dir}, with standard output and error appended to
   * {@code DIR/daemon.log}. The caller waits for it to record itself.
   *
   * @return the started process; its pid is the daemon's own
   * @throws ClusterException if it cannot be started
   */
  public static Process launch(Path dir, List<String> command) {
    Path d = normalize(dir);
    return OsProcesses.launch(command, d, d.resolve(LOG_FILE));
  }

  /**
   * Stops the recorded daemon (SIGTERM, then SIGKILL after 60 s), waits until it has exited, and
   * removes its entry.
   *
   * @return a line for the operator, or empty if no daemon is recorded
   * @throws ClusterException of kind {@code NO_CLUSTER} if {@code dir} holds no cluster
   */
  public static Optional<String> stop(Path dir) {
    Path d = normalize(dir);
    ClusterDescriptor.DaemonProcess p = LocalCluster.require(d).daemon();
    if (p == null) {
      return Optional.empty();
    }
    String stopped = OsProcesses.stop(p.pid(), MARKER, STOP_GRACE).describe(STOP_GRACE);
    clear(d, p.pid()); // the daemon clears its entry itself; this covers a killed one
    return Optional.of(String.format("%-6s %s", "daemon", stopped));
  }

  private static Path normalize(Path dir) {
    return dir.toAbsolutePath().normalize();
  }
}
