package io.reshard.bench.chaos;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.LocalCluster;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The chaos run's own local cluster and what its faults do to its processes: signals to a process
 * named as {@code cluster status} names it ({@code db1}, ..., {@code kafka}), each sent only after
 * the recorded pid is checked to be that process, and the restart of whatever was killed, on its
 * data, as {@code cluster up} does it ({@link LocalCluster#up}: what runs is reused).
 *
 * <p>{@link #lock} serialises every change of {@code cluster.json}: a restart here and the daemon's
 * record of itself ({@link DaemonSupervisor}) would otherwise overwrite each other. Thread-safe.
 */
final class ChaosCluster {
  /** How long a killed process may take to be gone. */
  private static final Duration EXIT_WAIT = Duration.ofSeconds(30);

  final ClusterSpec spec;
  final ReentrantLock lock = new ReentrantLock();
  private final Consumer<String> log;

  /**
   * @param log receives a line per process started, restarted or signalled
   */
  ChaosCluster(ClusterSpec spec, Consumer<String> log) {
    this.spec = spec;
    this.log = log;
  }

  /** Starts the cluster, or restarts what of it is down; returns its descriptor. */
  ClusterDescriptor up() {
    lock.lock();
    try {
      return LocalCluster.up(spec, l -> log.accept("cluster: " + l.strip()));
    } finally {
      lock.unlock();
    }
  }

  /** The descriptor as it is now. */
  ClusterDescriptor descriptor() {
    return LocalCluster.require(spec.dir());
  }

  /** Stops every process of the cluster (the daemon first); the data stays. */
  void down() {
    lock.lock();
    try {
      LocalCluster.down(spec.dir()).forEach(l -> log.accept("cluster: " + l.strip()));
    } finally {
      lock.unlock();
    }
  }

  /** kill -9 of process {@code name}; returns once it is gone. */
  void kill(String name) throws InterruptedException {
    long pid = runningPid(name);
    signal("KILL", pid, name);
    ProcessHandle.of(pid)
        .ifPresent(
            p -> {
              try {
                p.onExit().get(EXIT_WAIT.toSeconds(), TimeUnit.SECONDS);
              } catch (Exception e) {
                throw new IllegalStateException(name + " (pid " + pid + ") did not exit", e);
              }
            });
  }

  /** SIGSTOP of process {@code name}. */
  void pause(String name) throws InterruptedException {
    signal("STOP", runningPid(name), name);
  }

  /** SIGCONT of process {@code name}. */
  void resume(String name) throws InterruptedException {
    signal("CONT", runningPid(name), name);
  }

  /**
   * The pid of {@code name} if it runs and is the cluster's process.
   *
   * @throws IllegalStateException if it does not run
   */
  long runningPid(String name) {
    List<LocalCluster.ProcessStatus> all = LocalCluster.status(spec.dir());
    return all.stream()
        .filter(p -> p.name().equals(name) && p.up())
        .mapToLong(LocalCluster.ProcessStatus::pid)
        .findFirst()
        .orElseThrow(() -> new IllegalStateException(name + " is not running: " + all));
  }

  private void signal(String signal, long pid, String name) throws InterruptedException {
    log.accept("fault: SIG" + signal + " to " + name + " (pid " + pid + ")");
    try {
      Process p = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).start();
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("kill -s " + signal + " " + pid + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot run kill: " + e.getMessage(), e);
    }
  }
}
