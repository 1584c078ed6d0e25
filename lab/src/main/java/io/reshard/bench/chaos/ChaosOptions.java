package io.reshard.bench.chaos;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The settings of one chaos run, checked all at once before anything starts ({@link #problems}).
 * Immutable.
 *
 * @param faults how many faults to inject
 * @param seed the seed of the plan, the data and the writers' choices
 * @param dir the cluster directory (must not hold a cluster yet)
 * @param basePort the first MariaDB port (four servers)
 * @param kafkaPort the broker's port (and the next one)
 * @param kinds the fault kinds to draw from
 * @param probability the chance that a lifecycle step gets a fault
 * @param maxDelay the longest delay of a fault after its step starts
 * @param rows rows loaded into each lifecycle's keyspace
 * @param writers writer threads through the live router (one more writes through a lagging router)
 * @param writesPerSecond all writers together
 * @param readsPerSecond the reader
 * @param staleLag how far behind the lagging router's shard map is
 * @param healTimeout how long the run waits for the system to heal by itself
 * @param lagBound the largest stream lag that counts as healed
 * @param pause how long a paused server stays stopped
 * @param lockHold how long a target's read lock is held
 * @param restartDelay how long a killed process stays down before its restart
 * @param daemonSettings {@code KEY=VALUE} settings for the daemon ({@code --set})
 * @param out where the JSON report goes
 * @param keep leave the cluster running at the end
 */
record ChaosOptions(
    int faults,
    long seed,
    Path dir,
    int basePort,
    int kafkaPort,
    List<FaultKind> kinds,
    double probability,
    Duration maxDelay,
    int rows,
    int writers,
    int writesPerSecond,
    int readsPerSecond,
    Duration staleLag,
    Duration healTimeout,
    Duration lagBound,
    Duration pause,
    Duration lockHold,
    Duration restartDelay,
    List<String> daemonSettings,
    Path out,
    boolean keep) {

  /** Copies the lists. */
  ChaosOptions {
    kinds = List.copyOf(kinds);
    daemonSettings = List.copyOf(daemonSettings);
  }

  /** These settings with another cluster directory. */
  ChaosOptions withDir(Path d) {
    return new ChaosOptions(
        faults,
        seed,
        d,
        basePort,
        kafkaPort,
        kinds,
        probability,
        maxDelay,
        rows,
        writers,
        writesPerSecond,
        readsPerSecond,
        staleLag,
        healTimeout,
        lagBound,
        pause,
        lockHold,
        restartDelay,
        daemonSettings,
        out,
        keep);
  }

  /** Every problem with these settings, each naming the option and what is allowed. */
  List<String> problems() {
    List<String> p = new ArrayList<>();
    if (faults < 1) {
      p.add("--faults must be at least 1, got " + faults);
    }
    if (kinds.isEmpty()) {
      p.add("--kinds must name at least one of " + FaultKind.wireNames());
    }
    if (!(probability > 0 && probability <= 1)) { // also refuses NaN
      p.add("--fault-probability must lie in (0, 1], got " + probability);
    }
    if (rows < 100 || rows > 2_000_000) {
      p.add("--rows must lie in 100..2000000, got " + rows);
    }
    if (writers < 1 || writers > 32) {
      p.add("--writers must lie in 1..32, got " + writers);
    }
    if (writesPerSecond < writers + 1 || writesPerSecond > 5000) {
      p.add(
          "--rate must lie in "
              + (writers + 1)
              + "..5000 (a write per thread), got "
              + writesPerSecond);
    }
    if (readsPerSecond < 1 || readsPerSecond > 5000) {
      p.add("--read-rate must lie in 1..5000, got " + readsPerSecond);
    }
    for (Map.Entry<String, Duration> d :
        Map.of(
                "--heal-timeout", healTimeout,
                "--pause", pause,
                "--lock-hold", lockHold,
                "--lag-bound", lagBound)
            .entrySet()) {
      if (d.getValue().compareTo(Duration.ofSeconds(1)) < 0) {
        p.add(d.getKey() + " must be at least 1 s, got " + d.getValue().toMillis() + " ms");
      }
    }
    if (maxDelay.isNegative() || restartDelay.isNegative() || staleLag.isNegative()) {
      p.add("--max-delay, --restart-delay and --stale-lag must not be negative");
    }
    for (String s : daemonSettings) {
      if (!s.contains("=") || s.startsWith("=")) {
        p.add("--daemon-set " + s + ": give KEY=VALUE");
      }
    }
    if (basePort < 1024 || basePort + 3 > 65535) {
      p.add("--base-port must lie in 1024..65532 (four servers), got " + basePort);
    }
    if (kafkaPort < 1024
        || kafkaPort > 65534
        || (kafkaPort + 1 >= basePort && kafkaPort <= basePort + 3)) {
      p.add(
          "--kafka-port must lie in 1024..65534 and not overlap the MariaDB ports, got "
              + kafkaPort);
    }
    return p;
  }
}
