package io.reshard.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.LocalCluster;
import io.reshard.daemon.Daemon;
import io.reshard.daemon.DaemonConfig;
import io.reshard.daemon.ServerDirectory;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code reshard daemon}: runs the pipeline daemon in the foreground until SIGTERM or Ctrl-C, from
 * a YAML file ({@code --config}) or from a local cluster ({@code --cluster}); {@code --background}
 * starts it detached; {@code reshard daemon stop --cluster DIR} stops it.
 */
@Command(
    name = "daemon",
    mixinStandardHelpOptions = true,
    description = {
      "Run the pipeline daemon: capture of every configured source shard, the admin endpoint"
          + " (GET /health, /workflows, /metrics; POST /workflows/NAME/actions/ACTION with the"
          + " admin token), and the workflow runners: every stored workflow is taken up at start."
          + " Runs until SIGTERM or Ctrl-C.",
      "With --config FILE it reads a YAML file; with --cluster DIR every shard server of the local"
          + " cluster becomes a source shard of --keyspace (if given), the admin endpoint takes a free port,"
          + " the admin token is DIR/daemon.token (created if missing), and DIR/cluster.json"
          + " records the daemon so that `cluster down` stops it too.",
      "--set KEY=VALUE overrides any key (repeatable); --admin-port and --admin-bind too.",
      "A secret may be written $${env:NAME} or $${file:PATH} to keep it off the command line."
    },
    subcommands = {DaemonCommand.Stop.class})
final class DaemonCommand implements Callable<Integer> {
  /** The admin token file of a cluster's daemon, inside the cluster directory. */
  static final String TOKEN_FILE = "daemon.token";

  private static final ObjectMapper JSON = new ObjectMapper();

  @Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--config", description = "YAML configuration file.")
  Path config;

  @Option(names = "--cluster", description = "A local cluster directory (instead of --config).")
  Path cluster;

  @Option(
      names = "--keyspace",
      description =
          "With --cluster: capture every shard of this keyspace from the start (optional: the"
              + " workflows start the captures they need).")
  String keyspace;

  @Option(
      names = "--shards",
      split = ",",
      description =
          "With --cluster: one shard name per shard server, in order (write --shards=-40,40-80,...);"
              + " default: the even split.")
  List<String> shardNames;

  @Option(names = "--set", description = "KEY=VALUE: override a configuration key (repeatable).")
  List<String> sets = new ArrayList<>();

  @Option(names = "--admin-port", description = "Same as --set admin.port=N (0: any free port).")
  Integer adminPort;

  @Option(names = "--admin-bind", description = "Same as --set admin.bind=ADDRESS.")
  String adminBind;

  @Option(
      names = "--background",
      description =
          "With --cluster: start detached (log in DIR/daemon.log) and return once /health"
              + " answers.")
  boolean background;

  @Option(
      names = "--check",
      description = "Validate the configuration, print it (secrets hidden) and exit.")
  boolean check;

  @Option(
      names = "--output",
      defaultValue = "text",
      description =
          "text or json: json puts exactly one JSON document on standard output: the"
              + " configuration with --check, the started daemon, or {error, exit_code}."
              + " Default: ${DEFAULT-VALUE}.")
  ClusterTarget.Output output;

  @Override
  public Integer call() throws Exception {
    requireOneSource();
    DaemonConfig cfg = configuration();
    PrintWriter out = spec.commandLine().getOut();
    if (check) {
      printCheck(cfg, out);
      return ExitCodes.OK;
    }
    if (cluster != null) {
      ClusterDaemon.running(cluster).ifPresent(this::refuseSecondDaemon);
    }
    if (background) {
      DaemonLauncher.Started d =
          new DaemonLauncher(cluster.toAbsolutePath().normalize()).launch(childCommand());
      printStarted(out, d.pid(), d.admin(), d.log());
      return ExitCodes.OK;
    }
    return runForeground(cfg, out);
  }

  private boolean json() {
    return output == ClusterTarget.Output.json;
  }

  /** {@code --check}: one {@code key = value} line per key, or one JSON object of them. */
  private void printCheck(DaemonConfig cfg, PrintWriter out) {
    if (json()) {
      ObjectNode doc = JSON.createObjectNode();
      for (String line : cfg.describe()) {
        int eq = line.indexOf(" = ");
        doc.put(line.substring(0, eq), line.substring(eq + 3));
      }
      out.println(doc.toString());
    } else {
      cfg.describe().forEach(out::println);
    }
    out.flush();
  }

