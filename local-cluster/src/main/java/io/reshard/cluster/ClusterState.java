package io.reshard.cluster;

import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The descriptor of one cluster while {@code up} or {@code down} runs: every pid change is written
 * to {@code cluster.json} at once, so a crash of the caller never leaves a process that {@code
 * down} cannot find. Thread-safe: the start and stop tasks run in parallel.
 */
final class ClusterState {
  private final Path dir;
  private ClusterDescriptor descriptor;
  private final Set<Integer> serversStartedHere = new HashSet<>();
  private boolean brokerStartedHere;

  ClusterState(Path dir, ClusterDescriptor descriptor) {
    this.dir = dir;
    this.descriptor = descriptor;
  }

  Path dir() {
    return dir;
  }

  synchronized ClusterDescriptor descriptor() {
    return descriptor;
  }

  synchronized void serverStarted(int index, long pid) {
    descriptor = descriptor.withServerPid(index, pid);
    serversStartedHere.add(index);
    descriptor.write(dir);
  }

  synchronized void brokerStarted(long pid) {
    descriptor = descriptor.withKafkaPid(pid);
    brokerStartedHere = true;
    descriptor.write(dir);
  }

  /**
   * Stops server {@code index}, once it has exited records it as stopped, and returns a line for
   * the operator.
   */
  String stopServer(int index) {
    DatabaseServer server = DatabaseServer.of(dir, descriptor().mariadb().get(index));
    String stopped = server.stop();
    synchronized (this) {
      descriptor = descriptor.withServerPid(index, 0);
      descriptor.write(dir);
    }
    return String.format("%-6s %s", server.descriptor().name(), stopped);
  }

  /**
   * Stops the broker, once it has exited records it as stopped, and returns a line for the
   * operator.
   */
  String stopBroker() {
    KafkaBroker broker = new KafkaBroker(dir, descriptor().kafka());
    String stopped = broker.stop();
    synchronized (this) {
      descriptor = descriptor.withKafkaPid(0);
      descriptor.write(dir);
    }
    return String.format("%-6s %s", "kafka", stopped);
  }

  /** After a failed {@code up}: stops what this call started, leaving what it reused. */
  void stopStartedByThisCall() {
    Set<Integer> servers;
    boolean broker;
    synchronized (this) {
      servers = Set.copyOf(serversStartedHere);
      broker = brokerStartedHere;
    }
    for (int index : servers) {
      try {
        stopServer(index);
      } catch (ClusterException e) {
        // keep stopping the rest; the pid stays recorded for `down`
      }
    }
    if (broker) {
      try {
        stopBroker();
      } catch (ClusterException e) {
        // as above
      }
    }
  }
}
