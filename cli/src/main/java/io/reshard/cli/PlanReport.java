package io.reshard.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.switcher.KeyDistribution;
import io.reshard.switcher.RangePlan;
import io.reshard.switcher.RangePlanner;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** What {@code reshard plan} prints: the plan as text or as one JSON document. Immutable. */
final class PlanReport {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String keyspace;
  private final int sampleRows;
  private final KeyDistribution d;
  private final RangePlan plan;

  PlanReport(String keyspace, int sampleRows, KeyDistribution d, RangePlan plan) {
    this.keyspace = keyspace;
    this.sampleRows = sampleRows;
    this.d = d;
    this.plan = plan;
  }

  void printText(PrintWriter out) {
    out.println(
        "keyspace "
            + keyspace
            + ": "
            + plan.targets().size()
            + " ranges over "
            + plan.range().name()
            + ", "
            + sampleLine());
    out.printf("  %-24s %14s %7s %13s%n", "range", "rows", "share", "keyspace ids");
    for (RangePlan.Target t : plan.targets()) {
      out.printf(
          "  %-24s %14s %7s %13s%n",
          t.range().name(),
          rows(t.rows()),
          RangePlanner.percent(t.share()),
          String.format(Locale.ROOT, "%,d", t.keyspaceIds()));
    }
    out.println(busiestLine());
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
  String busiestLine() {
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
  private String sampleLine() {
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
  static List<String> notes(KeyDistribution d) {
    List<String> out = new ArrayList<>();
    for (KeyDistribution.TableSample t : d.tables()) {
      if (t.note() != null) {
        out.add("table " + t.table() + " on " + t.shard() + ": " + t.note());
      }
    }
    return out;
  }

  String json() {
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
  static String count(long n, String noun) {
    return String.format(Locale.ROOT, "%,d %s%s", n, noun, n == 1 ? "" : "s");
  }

  /** Rows rounded for people: {@code 50,125}. */
  private static String rows(double rows) {
    return String.format(Locale.ROOT, "%,d", Math.round(rows));
  }
}
