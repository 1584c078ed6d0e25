package io.reshard.cli;

import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code reshard shardmap show|history}: a keyspace's shard map, as routers see it. */
@Command(
    name = "shardmap",
    mixinStandardHelpOptions = true,
    description = "Show a keyspace's shard map (read from the shard map topic).",
    subcommands = {ShardMapCommand.Show.class, ShardMapCommand.History.class})
final class ShardMapCommand {
  private ShardMapCommand() {}

  /** Shared options. */
  abstract static class Base implements Callable<Integer> {
    @Spec CommandLine.Model.CommandSpec spec;

    @Mixin ClusterTarget target;

    @Option(names = "--keyspace", required = true, description = "The keyspace.")
    String keyspace;

    List<ShardMap> versions() {
      List<ShardMap> all =
          ShardMapTopic.history(
              ShardMapTopicConfig.builder()
                  .bootstrapServers(target.bootstrap())
                  .topic(target.shardmapsTopic())
                  .build(),
              keyspace);
      if (all.isEmpty()) {
        throw new CommandFailure(
            ExitCodes.REFUSED,
            "keyspace " + keyspace + " has no shard map; publish one with `reshard keyspace init`");
      }
      return all;
    }

    static void printText(PrintWriter out, ShardMap m) {
      out.println("keyspace " + m.keyspace() + " version " + m.version());
      out.printf("  %-8s %-22s %5s %5s %6s%n", "shard", "endpoint", "epoch", "reads", "writes");
      for (Shard s : m.shards()) {
        out.printf(
            "  %-8s %-22s %5d %5s %6s%n",
            s.name(),
            s.endpoint(),
            s.epoch(),
            s.servesReads() ? "yes" : "-",
            s.servesWrites() ? "yes" : "-");
      }
    }
  }

  /** {@code shardmap show}. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description = "The newest version of the keyspace's shard map.")
  static final class Show extends Base {
    @Override
    public Integer call() {
      List<ShardMap> all = versions();
      ShardMap newest = all.get(all.size() - 1);
      PrintWriter out = spec.commandLine().getOut();
      if (target.json()) {
        out.println(newest.toJson());
      } else {
        printText(out, newest);
      }
      out.flush();
      return ExitCodes.OK;
    }
  }

  /** {@code shardmap history}. */
  @Command(
      name = "history",
      mixinStandardHelpOptions = true,
      description = "Every version of the keyspace's shard map, oldest first.")
  static final class History extends Base {
    @Override
    public Integer call() {
      List<ShardMap> all = versions();
      PrintWriter out = spec.commandLine().getOut();
      if (target.json()) {
        out.println("[" + String.join(",", all.stream().map(ShardMap::toJson).toList()) + "]");
      } else {
        all.forEach(m -> printText(out, m));
      }
      out.flush();
      return ExitCodes.OK;
    }
  }
}
