package io.reshard.bench.chaos;

import io.reshard.cli.ExitCodes;
import io.reshard.cluster.ClusterDescriptor;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code reshard bench chaos}: whole lifecycles of a split under seeded, replayable faults. */
@Command(
    name = "chaos",
    mixinStandardHelpOptions = true,
    description = {
      "On a local cluster of its own (2 shard servers, 2 spares, Kafka) with the daemon as a"
          + " supervised child process, run whole lifecycles of a split (keyspace init, create, copy,"
          + " diff, switch reads, switch writes, reverse, diff, switch writes, complete) while"
          + " router-lib writers and readers run, and inject faults at seeded moments: kill -9 of"
          + " the daemon, a source, a target or the broker (restarted on their data), SIGSTOP of a"
          + " server, a target's FLUSH TABLES WITH READ LOCK.",
      "After each fault it waits for the system to heal without help, and helps it on (daemon"
          + " restart, then workflow resume) when it does not. Prints per fault kind: injected,"
          + " healed without help, median and max time to heal; and the end checks: acknowledged"
          + " writes lost, duplicated, rows on a wrong shard, diffs clean, writes accepted by a"
          + " stale owner. Writes JSON (--out). Exit 0 only if every check holds and every fault"
          + " healed without help.",
      "The same --seed and options give the same plan (--plan-only prints it)."
    })
