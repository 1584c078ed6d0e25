package io.reshard.demo;

import io.reshard.cli.ExitCodes;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.Flavor;
import io.reshard.cluster.LocalCluster;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code reshard demo}: the README's main job, on a local cluster it starts and stops itself. */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Split a shard under live traffic on a local cluster it starts and stops, and check it.",
      "",
      "The five-server experiment end to end: 4 shards + 2 spares + Kafka; keyspace chat loaded",
      "with Zipf-distributed channels; routing costs; credit transfers in multi and single mode;",
      "the online split of c0- into c0-e0 and e0- while an application writes and reads;",
      "end-state checks with plain SQL; skew. Prints one line per check (expected, measured,",
      "PASS/FAIL) and the lessons, writes the report as JSON (--out) and as HTML with charts",
      "beside it (demo.html). Exit 0 only if every check passes."
    })
public final class DemoCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--dir", description = "Cluster directory. Default: a new temporary directory.")
  Path dir;

  @Option(names = "--keep", description = "Leave the cluster running at the end.")
  boolean keep;

  @Option(
      names = "--scale",
      defaultValue = "1",
      description = "Multiplies the data and run lengths. Default: ${DEFAULT-VALUE}.")
  double scale;

  @Option(
      names = "--seed",
      defaultValue = "42",
      description = "Seed of the data and the traffic. Default: ${DEFAULT-VALUE}.")
  long seed;

  @Option(
      names = "--out",
      defaultValue = "results/demo.json",
      description = "The JSON report. Default: ${DEFAULT-VALUE}.")
  Path out;

  @Option(
      names = "--base-port",
      defaultValue = "" + ClusterSpec.DEFAULT_MARIADB_BASE_PORT,
      description = "First database server port. Default: ${DEFAULT-VALUE}.")
  int basePort;

  @Option(
      names = "--flavor",
      defaultValue = "mariadb",
      description =
          "The servers: mariadb (the machine's mariadbd) or mysql (MySQL 8.0.31 from Maven"
              + " Central). Default: ${DEFAULT-VALUE}.")
  String flavor;

  @Option(
      names = "--kafka-port",
      defaultValue = "" + ClusterSpec.DEFAULT_KAFKA_PORT,
      description = "Kafka client port. Default: ${DEFAULT-VALUE}.")
  int kafkaPort;

  @Override
  public Integer call() throws Exception {
    if (!(scale > 0 && scale <= 20)) { // also refuses NaN
      throw new IllegalArgumentException("--scale must lie in (0, 20], got " + scale);
    }
    Flavor servers = Flavor.parse(flavor);
    requireWritable(out);
    PrintWriter w = spec.commandLine().getOut();
    boolean ownDir = dir == null;
    Path clusterDir = ownDir ? Files.createTempDirectory("reshard-demo-") : dir;
    AtomicBoolean finished = new AtomicBoolean();
    Thread onInterrupt =
        new Thread(
            () -> {
              if (!finished.get() && !keep) { // Ctrl-C or SIGTERM: leave no server running
                System.err.println("demo interrupted: stopping its cluster in " + clusterDir);
                try {
                  LocalCluster.down(clusterDir);
                } catch (RuntimeException e) {
                  System.err.println(
                      "could not stop it: "
                          + e.getMessage()
                          + "; run `reshard cluster down --dir "
                          + clusterDir
                          + "`");
                }
              }
            },
            "demo-shutdown");
    Runtime.getRuntime().addShutdownHook(onInterrupt);
    long t0 = System.nanoTime();
    Map<String, Object> report;
    try {
      report =
          new Demo(w, scale, seed)
              .run(new ClusterSpec(clusterDir, 4, 2, basePort, kafkaPort, servers), keep, out);
    } finally {
      finished.set(true);
    }
    boolean ok = Boolean.TRUE.equals(report.get("ok"));
    if (ok && ownDir && !keep) {
      deleteTree(clusterDir); // the servers' data is only useful for looking into a failure
    } else if (!keep) {
      w.println("the cluster's data stays in " + clusterDir + " for inspection");
    }
    w.printf(
        "demo %s in %.0f s; report in %s%n",
        ok ? "passed" : "FAILED", (System.nanoTime() - t0) / 1e9, out.toAbsolutePath());
    return ok ? ExitCodes.OK : ExitCodes.VERIFICATION_FAILED;
  }

  /**
   * Refuses, before anything starts, a report path that cannot be written: it is tried for real.
   */
  private static void requireWritable(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      if (Files.exists(file)) {
        try (var ignored = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
          // writable
        }
      } else {
        Files.delete(Files.createFile(file));
      }
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "--out " + file + " cannot be written (" + e + "); choose another path");
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
