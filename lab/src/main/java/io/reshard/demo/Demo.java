package io.reshard.demo;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.LocalCluster;
import io.reshard.copier.CopierConfig;
import io.reshard.core.position.ServerPositions;
import io.reshard.differ.DiffReport;
import io.reshard.differ.TableDiff;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.TransactionMode;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.ShardServer;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The five-server experiment, as a runbook: a local cluster of four shards and two spares, the chat
 * keyspace loaded with Zipf-distributed channels, routing costs, credit transfers in multi and
 * single mode, the online split of {@code c0-} into {@code c0-e0} and {@code e0-} while an
 * application writes and reads, end-state checks with plain SQL, and skew. Writes a JSON report.
 */
public final class Demo {
  private final PrintWriter out;
  private final double scale;
  private final long seed;

  /**
   * @param scale multiplies the data and the run lengths (1 = 200,000 messages)
   * @param seed makes the data and the traffic repeatable
   */
  public Demo(PrintWriter out, double scale, long seed) {
    this.out = out;
    this.scale = scale;
    this.seed = seed;
  }

  /** Runs every phase; returns the report (with {@code ok}). */
  public Map<String, Object> run(ClusterSpec spec, boolean keep, Path report) throws Exception {
    Map<String, Object> json = new LinkedHashMap<>();
    String html = null;
    step(1, "starting 4 shards, 2 spares and Kafka in " + spec.dir());
    ClusterDescriptor cluster = LocalCluster.up(spec, l -> out.println("  " + l));
    try {
      ChatKeyspace chat = new ChatKeyspace(cluster);
      String bootstrap = cluster.kafka().bootstrap();
      ShardMapTopicConfig topic = ShardMapTopicConfig.builder().bootstrapServers(bootstrap).build();
      step(2, "keyspace chat: tables, fence rows, shard map version 1");
      try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, ChatKeyspace.NAME);
          KafkaWorkflowStore store =
              KafkaWorkflowStore.open(bootstrap, KafkaWorkflowStore.DEFAULT_TOPIC)) {
        ShardMap v1 = chat.create();
        publisher.publish(v1);
        int messages = (int) Math.round(200_000 * scale);
        step(
            3,
            "loading "
                + messages
                + " messages in "
                + ChatKeyspace.CHANNELS
                + " Zipf channels, "
                + ChatKeyspace.ACCOUNTS
                + " accounts");
        long[] channelOf = chat.load(v1, messages, seed);
        try (KafkaShardMapSource maps = KafkaShardMapSource.start(topic, ChatKeyspace.NAME);
            Router router = Router.create(maps, chat.endpoints(), RouterConfig.defaults());
            Router multi =
                Router.create(
                    maps,
                    chat.endpoints(),
                    RouterConfig.builder().mode(TransactionMode.MULTI).build())) {
          step(4, "routing costs (8 threads)");
          json.put(
              "routing",
              new RoutingCosts(
                      router, channelOf, Duration.ofMillis(Math.max(500, Math.round(3000 * scale))))
                  .run());
          printRouting(json);
          step(5, "credit transfers, multi and single mode");
          int each = (int) Math.max(50, Math.round(2000 * scale));
          Transfers.Result multiRun = Transfers.run(multi, true, each, seed);
          Transfers.Result singleRun = Transfers.run(router, false, each, seed + 1);
          Map<String, Object> transfers = new LinkedHashMap<>();
          transfers.put("multi", multiRun.json());
          transfers.put("single", singleRun.json());
          json.put("transfers", transfers);
          printTransfers("multi", multiRun);
          printTransfers("single", singleRun);
          long credits = Transfers.total(router);
          step(6, "online split of c0- into c0-e0 and e0- while the application writes and reads");
          Traffic traffic = new Traffic(router, channelOf, chat.hash);
          Map<String, Object> reshard = split(cluster, chat, publisher, store, traffic);
          json.put("reshard", reshard);
          step(7, "end-state checks with plain SQL on every shard");
          Map<Long, Long> expected = new HashMap<>();
          for (int i = 0; i < channelOf.length; i++) {
            expected.put(i + 1L, channelOf[i]);
          }
          expected.putAll(traffic.inserted);
          EndState end = EndState.check(cluster, maps.current(), chat.hash, expected);
          json.put("end_state", endState(end));
          out.printf(
              "  %,d of %,d expected rows found once; credits %,d (expected %,d)%n",
              end.idsFoundOnce, end.expectedIds, end.credits, credits);
          step(8, "skew by channel");
          List<Map<String, Object>> skew = Skew.of(channelOf, chat.hash);
          json.put("skew", skew);
          for (Map<String, Object> row : skew) {
            out.printf(
                "  %3d shards%s: the busiest holds %.1f%% of messages (even: %.1f%%)%n",
                row.get("shards"),
                row.containsKey("busiest_channel_buckets") ? ", busiest channel in 16 buckets" : "",
                100 * ((Number) row.get("busiest_share")).doubleValue(),
                100.0 / ((Number) row.get("shards")).intValue());
          }
          DemoChecks checks = DemoChecks.of(end, credits, reshard, multiRun, singleRun);
          json.put("checks", checks.json());
          json.put("ok", checks.passed());
          out.println("checks:");
          out.print(checks.table());
          html =
              DemoHtml.page(checks, figures(reshard), traffic.insertSamples, traffic.marks, skew);
        }
      }
    } finally {
      step(
          9,
          "report "
              + report
              + (keep
                  ? "; cluster left running: reshard cluster down --dir " + spec.dir()
                  : "; stopping the cluster"));
      if (!keep) {
        LocalCluster.down(spec.dir());
      }
    }
    Files.createDirectories(report.toAbsolutePath().getParent());
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(report.toFile(), json);
    if (html != null) {
      Files.writeString(htmlReport(report), html, java.nio.charset.StandardCharsets.UTF_8);
    }
    return json;
  }

  private Map<String, Object> split(
      ClusterDescriptor cluster,
      ChatKeyspace chat,
      ShardMapPublisher publisher,
      KafkaWorkflowStore store,
      Traffic traffic)
      throws Exception {
    ClusterDescriptor.Server source = cluster.shards().get(3);
    WorkflowSpec spec =
        new WorkflowSpec(
            "split-c0",
            ChatKeyspace.NAME,
            chat.vschema,
            List.of(server("c0-", source, 9001)),
            List.of(
                server("c0-e0", cluster.spares().get(0), 9002),
                server("e0-", cluster.spares().get(1), 9003)),
            cluster.kafka().bootstrap(),
            "reshard",
            io.reshard.router.ShardMapTopic.DEFAULT_NAME,
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30));
    CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> traffic.write(seed + 7));
    CompletableFuture<Void> reader = CompletableFuture.runAsync(() -> traffic.read(seed + 11));
    Map<String, Object> m = new LinkedHashMap<>();
    try (WorkflowRunner runner =
        new WorkflowRunner(spec, new WorkflowEngine(store, Clock.systemUTC()), publisher)) {
      Thread.sleep(Math.round(3000 * Math.max(scale, 0.3)));
      traffic.phase = Traffic.Phase.DURING;
      runner.create();
      long rows = countMoved(source);
      long t0 = System.nanoTime();
      traffic.mark("copy");
      runner.copy(CopierConfig.defaults());
      double copySeconds = (System.nanoTime() - t0) / 1e9;
      traffic.mark("copy done");
      out.printf(
          "  copied %d rows in %.1f s (%.0f rows/s)%n", rows, copySeconds, rows / copySeconds);
      List<DiffReport> reports = runner.diff();
      long mismatches = 0;
      for (DiffReport r : reports) {
        for (TableDiff t : r.tables()) {
          mismatches += t.mismatched() + t.extraSource() + t.extraTarget();
        }
      }
      out.println("  diff: " + mismatches + " differences");
      runner.switchReads();
      traffic.mark("reads switched");
      traffic.measureCutover();
      runner.switchWrites(false);
      traffic.mark("writes switched");
      Thread.sleep(1000);
      long pause = traffic.cutoverPauseMillis();
      out.println(
          "  writes switched; longest gap between acknowledged writes on c0-: " + pause + " ms");
      runner.complete();
      traffic.mark("complete");
      traffic.phase = Traffic.Phase.AFTER;
      Thread.sleep(Math.round(3000 * Math.max(scale, 0.3)));
      m.put("copy_rows", rows);
      m.put("copy_seconds", RoutingCosts.round(copySeconds));
      m.put("copy_rows_per_s", Math.round(rows / copySeconds));
      m.put("diff_mismatches", mismatches);
      m.put("cutover_write_pause_ms", pause);
    } finally {
      traffic.stop.set(true);
      writer.get();
      reader.get();
    }
    m.put("writer_ops", traffic.writerOps.get());
    m.put("writer_errors", traffic.writerErrors.get());
    m.put("reader_lookups", traffic.readerLookups.get());
    m.put("reader_misses", traffic.readerMisses.get());
    m.put("reader_duplicates", traffic.readerDuplicates.get());
    m.put(
        "insert_p50_ms_before", RoutingCosts.round(traffic.insertP50Millis(Traffic.Phase.BEFORE)));
    m.put(
        "insert_p50_ms_during", RoutingCosts.round(traffic.insertP50Millis(Traffic.Phase.DURING)));
    m.put("insert_p50_ms_after", RoutingCosts.round(traffic.insertP50Millis(Traffic.Phase.AFTER)));
    if (traffic.firstError != null) {
      m.put("first_error", traffic.firstError);
      out.println("  first error: " + traffic.firstError);
    }
    out.printf(
        "  application: %,d writes (%,d failed), %,d lookups (%,d missed, %,d seen twice);"
            + " median insert %.2f / %.2f / %.2f ms before / during / after%n",
        m.get("writer_ops"),
        m.get("writer_errors"),
        m.get("reader_lookups"),
        m.get("reader_misses"),
        m.get("reader_duplicates"),
        m.get("insert_p50_ms_before"),
        m.get("insert_p50_ms_during"),
        m.get("insert_p50_ms_after"));
    return m;
  }

  private static ShardServer server(String shard, ClusterDescriptor.Server s, long captureId) {
    return new ShardServer(
        shard,
        s.name(),
        s.host(),
        s.port(),
        s.user(),
        "",
        captureId,
        ServerPositions.parseFlavor(s.flavorOrDefault().id()));
  }

  private static long countMoved(ClusterDescriptor.Server s) throws Exception {
    long n = 0;
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(ChatKeyspace.NAME), s.user(), "");
        Statement st = c.createStatement()) {
      for (String t : List.of("messages", "message_lookup", "accounts")) {
        try (ResultSet rs = st.executeQuery("SELECT COUNT(*) FROM " + t)) {
          rs.next();
          n += rs.getLong(1);
        }
      }
    }
    return n;
  }

  /** The HTML report beside the JSON one: {@code results/demo.json} gives {@code demo.html}. */
  static Path htmlReport(Path report) {
    String name = report.getFileName().toString();
    String base = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
    return report.toAbsolutePath().resolveSibling(base + ".html");
  }

  private void printTransfers(String mode, Transfers.Result r) {
    out.printf(
        "  %-6s %,d transfers, %d crashes injected between commits (%d cross-shard), %,d refused,"
            + " %,d credits lost%n",
        mode,
        r.transfers(),
        r.injectedFailures(),
        r.crossShardFailures(),
        r.refused(),
        r.creditsLost());
  }

  /** The split's performance figures, for the HTML report (they pass or fail nothing). */
  private static Map<String, Object> figures(Map<String, Object> reshard) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("rows copied", String.format("%,d", (long) reshard.get("copy_rows")));
    f.put(
        "copy",
        reshard.get("copy_seconds")
            + " s, "
            + String.format("%,d", (long) reshard.get("copy_rows_per_s"))
            + " rows/s");
    f.put(
        "longest gap between acknowledged writes at the cutover",
        reshard.get("cutover_write_pause_ms") + " ms");
    f.put(
        "median insert before / during / after the split",
        reshard.get("insert_p50_ms_before")
            + " / "
            + reshard.get("insert_p50_ms_during")
            + " / "
            + reshard.get("insert_p50_ms_after")
            + " ms");
    f.put(
        "application writes / lookups during the run",
        String.format(
            "%,d / %,d", (long) reshard.get("writer_ops"), (long) reshard.get("reader_lookups")));
    return f;
  }

  private static Map<String, Object> endState(EndState e) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("expected_ids", e.expectedIds);
    m.put("ids_found_once", e.idsFoundOnce);
    m.put("ids_missing", e.idsMissing);
    m.put("ids_duplicated", e.idsDuplicated);
    m.put("rows_wrong_shard", e.rowsWrongShard);
    m.put("lookup_mismatches", e.lookupMismatches);
    return m;
  }

  private void printRouting(Map<String, Object> json) {
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> routing =
        (Map<String, Map<String, Object>>) json.get("routing");
    routing.forEach(
        (k, v) ->
            out.printf(
                "  %-22s %s shard queries each, p50 %s ms, p99 %s ms, %,d queries/s%n",
                k,
                v.get("shard_queries"),
                v.get("p50_ms"),
                v.get("p99_ms"),
                ((Number) v.get("qps")).longValue()));
  }

  private void step(int n, String what) {
    out.printf("phase %d/9 %s%n", n, what);
    out.flush();
  }
}