  /**
   * The line that says the daemon runs, or its JSON form; {@code log} is null in the foreground.
   */
  private void printStarted(PrintWriter out, long pid, String admin, Path log) {
    if (json()) {
      ObjectNode doc = JSON.createObjectNode().put("pid", pid).put("admin_endpoint", admin);
      if (log != null) {
        doc.put("log", log.toString());
      }
      out.println(doc.toString());
    } else if (log != null) {
      out.println(new DaemonLauncher.Started(pid, admin, log).summary());
    } else {
      out.println("reshard daemon: pid " + pid + ", admin endpoint " + admin);
    }
    out.flush();
  }

  private void refuseSecondDaemon(ClusterDescriptor.DaemonProcess running) {
    throw new CommandFailure(
        ExitCodes.REFUSED,
        "a daemon already runs for "
            + cluster
            + " (pid "
            + running.pid()
            + ", "
            + running.admin()
            + "); stop it with `reshard daemon stop --cluster "
            + cluster
            + "`");
  }

  private void requireOneSource() {
    if ((config == null) == (cluster == null)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "give exactly one of --config FILE and --cluster DIR");
    }
    if (cluster != null && keyspace == null && shardNames != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--shards needs --keyspace");
    }
    if (cluster == null && (keyspace != null || shardNames != null || background)) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--keyspace, --shards and --background go with --cluster");
    }
  }

  private DaemonConfig configuration() {
    List<String> overrides = new ArrayList<>();
    if (cluster != null && sets.stream().noneMatch(s -> s.strip().startsWith("admin.token="))) {
      Path token =
          DaemonLauncher.ensureToken(cluster.toAbsolutePath().normalize().resolve(TOKEN_FILE));
      overrides.add("admin.token=${file:" + token + "}");
    }
    overrides.addAll(sets);
    if (adminPort != null) {
      overrides.add("admin.port=" + adminPort);
    }
    if (adminBind != null) {
      overrides.add("admin.bind=" + adminBind);
    }
    if (cluster != null) {
      return DaemonConfig.forCluster(
          LocalCluster.require(cluster), keyspace, shardNames, overrides);
    }
    return DaemonConfig.load(config, overrides);
  }

  private int runForeground(DaemonConfig cfg, PrintWriter out) throws InterruptedException {
    Daemon daemon =
        Daemon.builder(cfg)
            .workflows(
                cluster != null
                    ? ServerDirectory.forCluster(LocalCluster.require(cluster))
                    : ServerDirectory.forConfig(cfg))
            .build();
    long pid = ProcessHandle.current().pid();
    Path dir = cluster == null ? null : cluster.toAbsolutePath().normalize();
    // Registered before start: a SIGTERM during start waits for it, then stops what started.
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  daemon.stop();
                  if (dir != null) {
                    ClusterDaemon.clear(dir, pid);
                  }
                },
                "daemon-shutdown"));
    daemon.start();
    if (dir != null) {
      ClusterDaemon.record(dir, pid, daemon.adminEndpoint().toString());
    }
    printStarted(out, pid, daemon.adminEndpoint().toString(), null);
    daemon.awaitStopped();
    return ExitCodes.OK;
  }

  /** This command line for the detached child: the same options without --background. */
  private List<String> childCommand() {
    List<String> args = new ArrayList<>();
    if (keyspace != null) {
      args.add("--keyspace");
      args.add(keyspace);
    }
    if (shardNames != null) {
      args.add("--shards=" + String.join(",", shardNames));
    }
    for (String s : sets) {
      args.add("--set");
      args.add(s);
    }
    if (adminPort != null) {
      args.add("--admin-port=" + adminPort);
    }
    if (adminBind != null) {
      args.add("--admin-bind=" + adminBind);
    }
    return DaemonLauncher.clusterCommand(cluster, args);
  }

  /** {@code daemon stop}. */
  @Command(
      name = "stop",
      mixinStandardHelpOptions = true,
      description =
          "Stop the daemon recorded in DIR/cluster.json (SIGTERM, SIGKILL after 60 s) and wait until"
              + " it has exited; `cluster down` does the same before stopping the servers.")
  static final class Stop implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--cluster", required = true, description = "A local cluster directory.")
    Path cluster;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      out.println(ClusterDaemon.stop(cluster).orElse("daemon not recorded for " + cluster));
      out.flush();
      return ExitCodes.OK;
    }
  }
}
