package io.reshard.cli;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.daemon.ServerDirectory;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyRangePartition;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.KeyspaceInitPhase;
import io.reshard.switcher.SetVSchemaPhase;
import io.reshard.switcher.ShardServer;
import io.reshard.switcher.SwitchRefusedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code reshard keyspace init}: version 1 of a keyspace's shard map for shards holding data; and
 * {@code reshard keyspace set-vschema}: a new version with another vschema. Each parses, places the
 * shards, runs its phase ({@link KeyspaceInitPhase}, {@link SetVSchemaPhase}) and prints the map.
 */
@Command(
    name = "keyspace",
    mixinStandardHelpOptions = true,
    description = "Keyspace commands.",
    subcommands = {KeyspaceCommand.Init.class, KeyspaceCommand.SetVSchema.class})
final class KeyspaceCommand {

  /** {@code keyspace init}. */
  @Command(
      name = "init",
      mixinStandardHelpOptions = true,
      description = {
        "Publish version 1 of a keyspace's shard map for shards that already hold its data:"
            + " creates the _reshard tables and each shard's fence row (epoch 1, writable) on its"
            + " server, then publishes the map. Refused (exit 3, every reason at once, nothing"
            + " written) if the keyspace has a map already (replace its vschema with `keyspace"
            + " set-vschema`), its name is not 1 to 64 ASCII letters, digits and '_', a server"
            + " lacks its database, or the vschema does not fit the servers' tables: a missing"
            + " table or column, a vindex type that cannot map its column, a missing lookup table,"
            + " or rows whose sharding key is NULL or unmappable.",
        "An unsharded vschema (a keyspace of sequences) is published with its one shard, -, on"
            + " one server (--shards=- --servers=dbN), without a fence row; every table it"
            + " declares must exist there.",
        "With --cluster DIR the shards are the cluster's shard servers in order (or --servers);"
            + " the keyspace is the database of that name on each. With --config FILE each shard's"
            + " server is its shards[] entry (keyspace, shard).",
        "Shard names that begin with '-' are written --shards=-80,80- (a single shard: --shards=-)."
      })
  static final class Init implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Mixin ClusterTarget target;

    @Option(names = "--keyspace", required = true, description = "The keyspace (database) name.")
    String keyspace;

    @Option(names = "--vschema", required = true, description = "The keyspace's vschema (JSON).")
    Path vschemaFile;

    @Option(
        names = "--shards",
        required = true,
        split = ",",
        description = "The shards, covering the whole key range: --shards=-40,40-80,80-c0,c0-")
    List<String> shards;

    @Option(
        names = "--servers",
        split = ",",
        description =
            "With --cluster: the servers of the shards, in order (default: the shard servers).")
    List<String> servers;

    @Override
    public Integer call() throws Exception {
      VSchema vschema = readVSchema(spec, vschemaFile);
      List<KeyRange> ranges = parseShards();
      List<ShardServer> placed = place(ranges);
      ShardMapTopicConfig topic =
          ShardMapTopicConfig.builder()
              .bootstrapServers(target.bootstrap())
              .topic(target.shardmapsTopic())
              .build();
      ShardMap v1;
      try {
        v1 = new KeyspaceInitPhase(keyspace, vschema, placed, topic).run();
      } catch (SwitchRefusedException e) {
        throw new CommandFailure(ExitCodes.REFUSED, e.getMessage());
      }
      print(v1, placed);
      return ExitCodes.OK;
    }

    private void print(ShardMap v1, List<ShardServer> placed) throws IOException {
      PrintWriter out = spec.commandLine().getOut();
      if (target.json()) {
        out.println(v1.toJson());
      } else {
        out.println("keyspace " + keyspace + ": shard map version 1 published");
        for (ShardServer s : placed) {
          out.printf("  %-8s on %-22s epoch 1, reads and writes%n", s.shard(), s.endpointRef());
        }
      }
      out.flush();
    }

    private List<KeyRange> parseShards() {
      try {
        List<KeyRange> ranges = shards.stream().map(String::strip).map(KeyRange::parse).toList();
        KeyRangePartition.of(ranges); // must cover the whole range without overlap
        return ranges;
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--shards " + String.join(",", shards) + ": " + e.getMessage());
      }
    }

