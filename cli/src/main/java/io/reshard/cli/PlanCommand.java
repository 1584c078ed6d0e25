package io.reshard.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.Locale;
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
  private static final ObjectMapper JSON = new ObjectMapper();

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
    List<String> skipped = notes(d);
    return "plan for keyspace "
        + keyspace
        + " refused: no rows to plan by in "
        + range.name()
        + " ("
        + count(
            d.tables().stream().map(KeyDistribution.TableSample::table).distinct().count(), "table")
        + " read on "
        + count(
            d.tables().stream().map(KeyDistribution.TableSample::shard).distinct().count(), "shard")
        + ", "
        + count(d.countedRows(), "row")
        + (skipped.isEmpty() ? "" : "; " + String.join("; ", skipped))
        + "); load the data first, or name the tables that hold it with --tables";
  }

  private void print(KeyDistribution d, RangePlan plan) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (target.json()) {
      out.println(json(d, plan));
    } else if (printTargets) {
      err.println(busiestLine(plan));
      err.flush();
      out.println(plan.targetsList());
    } else {
      printText(out, d, plan);
    }
    out.flush();
  }

  private void printText(PrintWriter out, KeyDistribution d, RangePlan plan) {
    out.println(
        "keyspace "
            + keyspace
            + ": "
            + plan.targets().size()
            + " ranges over "
            + plan.range().name()
            + ", "
            + sampleLine(d));
    out.printf("  %-24s %14s %7s %13s%n", "range", "rows", "share", "keyspace ids");
    for (RangePlan.Target t : plan.targets()) {
      out.printf(
          "  %-24s %14s %7s %13s%n",
          t.range().name(),
          rows(t.rows()),
          RangePlanner.percent(t.share()),
          String.format(Locale.ROOT, "%,d", t.keyspaceIds()));
    }
    out.println(busiestLine(plan));
    double even = 1.0 / plan.targets().size();
    for (RangePlan.HotKey h : plan.hotKeys()) {
      out.println(
          "hot keyspace id "
              + h.ksid()
              + (h.example() == null ? "" : " (" + h.example() + ")")
              + ": "
              + rows(h.rows())
              + " rows, "
              + RangePlanner.percent(h.share())
              + ", more than an even share ("
              + RangePlanner.percent(even)
              + "); no range can split one keyspace id");
    }
    for (String note : notes(d)) {
      out.println("not read: " + note);
    }
    out.println("targets: " + plan.targetsList());
  }

  /** {@code busiest share 12.6% (80-9c41); even split: 19.5% (20-40)}. */
  private static String busiestLine(RangePlan plan) {
    RangePlan.Target busiest = plan.busiest();
    RangePlan.Target even = plan.evenBusiest();
    return "busiest share: "
        + RangePlanner.percent(busiest.share())
        + " ("
        + busiest.range().name()
        + ", "
        + rows(busiest.rows())
        + " rows); the even split into "
        + plan.even().size()
        + " ("
        + (plan.even().size() <= 8
            ? String.join(",", plan.even().stream().map(t -> t.range().name()).toList())
            : plan.even().get(0).range().name() + ",...")
        + ") on the same sample: "
        + RangePlanner.percent(even.share())
        + " ("
        + even.range().name()
        + ", "
        + rows(even.rows())
        + " rows)";
  }

  /** {@code from 120,000 of 401,000 rows (3 tables on 5 shards, at most ... per table ...)}. */
  private String sampleLine(KeyDistribution d) {
    long tablesRead =
        d.tables().stream()
            .filter(t -> t.note() == null)
            .map(KeyDistribution.TableSample::table)
            .distinct()
            .count();
    long shardsRead =
        d.tables().stream().map(KeyDistribution.TableSample::shard).distinct().count();
    boolean whole = d.sampledRows() + d.skippedRows() == d.countedRows();
    return String.format(
        Locale.ROOT,
        "from %,d of %,d rows (%s on %s; %s, at most %,d rows per table per shard%s)",
        d.sampledRows(),
        d.countedRows(),
        count(tablesRead, "table"),
        count(shardsRead, "shard"),
        whole ? "every row read" : "sampled",
        sampleRows,
        d.skippedRows() == 0
            ? ""
            : String.format(
                Locale.ROOT, "; %,d rows read but not placed, not counted", d.skippedRows()));
  }

  /** {@code table seq on -80: a sequence table, ...}, once per table and reason. */
  private static List<String> notes(KeyDistribution d) {
    List<String> out = new ArrayList<>();
    for (KeyDistribution.TableSample t : d.tables()) {
      if (t.note() != null) {
        out.add("table " + t.table() + " on " + t.shard() + ": " + t.note());
      }
    }
    return out;
  }

  private String json(KeyDistribution d, RangePlan plan) {
    ObjectNode doc = JSON.createObjectNode();
    doc.put("keyspace", keyspace);
    doc.put("range", plan.range().name());
    ObjectNode sample = doc.putObject("sample");
    sample.put("rows_per_table_per_shard", sampleRows);
    sample.put("counted_rows", d.countedRows());
    sample.put("sampled_rows", d.sampledRows());
    sample.put("skipped_rows", d.skippedRows());
    ArrayNode tablesRead = sample.putArray("tables");
    for (KeyDistribution.TableSample t : d.tables()) {
      ObjectNode n = tablesRead.addObject();
      n.put("shard", t.shard());
      n.put("table", t.table());
      n.put("rows", t.rows());
      n.put("sampled", t.sampled());
      n.put("skipped", t.skipped());
      if (t.note() != null) {
        n.put("note", t.note());
      }
    }
    targets(doc.putArray("targets"), plan.targets());
    doc.set("busiest", target(plan.busiest()));
    ObjectNode even = doc.putObject("even_split");
    targets(even.putArray("ranges"), plan.even());
    even.set("busiest", target(plan.evenBusiest()));
    ArrayNode hot = doc.putArray("hot_keys");
    for (RangePlan.HotKey h : plan.hotKeys()) {
      ObjectNode n = hot.addObject();
      n.put("keyspace_id", h.ksid().hex());
      n.put("rows", h.rows());
      n.put("share", h.share());
      if (h.example() != null) {
        n.put("example", h.example());
      }
    }
    doc.put("targets_list", plan.targetsList());
    return doc.toString();
  }

  private static void targets(ArrayNode array, List<RangePlan.Target> targets) {
    targets.forEach(t -> array.add(target(t)));
  }

  private static ObjectNode target(RangePlan.Target t) {
    ObjectNode n = JSON.createObjectNode();
    n.put("range", t.range().name());
    n.put("rows", t.rows());
    n.put("share", t.share());
    n.put("keyspace_ids", t.keyspaceIds());
    return n;
  }

  /** {@code 1 table}, {@code 3 tables}. */
  private static String count(long n, String noun) {
    return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
  }

  /** Rows rounded for people: {@code 50,125}. */
  private static String rows(double rows) {
    return String.format(Locale.ROOT, "%,d", Math.round(rows));
  }

  private static List<String> listOrEmpty(List<String> l) {
    return l == null ? List.of() : l.stream().map(String::strip).toList();
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
