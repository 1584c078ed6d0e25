package io.reshard.cli;

import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.LocalCluster;
import io.reshard.daemon.DaemonConfig;
import io.reshard.daemon.ServerDirectory;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Where an operator command finds the cluster: a local cluster directory ({@code --cluster DIR}) or
 * the daemon's configuration file ({@code --config FILE}), and how it prints ({@code --output
 * text|json}). A picocli mixin shared by {@code keyspace}, {@code workflow} and {@code shardmap}.
 */
final class ClusterTarget {

  /** Exactly one of the two. */
  static final class Source {
    @Option(names = "--cluster", required = true, description = "A local cluster directory.")
    Path cluster;

    @Option(names = "--config", required = true, description = "The daemon's YAML configuration.")
    Path config;
  }

  /** How results are printed. */
  enum Output {
    text,
    json
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Source source;

  @Option(
      names = "--output",
      defaultValue = "text",
      description =
          "text or json: json puts exactly one JSON document on standard output (logs and"
              + " progress go to standard error). Default: ${DEFAULT-VALUE}.")
  Output output;

  boolean json() {
    return output == Output.json;
  }

  /** The local cluster directory, or null with {@code --config}. */
  Path clusterDir() {
    return source.cluster == null ? null : source.cluster.toAbsolutePath().normalize();
  }

  /** The option that names this target, to repeat in a hint: {@code --cluster DIR} or similar. */
  String option() {
    return clusterDir() != null ? "--cluster " + clusterDir() : "--config " + source.config;
  }

  /** The cluster's descriptor. */
  ClusterDescriptor cluster() {
    return LocalCluster.require(clusterDir());
  }

  /** The daemon configuration of {@code --config}, validated (every problem at once, exit 2). */
  DaemonConfig config() {
    return DaemonConfig.load(source.config, List.of());
  }

  /** Kafka bootstrap servers. */
  String bootstrap() {
    return clusterDir() != null ? cluster().kafka().bootstrap() : config().bootstrapServers();
  }

  /** The shard map topic. */
  String shardmapsTopic() {
    return clusterDir() != null
        ? io.reshard.router.ShardMapTopic.DEFAULT_NAME
        : config().shardmapsTopic();
  }

  /** The servers shards may live on. */
  ServerDirectory servers() {
    return clusterDir() != null
        ? ServerDirectory.forCluster(cluster())
        : ServerDirectory.forConfig(config());
  }

  /**
   * The daemon's admin endpoint and token. With {@code --cluster} the cluster's daemon is started
   * in the background first if it does not run.
   *
   * @throws CommandFailure if it cannot be reached or started
   */
  AdminClient admin(PrintWriter err) throws InterruptedException {
    if (clusterDir() == null) {
      DaemonConfig c = config();
      if (c.adminToken().isEmpty()) {
        throw new CommandFailure(
            ExitCodes.REFUSED,
            "the configuration has no admin.token: workflow commands need it to reach the daemon");
      }
      String host = c.adminBind().equals("0.0.0.0") ? "127.0.0.1" : c.adminBind();
      return new AdminClient(
          URI.create("http://" + host + ":" + c.adminPort()), c.adminToken().reveal());
    }
    Path dir = clusterDir();
    cluster(); // refuses a directory without a cluster
    Optional<ClusterDescriptor.DaemonProcess> running = ClusterDaemon.running(dir);
    if (running.isEmpty()) {
      List<String> down =
          LocalCluster.status(dir).stream()
              .filter(p -> !p.up() && !"daemon".equals(p.role()))
              .map(LocalCluster.ProcessStatus::name)
              .toList();
      if (!down.isEmpty()) {
        throw new CommandFailure(
            ExitCodes.REFUSED,
            "the local cluster in "
                + dir
                + " is not running ("
                + String.join(", ", down)
                + " down); start it with `reshard cluster up --dir "
                + dir
                + "`, then run this again");
      }
      err.println(
          "starting the cluster's daemon in the background (log "
              + dir.resolve(ClusterDaemon.LOG_FILE)
              + ")");
      err.flush();
      err.println(
          new DaemonLauncher(dir).launch(DaemonLauncher.clusterCommand(dir, List.of())).summary());
      err.flush();
      running = ClusterDaemon.running(dir);
    }
    String admin =
        running
            .orElseThrow(() -> new CommandFailure(ExitCodes.ERROR, "the daemon is not recorded"))
            .admin();
    Path tokenFile = dir.resolve(DaemonCommand.TOKEN_FILE);
    try {
      return new AdminClient(
          URI.create(admin), Files.readString(tokenFile, StandardCharsets.UTF_8).strip());
    } catch (java.io.IOException e) {
      throw new CommandFailure(
          ExitCodes.REFUSED, "cannot read the admin token " + tokenFile + ": " + e.getMessage());
    }
  }
}
