package io.reshard.cli;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.Flavor;
import io.reshard.cluster.LocalCluster;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code reshard cluster up|status|down}: the local cluster of MariaDB shards and Kafka. */
@Command(
    name = "cluster",
    description = "Start, inspect and stop a local cluster of MariaDB shards and a Kafka broker.",
    mixinStandardHelpOptions = true,
    subcommands = {ClusterCommand.Up.class, ClusterCommand.Status.class, ClusterCommand.Down.class})
final class ClusterCommand {

  /** {@code cluster up}. */
  @Command(
      name = "up",
      mixinStandardHelpOptions = true,
      description = {
        "Start N+M MariaDB servers and one Kafka broker (KRaft) under DIR and write DIR/cluster.json.",
        "Processes still running are reused; on a DIR left by a killed run, servers restart on"
            + " their data.",
        "root connects over TCP on 127.0.0.1 without a password: a local development default."
      })
  static final class Up implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", required = true, description = "Cluster directory.")
    Path dir;

    @Option(names = "--shards", required = true, description = "Servers with the role shard.")
    int shards;

    @Option(
        names = "--spares",
        defaultValue = "0",
        description =
            "Servers with the role spare (targets of a reshard). Default: ${DEFAULT-VALUE}.")
    int spares;

    @Option(
        names = "--base-port",
        defaultValue = "" + ClusterSpec.DEFAULT_MARIADB_BASE_PORT,
        description =
            "First MariaDB port; servers use consecutive ports. Default: ${DEFAULT-VALUE}.")
    int basePort;

    @Option(
        names = "--kafka-port",
        defaultValue = "" + ClusterSpec.DEFAULT_KAFKA_PORT,
        description =
            "Kafka client port; the controller uses the next one. Default: ${DEFAULT-VALUE}.")
    int kafkaPort;

    @Option(
        names = "--flavor",
        defaultValue = "mariadb",
        description =
            "Server program: mariadb (the machine's mariadbd) or mysql (MySQL 8.0.31 from its"
                + " Maven artifact). Recorded in cluster.json. Default: ${DEFAULT-VALUE}.")
    String flavor;

    @Override
    public Integer call() {
      long t0 = System.nanoTime();
      ClusterSpec cs =
          new ClusterSpec(dir, shards, spares, basePort, kafkaPort, Flavor.parse(flavor));
      ClusterDescriptor d = LocalCluster.up(cs, line -> spec.commandLine().getOut().println(line));
      spec.commandLine()
          .getOut()
          .printf(
              "cluster ready in %.1f s: %d %s servers, Kafka at %s; descriptor %s%n",
              (System.nanoTime() - t0) / 1e9,
              d.mariadb().size(),
              cs.flavor() == Flavor.MYSQL ? "MySQL " + "8.0.31" : "MariaDB",
              d.kafka().bootstrap(),
              cs.dir().resolve(ClusterDescriptor.FILE_NAME));
      return ExitCodes.OK;
    }
  }

  /** {@code cluster status}. */
  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "Report each process of the cluster: up or down, pid, port. Exit 0 if all are up.")
  static final class Status implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", required = true, description = "Cluster directory.")
    Path dir;

    @Override
    public Integer call() {
      List<LocalCluster.ProcessStatus> all = LocalCluster.status(dir);
      all.forEach(s -> spec.commandLine().getOut().println(s.summary()));
      return all.stream().allMatch(LocalCluster.ProcessStatus::up) ? ExitCodes.OK : ExitCodes.ERROR;
    }
  }

  /** {@code cluster down}. */
  @Command(
      name = "down",
      mixinStandardHelpOptions = true,
      description =
          "Stop exactly the processes the cluster started, by pid (SIGTERM, SIGKILL after 60 s),"
              + " and return once each has exited. Data stays in DIR.")
  static final class Down implements Callable<Integer> {
    @Spec picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--dir", required = true, description = "Cluster directory.")
    Path dir;

    @Override
    public Integer call() {
      LocalCluster.down(dir).forEach(spec.commandLine().getOut()::println);
      return ExitCodes.OK;
    }
  }
}
