package io.reshard.cli;

import io.reshard.daemon.ServerDirectory;
import io.reshard.router.KeyRange;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.switcher.KeyDistribution;
import io.reshard.switcher.KeyDistributionSampler;
import io.reshard.switcher.RangePlan;
import io.reshard.switcher.RangePlanner;
import io.reshard.switcher.ShardServer;
import io.reshard.switcher.SwitchRefusedException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code reshard plan}: proposes target ranges for a reshard from the real key distribution. Reads
 * the keyspace's newest shard map (its vschema and the shards serving reads), samples each table's
 * sharding keys on each shard's server ({@link KeyDistributionSampler}), cuts the sample into
 * ranges ({@link RangePlanner}) and prints them with their expected shares beside the even split's,
 * or with {@code --print-targets} only the {@code --targets} list for {@code workflow create}.
 *
 * <p>Exit codes: {@link ExitCodes#USAGE} for a bad option ({@code --shards} below 1, both or
 * neither of {@code --shards} and {@code --max-share}, a share outside (0, 1], a {@code --source}
 * that is not a shard of the map or not contiguous, a table not in the vschema); {@link
 * ExitCodes#REFUSED} when the keyspace has no shard map or is unsharded, no rows, fewer distinct
 * keyspace ids than ranges, or a keyspace id hotter than {@code --max-share}.
 */
@Command(
    name = "plan",
    mixinStandardHelpOptions = true,
    description = {
      "Propose target ranges for a reshard from the real key distribution: reads the sharding key"
          + " of each row (or of a random sample, --sample rows per table per shard) of every table"
          + " the vschema places, from each shard serving reads, computes its keyspace id with the"
          + " table's primary vindex, and cuts the keyspace (or the union of --source) into"
          + " contiguous ranges as even as the rows allow: --shards N ranges whose busiest range"
          + " holds as few rows as any cut gives, or the fewest ranges within --max-share.",
      "Prints each range with its rows and share, the busiest share beside the busiest share of"
          + " the even split on the same sample, and each keyspace id holding more than an even"
          + " share (no range can split one). --print-targets prints only the --targets list for"
          + " `reshard workflow create`. Reads only: nothing is written anywhere."
    })
final class PlanCommand implements Callable<Integer> {
  @Spec CommandLine.Model.CommandSpec spec;

  @Mixin ClusterTarget target;

  @Option(names = "--keyspace", required = true, description = "The keyspace.")
  String keyspace;

  /** How many ranges: a count, or the largest share one may hold. */
  static final class Size {
    @Option(
        names = "--shards",
        required = true,
        paramLabel = "N",
        description = "The number of target ranges, at least 1.")
    Integer shards;

    @Option(
        names = "--max-share",
        required = true,
        paramLabel = "P",
        description =
            "Instead of --shards: the fewest ranges none of which holds more than this share of"
                + " the rows, more than 0 and at most 1 (0.15 = 15%%).")
    Double maxShare;
  }

  @ArgGroup(exclusive = true, multiplicity = "1")
  Size size;

  @Option(
      names = "--source",
      split = ",",
      paramLabel = "SHARDS",
      description =
          "Plan only the union of these adjacent shards (as workflow create's --source), e.g."
              + " --source=-40,40-80. Default: the whole keyspace.")
  List<String> sources;

  @Option(
      names = "--tables",
      split = ",",
      description = "Plan by these tables' rows only. Default: every table of the vschema.")
  List<String> tables;

  @Option(
      names = "--sample",
      paramLabel = "ROWS",
      defaultValue = "" + KeyDistributionSampler.DEFAULT_SAMPLE_ROWS,
      description =
          "Rows read per table per shard at most: a larger table is read as a random sample of"
              + " about this many rows, each standing for its share of the table."
              + " Default: ${DEFAULT-VALUE}.")
  int sampleRows;

  @Option(
      names = "--print-targets",
      description =
          "Print only the comma-separated target ranges (for workflow create --targets=...); the"
              + " summary goes to standard error.")
  boolean printTargets;

  @Override
  public Integer call() throws Exception {
    checkOptions();
    ShardMap map = newestMap();
    KeyRange range = range(map);
    List<ShardServer> shards = servers(map, range);
    KeyDistributionSampler sampler;
    try {
      sampler =
          new KeyDistributionSampler(keyspace, map.vschema(), listOrEmpty(tables), sampleRows);
    } catch (IllegalArgumentException e) {
      throw usage("--tables: " + e.getMessage());
    }
    RangePlan plan;
    KeyDistribution d;
    try {
      d = sampler.sample(range, shards);
      if (d.points().isEmpty()) {
        throw new CommandFailure(ExitCodes.REFUSED, noRows(d, range));
      }
      plan =
          size.shards != null
              ? RangePlanner.plan(d, size.shards)
              : RangePlanner.planForMaxShare(d, size.maxShare);
    } catch (SwitchRefusedException e) {
      throw new CommandFailure(
          ExitCodes.REFUSED, "plan for keyspace " + keyspace + " refused: " + e.getMessage());
    }
    print(d, plan);
    return ExitCodes.OK;
  }

  /** The usage errors no server is needed to find. */
  private void checkOptions() {
    if (size.shards != null && size.shards < 1) {
      throw usage("--shards " + size.shards + ": the number of target ranges must be at least 1");
    }
    if (size.maxShare != null && !(size.maxShare > 0 && size.maxShare <= 1)) {
      throw usage(
          "--max-share "
              + size.maxShare
              + ": the largest share of one range must be more than 0 and at most 1 (0.15 = 15%)");
    }
    if (sampleRows < 1) {
      throw usage("--sample " + sampleRows + ": read at least 1 row per table per shard");
    }
    if (printTargets && target.json()) {
      throw usage(
          "--print-targets and --output json both choose what is printed: give one of them");
    }
  }

  private ShardMap newestMap() {
    List<ShardMap> history =
        ShardMapTopic.history(
            ShardMapTopicConfig.builder()
                .bootstrapServers(target.bootstrap())
                .topic(target.shardmapsTopic())
                .build(),
            keyspace);
    if (history.isEmpty()) {
      throw new CommandFailure(
          ExitCodes.REFUSED,
          "keyspace "
              + keyspace
              + " has no shard map, so its shards and vschema are unknown; check the name, or"
              + " publish its map with `reshard keyspace init`");
    }
    ShardMap map = history.get(history.size() - 1);
    if (!map.vschema().sharded()) {
      throw new CommandFailure(
          ExitCodes.REFUSED,
          "keyspace "
              + keyspace
              + " is unsharded (its vschema says so): it has one shard and nothing to plan");
    }
    return map;
  }

  /** The range planned: the keyspace, or the union of {@code --source}. */
  private KeyRange range(ShardMap map) {
    if (sources == null || sources.isEmpty()) {
      return KeyRange.FULL;
    }
    List<KeyRange> ranges = new ArrayList<>();
    for (String name : sources) {
      KeyRange r;
      try {
        r = KeyRange.parse(name.strip());
      } catch (IllegalArgumentException e) {
        throw usage("--source: " + e.getMessage());
      }
      if (map.shard(r).filter(Shard::servesReads).isEmpty()) {
        throw usage(
            "--source "
                + name
                + " is not a shard of keyspace "
                + keyspace
                + " that serves reads; its shards are "
                + String.join(",", readShards(map)));
      }
      ranges.add(r);
    }
    try {
      return KeyRange.mergeAll(ranges);
    } catch (IllegalArgumentException e) {
      throw usage("--source " + String.join(",", sources) + ": " + e.getMessage());
    }
  }

  /** The servers of the shards serving reads inside {@code range}. */
  private List<ShardServer> servers(ShardMap map, KeyRange range) {
    ServerDirectory directory = target.servers();
    List<ShardServer> out = new ArrayList<>();
    for (Shard s : map.shards()) {
      if (s.servesReads() && range.contains(s.range())) {
        try {
          out.add(directory.server(s.endpoint(), s.name()));
        } catch (IllegalArgumentException e) {
          throw new CommandFailure(
              ExitCodes.REFUSED,
              "shard "
                  + s.name()
                  + " is on server "
                  + s.endpoint()
                  + ", which "
                  + target.option()
                  + " does not name ("
                  + e.getMessage()
                  + ")");
        }
      }
    }
    return out;
  }

  private static List<String> readShards(ShardMap map) {
    return map.shards().stream().filter(Shard::servesReads).map(Shard::name).toList();
  }

  private String noRows(KeyDistribution d, KeyRange range) {
    List<String> skipped = PlanReport.notes(d);
    return "plan for keyspace "
        + keyspace
        + " refused: no rows to plan by in "
        + range.name()
        + " ("
        + PlanReport.count(
            d.tables().stream().map(KeyDistribution.TableSample::table).distinct().count(), "table")
        + " read on "
        + PlanReport.count(
            d.tables().stream().map(KeyDistribution.TableSample::shard).distinct().count(), "shard")
        + ", "
        + PlanReport.count(d.countedRows(), "row")
        + (skipped.isEmpty() ? "" : "; " + String.join("; ", skipped))
        + "); load the data first, or name the tables that hold it with --tables";
  }

  private void print(KeyDistribution d, RangePlan plan) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    PlanReport report = new PlanReport(keyspace, sampleRows, d, plan);
    if (target.json()) {
      out.println(report.json());
    } else if (printTargets) {
      err.println(report.busiestLine());
      err.flush();
      out.println(plan.targetsList());
    } else {
      report.printText(out);
    }
    out.flush();
  }

  private static List<String> listOrEmpty(List<String> l) {
    return l == null ? List.of() : l.stream().map(String::strip).toList();
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
