package io.reshard.bench.chaos;

import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * The pipeline daemon of the chaos run as a child process ({@code reshard daemon --cluster DIR} in
 * a JVM of its own, output appended to {@code DIR/daemon.log}) and its supervisor, as systemd with
 * {@code Restart=always} would be: whenever the daemon has exited, it is started again after {@code
 * restartDelay}. An exit the run caused ({@link #kill}, {@link #restart}) is expected; any other is
 * counted ({@link #unexpectedExits}) with its exit code. Thread-safe: one watch thread; the other
 * methods are called by the run.
 */
final class DaemonSupervisor implements AutoCloseable {
  /** How long a started daemon may take to record itself in cluster.json (a JVM start). */
  private static final Duration RECORD_TIMEOUT = Duration.ofSeconds(90);

  /** How long a stopping daemon gets before SIGKILL, as {@code daemon stop} gives it. */
  private static final Duration STOP_GRACE = Duration.ofSeconds(60);

  /** How often the watch thread looks at the daemon. */
  private static final long WATCH_MILLIS = 100;

  private final ChaosCluster cluster;
  private final List<String> daemonArgs;
  private final Duration restartDelay;
  private final Consumer<String> log;
  private final List<String> unexpected = new ArrayList<>();
  private Process process;
  private boolean exitExpected;
  private boolean closed;
  private int starts;
  private Thread watcher;

  /**
   * @param daemonArgs what follows {@code daemon --cluster DIR} ({@code --set KEY=VALUE} pairs)
   * @param restartDelay how long after an exit the daemon is started again
   */
  DaemonSupervisor(
      ChaosCluster cluster, List<String> daemonArgs, Duration restartDelay, Consumer<String> log) {
    this.cluster = cluster;
    this.daemonArgs = List.copyOf(daemonArgs);
    this.restartDelay = restartDelay;
    this.log = log;
  }

  /** Starts the daemon and the watch thread. */
  synchronized void start() throws InterruptedException {
    launch();
    watcher = new Thread(this::watch, "chaos-daemon-supervisor");
    watcher.setDaemon(true);
    watcher.start();
  }

  /** The daemon's pid, or 0 while none runs. */
  synchronized long pid() {
    return process != null && process.isAlive() ? process.pid() : 0;
  }

  /** kill -9 of the daemon (a fault); the watch thread starts it again. */
  void kill() throws InterruptedException {
    synchronized (this) {
      exitExpected = true;
    }
    cluster.kill("daemon");
  }

  /**
   * Stops the daemon (SIGTERM, as {@code daemon stop} does) and starts it again at once, whatever
   * state it is in: human help, or the step between two lifecycles; the caller says which.
   *
   * @param why for the log
   */
  synchronized void restart(String why) throws InterruptedException {
    exitExpected = true;
    log.accept("restarting the daemon: " + why);
    terminate();
    exitExpected = false;
    launch();
  }

  /** Exits nobody caused, each with its exit code and the time. */
  synchronized List<String> unexpectedExits() {
    return List.copyOf(unexpected);
  }

  /** How many times the daemon was started. */
  synchronized int starts() {
    return starts;
  }

  private void watch() {
    while (true) {
      try {
        Thread.sleep(WATCH_MILLIS);
        synchronized (this) {
          if (closed) {
            return;
          }
          if (process == null || process.isAlive()) {
            continue;
          }
          if (!exitExpected) {
            String note =
                "the daemon (pid "
                    + process.pid()
                    + ") exited by itself with code "
                    + process.exitValue()
                    + " at "
                    + java.time.LocalTime.now().withNano(0);
            unexpected.add(note);
            log.accept("supervisor: " + note);
          }
          exitExpected = false;
          wait(restartDelay.toMillis()); // releases the monitor: status reads go on
          if (!closed) {
            launch();
          }
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException e) {
        log.accept("supervisor: starting the daemon failed: " + e.getMessage());
      }
    }
  }

  /** Starts the daemon and waits until it has recorded itself. Holds this monitor. */
  private void launch() throws InterruptedException {
    Path dir = cluster.spec.dir();
    cluster.lock.lock();
    try {
      Process p = ClusterDaemon.launch(dir, command(dir));
      process = p;
      starts++;
      long deadline = System.nanoTime() + RECORD_TIMEOUT.toNanos();
      while (p.isAlive() && System.nanoTime() < deadline) {
        Optional<ClusterDescriptor.DaemonProcess> recorded =
            ClusterDescriptor.read(dir).map(ClusterDescriptor::daemon);
        if (recorded.isPresent() && recorded.get().pid() == p.pid()) {
          log.accept("supervisor: daemon started, pid " + p.pid() + ", " + recorded.get().admin());
          return;
        }
        Thread.sleep(WATCH_MILLIS);
      }
      log.accept("supervisor: the daemon (pid " + p.pid() + ") did not record itself");
    } finally {
      cluster.lock.unlock();
    }
  }

  private List<String> command(Path dir) {
    List<String> args = new ArrayList<>(List.of("daemon", "--cluster", dir.toString()));
    args.addAll(daemonArgs);
    return ChildJava.reshard(
        List.of(
            "-Xmx512m",
            "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
            "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn"),
        args);
  }

  /** The daemon's log file. */
  Path logFile() {
    return cluster.spec.dir().resolve(ClusterDaemon.LOG_FILE);
  }

  /** Stops watching and stops the daemon. */
  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      closed = true;
      exitExpected = true;
      notifyAll();
    }
    if (watcher != null) {
      watcher.interrupt();
      watcher.join();
    }
    synchronized (this) {
      terminate();
    }
  }

  /** SIGTERM, as {@code daemon stop} sends; SIGKILL if it has not exited after the grace. */
  private void terminate() throws InterruptedException {
    if (process != null && process.isAlive()) {
      process.destroy();
      if (!process.waitFor(STOP_GRACE.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor();
      }
    }
  }
}