public final class ChaosCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "--faults",
      defaultValue = "100",
      description = "Faults to inject. Default: ${DEFAULT-VALUE}.")
  int faults;

  @Option(
      names = "--seed",
      defaultValue = "1",
      description = "Seed of the plan, data and writers. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--dir",
      description = "Cluster directory (new or empty). Default: a new temporary directory.")
  Path dir;

  @Option(
      names = "--base-port",
      defaultValue = "13406",
      description = "First MariaDB port (4 servers). Default: ${DEFAULT-VALUE}.")
  int basePort;

  @Option(
      names = "--kafka-port",
      defaultValue = "19192",
      description = "Kafka port (and the next). Default: ${DEFAULT-VALUE}.")
  int kafkaPort;

  @Option(
      names = "--kinds",
      split = ",",
      description =
          "Fault kinds to draw from (default: all): daemon-kill, source-kill, target-kill,"
              + " broker-kill, server-pause, target-read-lock.")
  List<String> kinds;

  @Option(
      names = "--fault-probability",
      defaultValue = "0.6",
      description = "Chance that a lifecycle step gets a fault. Default: ${DEFAULT-VALUE}.")
  double probability;

  @Option(
      names = "--max-delay-ms",
      defaultValue = "2000",
      description = "Longest delay of a fault after its step starts. Default: ${DEFAULT-VALUE}.")
  long maxDelayMillis;

  @Option(
      names = "--rows",
      defaultValue = "20000",
      description = "Rows loaded per lifecycle. Default: ${DEFAULT-VALUE}.")
  int rows;

  @Option(
      names = "--writers",
      defaultValue = "2",
      description =
          "Writer threads through the live router (plus one through a lagging router). Default: ${DEFAULT-VALUE}.")
  int writers;

  @Option(
      names = "--rate",
      defaultValue = "40",
      description = "Writes per second, all writers. Default: ${DEFAULT-VALUE}.")
  int rate;

  @Option(
      names = "--read-rate",
      defaultValue = "20",
      description = "Reads per second. Default: ${DEFAULT-VALUE}.")
  int readRate;

  @Option(
      names = "--stale-lag-ms",
      defaultValue = "3000",
      description = "How far the lagging router's map lags. Default: ${DEFAULT-VALUE}.")
  long staleLagMillis;

  @Option(
      names = "--heal-timeout-s",
      defaultValue = "120",
      description = "How long to wait for healing without help. Default: ${DEFAULT-VALUE}.")
  long healTimeoutSeconds;

  @Option(
      names = "--lag-bound-ms",
      defaultValue = "5000",
      description = "Largest stream lag that counts as healed. Default: ${DEFAULT-VALUE}.")
  long lagBoundMillis;

  @Option(
      names = "--pause-s",
      defaultValue = "15",
      description = "How long a SIGSTOPped server stays stopped. Default: ${DEFAULT-VALUE}.")
  long pauseSeconds;

  @Option(
      names = "--lock-hold-s",
      defaultValue = "15",
      description = "How long a target's read lock is held. Default: ${DEFAULT-VALUE}.")
  long lockHoldSeconds;

  @Option(
      names = "--restart-delay-ms",
      defaultValue = "1000",
      description = "How long a killed process stays down. Default: ${DEFAULT-VALUE}.")
  long restartDelayMillis;

  @Option(
      names = "--daemon-set",
      description =
          "KEY=VALUE for the daemon (repeatable), after the run's own "
              + "copy.chunk.rows=100, copy.chunk.rows.max=100.")
  List<String> daemonSettings = new ArrayList<>();

  @Option(
      names = "--out",
      defaultValue = "results/chaos.json",
      description = "The JSON report. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(names = "--keep", description = "Leave the cluster running at the end.")
  boolean keep;

  @Option(names = "--plan-only", description = "Print the plan and exit; start nothing.")
  boolean planOnly;

  @Override
  public Integer call() throws Exception {
    ChaosOptions options = options();
    PrintWriter w = spec.commandLine().getOut();
    if (planOnly) {
      new ChaosRun(options, w).plan().faults().forEach(f -> w.println(f.describe()));
      w.flush();
      return ExitCodes.OK;
    }
    quietHarnessLogs(options.dir());
    ChaosReport report = new ChaosRun(options, w).run();
    report.print(w);
    if (report.ok() && dir == null && !keep) {
      deleteTree(options.dir());
    } else if (!keep) {
      w.println("the cluster's data and logs stay in " + options.dir());
    }
    w.println("report in " + options.out().toAbsolutePath());
    w.flush();
    return report.ok() ? ExitCodes.OK : ExitCodes.VERIFICATION_FAILED;
  }

  /** The validated options; every problem at once, as a usage error, before anything starts. */
  ChaosOptions options() throws IOException {
    List<String> problems = new ArrayList<>();
    List<FaultKind> chosen = new ArrayList<>();
    for (String k : kinds == null ? FaultKind.wireNames() : kinds) {
      Optional<FaultKind> kind = FaultKind.fromWire(k);
      if (kind.isEmpty()) {
        problems.add("--kinds: no fault kind " + k + "; the kinds are " + FaultKind.wireNames());
      } else if (!chosen.contains(kind.get())) {
        chosen.add(kind.get());
      }
    }
    if (dir != null && Files.exists(dir.resolve(ClusterDescriptor.FILE_NAME))) {
      problems.add("--dir " + dir + " holds a cluster already; give a new or empty directory");
    }
    writable(out).ifPresent(problems::add);
    ChaosOptions o =
        new ChaosOptions(
            faults,
            seed,
            dir == null ? Path.of("unset") : dir.toAbsolutePath().normalize(),
            basePort,
            kafkaPort,
            chosen,
            probability,
            Duration.ofMillis(maxDelayMillis),
            rows,
            writers,
            rate,
            readRate,
            Duration.ofMillis(staleLagMillis),
            Duration.ofSeconds(healTimeoutSeconds),
            Duration.ofMillis(lagBoundMillis),
            Duration.ofSeconds(pauseSeconds),
            Duration.ofSeconds(lockHoldSeconds),
            Duration.ofMillis(restartDelayMillis),
            daemonSettings,
            out,
            keep);
    problems.addAll(0, o.problems());
    if (!problems.isEmpty()) {
      throw new CommandLine.ParameterException(spec.commandLine(), String.join("; ", problems));
    }
    if (dir == null && !planOnly) {
      return o.withDir(Files.createTempDirectory("reshard-chaos-"));
    }
    return o;
  }

  /** Why {@code file} cannot be written, tried for real in its directory, or empty. */
  private static Optional<String> writable(Path file) {
    Path parent = file.toAbsolutePath().getParent();
    try {
      Files.createDirectories(parent);
      Files.delete(Files.createTempFile(parent, ".chaos-", ".tmp"));
      return Optional.empty();
    } catch (IOException | RuntimeException e) {
      return Optional.of("--out " + file + " cannot be written (" + e + "); choose another path");
    }
  }

  /**
   * This JVM's own logs (Kafka clients of the routers' map subscriptions, connection pools) go to
   * {@code DIR/harness.log}, so standard output is the run's log; set before the first logger.
   */
  private static void quietHarnessLogs(Path dir) throws IOException {
    Files.createDirectories(dir);
    System.setProperty("org.slf4j.simpleLogger.logFile", dir.resolve("harness.log").toString());
    System.setProperty("org.slf4j.simpleLogger.showDateTime", "true");
    System.setProperty("org.slf4j.simpleLogger.dateTimeFormat", "HH:mm:ss.SSS");
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
