package io.reshard.bench.chaos;

import java.util.function.Consumer;

/**
 * What every lifecycle of a chaos run shares: its settings, its cluster, the supervised daemon and
 * its admin endpoint, the fault injector, the log, and when the run started. Immutable.
 *
 * @param startNanos when the run started ({@link System#nanoTime()}); times in the report count
 *     from it
 */
record ChaosEnv(
    ChaosOptions options,
    ChaosCluster cluster,
    DaemonSupervisor daemon,
    AdminEndpoint admin,
    FaultInjector injector,
    Consumer<String> log,
    long startNanos) {

  /** Milliseconds since the run started. */
  long sinceStartMillis(long nanos) {
    return (nanos - startNanos) / 1_000_000;
  }
}
