package io.reshard.cli;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.LocalCluster;
import io.reshard.cluster.SmokeCheck;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code reshard demo}: the README's main job on the embedded default.
 *
 * <p>Until the full experiment (issue 7) is built, it brings up the demo's local cluster (4 shards
 * and 2 spares plus Kafka), runs {@link SmokeCheck} against it, prints the result, and brings the
 * cluster down unless {@code --keep}.
 */
@Command(
    name = "demo",
    mixinStandardHelpOptions = true,
    description = {
      "Run the main job on a local cluster that it starts and stops itself.",
      "Today this is the foundation smoke check: 4 shards + 2 spares + Kafka come up, every server"
          + " logs a row write under its own GTID domain, a Kafka transaction commits and an"
          + " aborted one stays hidden. The full reshard experiment is not built yet."
    })
final class SmokeCommand implements Callable<Integer> {
  @Spec picocli.CommandLine.Model.CommandSpec spec;

  @Option(names = "--dir", description = "Cluster directory. Default: a new temporary directory.")
  Path dir;

  @Option(names = "--keep", description = "Leave the cluster running at the end.")
  boolean keep;

  @Option(
      names = "--base-port",
      defaultValue = "" + ClusterSpec.DEFAULT_MARIADB_BASE_PORT,
      description = "First MariaDB port. Default: ${DEFAULT-VALUE}.")
  int basePort;

  @Option(
      names = "--kafka-port",
      defaultValue = "" + ClusterSpec.DEFAULT_KAFKA_PORT,
      description = "Kafka client port. Default: ${DEFAULT-VALUE}.")
  int kafkaPort;

  @Override
  public Integer call() throws IOException {
    PrintWriter out = spec.commandLine().getOut();
    Path clusterDir = dir != null ? dir : Files.createTempDirectory("reshard-demo-");
    ClusterSpec cs = new ClusterSpec(clusterDir, 4, 2, basePort, kafkaPort);
    out.println("phase 1/3 starting the local cluster in " + cs.dir());
    long t0 = System.nanoTime();
    ClusterDescriptor d = LocalCluster.up(cs, out::println);
    out.printf("cluster ready in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    boolean ok = false;
    try {
      out.println("phase 2/3 smoke check");
      SmokeCheck.Result r = SmokeCheck.run(d);
      r.serverLines().forEach(l -> out.println("  " + l));
      out.printf(
          "  kafka: read_committed consumer saw %d of 3 committed records and %d of 2 aborted%n",
          r.committedSeen(), r.abortedSeen());
      ok = r.ok();
    } finally {
      if (keep) {
        out.println(
            "phase 3/3 leaving the cluster running: reshard cluster down --dir " + cs.dir());
      } else {
        out.println("phase 3/3 stopping the cluster");
        LocalCluster.down(cs.dir()).forEach(l -> out.println("  " + l));
      }
    }
    out.println(ok ? "smoke check passed" : "smoke check FAILED");
    return ok ? ExitCodes.OK : ExitCodes.VERIFICATION_FAILED;
  }
}
