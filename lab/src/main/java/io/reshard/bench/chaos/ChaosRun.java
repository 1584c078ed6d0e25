package io.reshard.bench.chaos;

import io.reshard.cluster.ClusterSpec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;

/**
 * A chaos run, as its runbook: draw the plan from the seed; start a cluster of two shard servers,
 * two spares and a broker; start the daemon under its supervisor; drive each lifecycle of the plan
 * with its faults ({@link LifecycleDriver}); stop everything; report. The log goes to standard
 * output and to {@code DIR/chaos.log}; the daemon's to {@code DIR/daemon.log}.
 */
final class ChaosRun {
  /**
   * The daemon's settings for every chaos run: chunks of 100 rows (the smallest the copier allows),
   * so that a copy lasts long enough for a fault to land in it.
   */
  static final List<String> DAEMON_DEFAULTS =
      List.of("copy.chunk.rows=100", "copy.chunk.rows.max=100");

  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

  private final ChaosOptions options;
  private final PrintWriter out;

  ChaosRun(ChaosOptions options, PrintWriter out) {
    this.options = options;
    this.out = out;
  }

  /** The plan of these options. */
  FaultPlan plan() {
    return FaultPlan.draw(
        options.seed(),
        options.faults(),
        options.kinds(),
        options.probability(),
        options.maxDelay().toMillis());
  }

  /** Runs the plan; returns the report (also written to {@code --out}). */
  ChaosReport run() throws Exception {
    long start = System.nanoTime();
    FaultPlan plan = plan();
    Files.createDirectories(options.dir());
    Consumer<String> log = log(start, options.dir().resolve("chaos.log"));
    log.accept(
        "chaos run: seed "
            + options.seed()
            + ", "
            + plan.faults().size()
            + " faults over "
            + plan.lifecycles()
            + " lifecycles, cluster in "
            + options.dir());
    plan.faults().forEach(f -> log.accept("  plan " + f.describe()));
    ChaosCluster cluster =
        new ChaosCluster(
            new ClusterSpec(options.dir(), 2, 2, options.basePort(), options.kafkaPort()), log);
    List<FaultRecord> faults = Collections.synchronizedList(new ArrayList<>());
    List<LifecycleResult> lifecycles = new ArrayList<>();
    DaemonSupervisor daemon =
        new DaemonSupervisor(cluster, daemonArgs(), options.restartDelay(), log);
    Thread onInterrupt = new Thread(() -> stopAll(daemon, cluster), "chaos-shutdown");
    Runtime.getRuntime().addShutdownHook(onInterrupt);
    try {
      cluster.up();
      daemon.start();
      AdminEndpoint admin = new AdminEndpoint(options.dir());
      awaitHealthAnswers(admin);
      FaultInjector injector =
          new FaultInjector(
              cluster, daemon, options.restartDelay(), options.pause(), options.lockHold(), log);
      ChaosEnv env = new ChaosEnv(options, cluster, daemon, admin, injector, log, start);
      for (int n = 1; n <= plan.lifecycles(); n++) {
        if (n > 1) {
          // one keyspace shard per server (DESIGN 2): the finished keyspace's captures of the
          // spares, which the daemon keeps, would share each spare's capture server id with the
          // next keyspace's and push each other off the binlog; a restart takes up no finished
          // workflow, so none of them runs on
          daemon.restart("between lifecycles " + (n - 1) + " and " + n);
          awaitHealthAnswers(admin);
        }
        ChaosKeyspace ks = ChaosKeyspace.of(n, cluster.descriptor());
        lifecycles.add(new LifecycleDriver(env, ks, plan, faults).run());
      }
    } finally {
      Runtime.getRuntime().removeShutdownHook(onInterrupt);
      stopAll(daemon, cluster);
    }
    ChaosReport report =
        new ChaosReport(
            options,
            plan,
            faults,
            lifecycles,
            daemon.unexpectedExits(),
            (System.nanoTime() - start) / 1_000_000_000);
    report.write(options.out());
    return report;
  }

  /**
   * Stops the supervisor and the daemon, then the cluster unless {@code --keep}: at the end, and on
   * Ctrl-C or SIGTERM (the servers run in sessions of their own and would outlive this JVM).
   */
  private void stopAll(DaemonSupervisor daemon, ChaosCluster cluster) {
    try {
      daemon.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (!options.keep()) {
      try {
        cluster.down();
      } catch (RuntimeException e) {
        out.println(
            "could not stop the cluster: "
                + e.getMessage()
                + "; run `reshard cluster down"
                + " --dir "
                + options.dir()
                + "`");
      }
    }
  }

  private List<String> daemonArgs() {
    List<String> args = new ArrayList<>();
    for (String s : DAEMON_DEFAULTS) {
      args.add("--set");
      args.add(s);
    }
    for (String s : options.daemonSettings()) {
      args.add("--set");
      args.add(s);
    }
    return args;
  }

  private static void awaitHealthAnswers(AdminEndpoint admin) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (admin.get("/health").isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "the daemon's /health did not answer within 2 min; see daemon.log");
      }
      Thread.sleep(200);
    }
  }

  /** Lines with the time of day and the seconds since the start, to {@link #out} and a file. */
  private Consumer<String> log(long start, Path file) {
    return line -> {
      String text =
          String.format(
              "%s %7.1fs %s",
              LocalTime.now().format(CLOCK), (System.nanoTime() - start) / 1e9, line);
      synchronized (this) {
        out.println(text);
        out.flush();
        try {
          Files.writeString(
              file,
              text + "\n",
              StandardCharsets.UTF_8,
              StandardOpenOption.CREATE,
              StandardOpenOption.APPEND);
        } catch (IOException e) {
          // the same line is on standard output
        }
      }
    };
  }
}
