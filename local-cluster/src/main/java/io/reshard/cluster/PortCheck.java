package io.reshard.cluster;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Refuses ports that are taken, naming the port, the process that holds it and, when that process
 * belongs to a local cluster, the cluster directory.
 */
final class PortCheck {

  /**
   * A cluster process's command line names DIR/mariadb/NAME/my.cnf or DIR/kafka/server.properties.
   */
  private static final Pattern CLUSTER_FILE =
      Pattern.compile("(\\S+)/(?:mariadb/[^/\\s]+/my\\.cnf|kafka/server\\.properties)");

  /**
   * How long a port that is taken with no listening process behind it may take to come free: a
   * free-port probe (a bind and close, as {@link FreePorts} does in another test JVM) or a socket
   * being torn down.
   */
  private static final java.time.Duration BRIEF_HOLD = java.time.Duration.ofSeconds(2);

  private PortCheck() {}

  private static boolean freeWithin(int port, java.time.Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    while (System.nanoTime() < deadline) {
      OsProcesses.sleep(java.time.Duration.ofMillis(50));
      if (OsProcesses.isPortFree(port)) {
        return true;
      }
    }
    return false;
  }

  /** Checks every port of a descriptor before anything is written or started. */
  static void requireFree(ClusterDescriptor d) {
    for (ClusterDescriptor.Server s : d.mariadb()) {
      requireFree(s.port(), s.name());
    }
    requireFree(d.kafka().port(), "kafka");
    requireFree(d.kafka().controllerPort(), "kafka controller");
  }

  /**
   * Like {@link #requireFree(int, String)}, but waits up to {@code grace} for the port to be
   * released first: a process that was just killed has an empty {@code /proc/PID/cmdline} a moment
   * before the kernel closes its listening socket.
   */
  static void requireFreeSoon(int port, String wantedBy, java.time.Duration grace) {
    long deadline = System.nanoTime() + grace.toNanos();
    while (!OsProcesses.isPortFree(port) && System.nanoTime() < deadline) {
      OsProcesses.sleep(java.time.Duration.ofMillis(50));
    }
    requireFree(port, wantedBy);
  }

  /**
   * @throws ClusterException of kind {@code PORT_IN_USE} if {@code port} is taken
   */
  static void requireFree(int port, String wantedBy) {
    if (OsProcesses.isPortFree(port)) {
      return;
    }
    Optional<String> owner = OsProcesses.portOwner(port);
    if (owner.isEmpty() && freeWithin(port, BRIEF_HOLD)) {
      return; // held for a moment by no listener we can see: another process probing the port
    }
    StringBuilder msg =
        new StringBuilder("port ")
            .append(port)
            .append(" (wanted by ")
            .append(wantedBy)
            .append(") is already in use");
    owner.ifPresent(o -> msg.append(" by ").append(o));
    owner
        .flatMap(PortCheck::clusterDirOf)
        .ifPresent(
            dir ->
                msg.append("; it belongs to the local cluster in ")
                    .append(dir)
                    .append(" (stop it with `reshard cluster down --dir ")
                    .append(dir)
                    .append("`)"));
    msg.append("; choose other ports with --base-port and --kafka-port");
    throw new ClusterException(ClusterException.Kind.PORT_IN_USE, msg.toString());
  }

  /** The cluster directory named in a process description, if it is one of ours. */
  static Optional<String> clusterDirOf(String processDescription) {
    Matcher m = CLUSTER_FILE.matcher(processDescription);
    return m.find()
        ? Optional.of(m.group(1).replaceFirst("^--defaults-file=", ""))
        : Optional.empty();
  }
}
