package io.reshard.bench.chaos;

import io.reshard.cluster.ClusterDescriptor;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * Does what a planned fault says to the lifecycle's processes, then what the environment does about
 * it: the supervisor starts a killed daemon again; a killed server or broker is started again on
 * its data after {@code restartDelay}, as {@code cluster up} does; a paused server is continued
 * after {@code pause}; a read lock is released after {@code lockHold}. Returns when the environment
 * is whole again. Not thread-safe: one fault at a time.
 */
final class FaultInjector {
  /** How many times a restart of a killed server or broker is tried (a port slow to free). */
  private static final int RESTART_ATTEMPTS = 5;

  /** How long a read lock may wait for running statements before the lock counts as not taken. */
  private static final int READ_LOCK_WAIT_SECONDS = 30;

  /** How long a killed daemon may take to be started again by its supervisor. */
  private static final Duration DAEMON_BACK = Duration.ofMinutes(3);

  private final ChaosCluster cluster;
  private final DaemonSupervisor daemon;
  private final Duration restartDelay;
  private final Duration pause;
  private final Duration lockHold;
  private final Consumer<String> log;

  FaultInjector(
      ChaosCluster cluster,
      DaemonSupervisor daemon,
      Duration restartDelay,
      Duration pause,
      Duration lockHold,
      Consumer<String> log) {
    this.cluster = cluster;
    this.daemon = daemon;
    this.restartDelay = restartDelay;
    this.pause = pause;
    this.lockHold = lockHold;
    this.log = log;
  }

  /**
   * The process a fault hits in lifecycle {@code ks}: {@code daemon}, {@code kafka}, {@code dbN}.
   */
  static String process(FaultPlan.Target target, ChaosKeyspace ks) {
    return switch (target) {
      case DAEMON -> "daemon";
      case BROKER -> "kafka";
      case SOURCE -> ks.sourceServer().name();
      case FIRST_TARGET -> ks.targetServers().get(0).name();
      case SECOND_TARGET -> ks.targetServers().get(1).name();
    };
  }

  /**
   * Injects {@code f} and restores the environment.
   *
   * @return when the fault was over ({@link System#nanoTime()})
   * @throws IllegalStateException if the fault could not be done (the process was not running)
   */
  long inject(FaultPlan.PlannedFault f, ChaosKeyspace ks) throws Exception {
    String name = process(f.target(), ks);
    log.accept("fault " + f.describe() + " -> " + name);
    switch (f.kind()) {
      case DAEMON_KILL -> killDaemon();
      case SOURCE_KILL, TARGET_KILL, BROKER_KILL -> killAndRestart(name);
      case SERVER_PAUSE -> {
        cluster.pause(name);
        Thread.sleep(pause.toMillis());
        cluster.resume(name);
      }
      case TARGET_READ_LOCK -> holdReadLock(serverNamed(name));
    }
    log.accept("fault #" + f.index() + " over: " + name + " is back");
    return System.nanoTime();
  }

  private void killDaemon() throws InterruptedException {
    long before = daemon.pid();
    if (before == 0) {
      throw new IllegalStateException("the daemon is not running");
    }
    daemon.kill();
    long deadline = System.nanoTime() + DAEMON_BACK.toNanos();
    while (daemon.pid() == 0 || daemon.pid() == before) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the supervisor did not start the daemon again");
      }
      Thread.sleep(100);
    }
  }

  private void killAndRestart(String name) throws InterruptedException {
    cluster.kill(name);
    Thread.sleep(restartDelay.toMillis());
    for (int attempt = 1; ; attempt++) {
      try {
        cluster.up();
        return;
      } catch (RuntimeException e) {
        log.accept("restart of " + name + " failed (attempt " + attempt + "): " + e.getMessage());
        if (attempt == RESTART_ATTEMPTS) {
          throw e;
        }
        Thread.sleep(2000);
      }
    }
  }

  private void holdReadLock(ClusterDescriptor.Server target)
      throws SQLException, InterruptedException {
    try (Connection c = ChaosSql.connect(target, "");
        Statement st = c.createStatement()) {
      st.execute("SET SESSION lock_wait_timeout = " + READ_LOCK_WAIT_SECONDS);
      st.execute("FLUSH TABLES WITH READ LOCK");
      log.accept("fault: " + target.name() + " holds a global read lock");
      Thread.sleep(lockHold.toMillis());
      st.execute("UNLOCK TABLES");
    }
  }

  private ClusterDescriptor.Server serverNamed(String name) {
    return cluster.descriptor().mariadb().stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no server named " + name));
  }
}
