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
          Map<String, Object> transfers = new LinkedHashMap<>();
          transfers.put("multi", Transfers.run(multi, true, each, seed).json());
          transfers.put("single", Transfers.run(router, false, each, seed + 1).json());
          json.put("transfers", transfers);
          out.println("  " + transfers);
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
          out.println(
              "  "
                  + json.get("end_state")
                  + ", credits "
                  + end.credits
                  + " (expected "
                  + credits
                  + ")");
          step(8, "skew by channel");
          json.put("skew", Skew.of(channelOf, chat.hash));
          out.println("  " + json.get("skew"));
          boolean ok =
              end.ok()
                  && end.credits == credits
                  && (long) reshard.get("writer_errors") == 0
                  && (long) reshard.get("reader_misses") == 0
                  && (long) reshard.get("reader_duplicates") == 0
                  && (long) reshard.get("diff_mismatches") == 0
                  && lostOnlyInMultiWithFailures(transfers);
          json.put("ok", ok);
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
      runner.copy(CopierConfig.defaults());
      double copySeconds = (System.nanoTime() - t0) / 1e9;
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
      traffic.measureCutover();
      runner.switchWrites(false);
      Thread.sleep(1000);
      long pause = traffic.cutoverPauseMillis();
      out.println(
          "  writes switched; longest gap between acknowledged writes on c0-: " + pause + " ms");
      runner.complete();
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
    }
    out.println("  " + m);
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

  /** Credits are lost only in multi mode, and only when failures were injected between commits. */
  private static boolean lostOnlyInMultiWithFailures(Map<String, Object> transfers) {
    long singleLost = number(transfers, "single", "credits_lost");
    long multiLost = number(transfers, "multi", "credits_lost");
    long multiFailures = number(transfers, "multi", "injected_failures");
    return singleLost == 0 && (multiLost == 0 || multiFailures > 0);
  }

  @SuppressWarnings("unchecked")
  private static long number(Map<String, Object> json, String mode, String key) {
    return ((Number) ((Map<String, Object>) json.get(mode)).get(key)).longValue();
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
    routing.forEach((k, v) -> out.printf("  %-22s %s%n", k, v));
  }

  private void step(int n, String what) {
    out.printf("phase %d/9 %s%n", n, what);
    out.flush();
  }
}