    private List<ShardServer> place(List<KeyRange> ranges) {
      List<ShardServer> placed = new ArrayList<>();
      var directory = target.servers();
      if (target.clusterDir() != null) {
        ClusterDescriptor c = target.cluster();
        List<String> names =
            servers != null
                ? servers
                : c.shards().stream().map(ClusterDescriptor.Server::name).toList();
        if (names.size() < ranges.size()) {
          throw new CommandLine.ParameterException(
              spec.commandLine(),
              PlanReport.count(ranges.size(), "shard")
                  + " but only "
                  + PlanReport.count(names.size(), "server")
                  + " "
                  + names
                  + "; name more with --servers");
        }
        for (int i = 0; i < ranges.size(); i++) {
          placed.add(directory.server(names.get(i), ranges.get(i).name()));
        }
      } else {
        for (KeyRange r : ranges) {
          String name =
              directory.defaultTargets(keyspace, List.of(r.name()), java.util.Set.of()).get(0);
          placed.add(directory.server(name, r.name()));
        }
      }
      return placed;
    }
  }

  /** {@code keyspace set-vschema}. */
  @Command(
      name = "set-vschema",
      mixinStandardHelpOptions = true,
      description = {
        "Replace a keyspace's vschema: publishes the next version of its shard map with the same"
            + " shards, servers and epochs and the new vschema, through the keyspace's fenced"
            + " publisher; routers pick it up with that version. Rows are not moved.",
        "Checked first against the server of every shard in the map, as keyspace init checks:"
            + " every table and column exists, each vindex type maps its column, the vschema is"
            + " sharded, lookup tables exist, and no row's sharding key is NULL or unmappable."
            + " Refused (exit 3, every reason at once, nothing written) while a workflow of the"
            + " keyspace is unfinished, read from the workflows topic as the daemon keeps it.",
        "With --cluster DIR the shards' servers are the cluster's; with --config FILE its"
            + " shards[] entries. A vschema equal to the current one publishes nothing (exit 0)."
      })
  static final class SetVSchema implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Mixin ClusterTarget target;

    @Option(names = "--keyspace", required = true, description = "The keyspace (database) name.")
    String keyspace;

    @Option(
        names = "--vschema",
        required = true,
        description = "The keyspace's new vschema (JSON).")
    Path vschemaFile;

    @Override
    public Integer call() throws Exception {
      VSchema vschema = readVSchema(spec, vschemaFile);
      ShardMapTopicConfig topic =
          ShardMapTopicConfig.builder()
              .bootstrapServers(target.bootstrap())
              .topic(target.shardmapsTopic())
              .build();
      ServerDirectory servers = target.servers();
      SetVSchemaPhase.Result result;
      try (KafkaWorkflowStore workflows =
          KafkaWorkflowStore.open(target.bootstrap(), workflowsTopic())) {
        result = new SetVSchemaPhase(keyspace, vschema, topic, workflows, servers::server).run();
      } catch (SwitchRefusedException e) {
        throw new CommandFailure(ExitCodes.REFUSED, e.getMessage());
      }
      print(result);
      return ExitCodes.OK;
    }

    /** The workflows topic the daemon of this cluster or configuration keeps. */
    private String workflowsTopic() {
      return target.clusterDir() != null
          ? KafkaWorkflowStore.DEFAULT_TOPIC
          : target.config().workflowsTopic();
    }

    private void print(SetVSchemaPhase.Result result) {
      PrintWriter out = spec.commandLine().getOut();
      ShardMap map = result.map();
      if (target.json()) {
        out.println(map.toJson());
      } else if (result.published()) {
        out.println(
            "keyspace "
                + keyspace
                + ": shard map version "
                + map.version()
                + " published with the new vschema; shards and epochs unchanged");
      } else {
        out.println(
            "keyspace "
                + keyspace
                + ": version "
                + map.version()
                + " has this vschema already; nothing published");
      }
      out.flush();
    }
  }

  /**
   * Reads and parses a vschema file.
   *
   * @throws CommandLine.ParameterException (exit 2) if it cannot be read or is not a vschema
   */
  static VSchema readVSchema(CommandLine.Model.CommandSpec spec, Path file) {
    try {
      return VSchema.parse(Files.readString(file, StandardCharsets.UTF_8));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--vschema " + file + ": no such file");
    } catch (IOException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--vschema: cannot read " + file + ": " + e);
    } catch (RuntimeException e) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--vschema " + file + ": " + e.getMessage());
    }
  }

  private KeyspaceCommand() {}
}
