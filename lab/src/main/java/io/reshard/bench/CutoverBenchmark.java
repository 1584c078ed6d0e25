package io.reshard.bench;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import io.reshard.copier.CopierConfig;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.router.Shard;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.switcher.CutoverSteps;
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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the cutover write pause: on a fresh local cluster holding the sources of a {@link Shape}
 * (by default one shard {@code -}, split into {@code -80} and {@code 80-}; or {@code -80,80-}
 * merged into {@code -}, or re-partitioned onto {@code -55,55-aa,aa-}) and a spare per target, the
 * workflow runs in this process ({@link WorkflowRunner}) and switches writes forward and back
 * again, alternately, while several writer threads insert rows through router-lib (following the
 * shard map topic, write buffering on: {@link RouterConfig#defaults()}). Every row is on the moving
 * range.
 *
 * <p>For each switch it prints the longest gap between two acknowledged writes (any thread) from
 * just before the switch starts until {@code settle} after it returned — the pause the application
 * sees — the fenced window, and the time of each step the switcher took ({@link CutoverSteps}),
 * plus two it cannot see: how long after the publish the router received the new map ({@code router
 * refresh}), and how long after that the first buffered write was acknowledged ({@code writes
 * resume}). At the end: p50 and max over the switches, and a check that every acknowledged row is
 * on the shard that owns it now, exactly as many as acknowledged.
 */
public final class CutoverBenchmark {
  static final String KEYSPACE = "bench";
  static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"}]}}}
      """;

  /** What the measured workflow moves. */
  public enum Shape {
    /** {@code -} into {@code -80,80-}. */
    SPLIT(List.of("-"), List.of("-80", "80-")),
    /** {@code -80,80-} into {@code -}. */
    MERGE(List.of("-80", "80-"), List.of("-")),
    /** {@code -80,80-} onto {@code -55,55-aa,aa-}. */
    REPARTITION(List.of("-80", "80-"), List.of("-55", "55-aa", "aa-"));

    final List<String> sources;
    final List<String> targets;

    Shape(List<String> sources, List<String> targets) {
      this.sources = sources;
      this.targets = targets;
    }

    String describe() {
      return name().toLowerCase(java.util.Locale.ROOT)
          + " "
          + String.join(",", sources)
          + " into "
          + String.join(",", targets);
    }
  }

  private final PrintWriter out;
  private final Shape shape;
  private final int switches;
  private final int writers;
  private final Duration settle;
  private final int writesPerSecond;

  /**
   * @param switches switches to measure, forward and reverse alternating (forward first)
   * @param writers writer threads
   * @param writesPerSecond the writers' paced rate, all threads together: low enough for the
   *     appliers of this small machine to keep up (the switch refuses a lagging stream), high
   *     enough that the gap between acknowledgements resolves a few milliseconds
   * @param settle how long writes continue after a switch returned before the next one (the gap is
   *     measured over this time too)
   */
  public CutoverBenchmark(
      PrintWriter out, int switches, int writers, int writesPerSecond, Duration settle) {
    this(out, Shape.SPLIT, switches, writers, writesPerSecond, settle);
  }

  /** A benchmark of {@code shape}'s workflow; see the other constructor for the rest. */
  public CutoverBenchmark(
      PrintWriter out,
      Shape shape,
      int switches,
      int writers,
      int writesPerSecond,
      Duration settle) {
    if (switches < 1 || writers < 1 || writesPerSecond < 1 || settle.isNegative()) {
      throw new IllegalArgumentException(
          "switches and writers must be at least 1 and settle not negative");
    }
    this.out = out;
    this.shape = java.util.Objects.requireNonNull(shape);
    this.switches = switches;
    this.writers = writers;
    this.settle = settle;
    this.writesPerSecond = writesPerSecond;
  }

  /** One measured switch. */
  record Switch(
      String direction,
      long gapMillis,
      long windowMillis,
      Map<String, Long> stepMillis,
      long refreshMillis,
      long resumeMillis) {}

  /**
   * Starts a cluster in a new directory under {@code workDir}, measures, prints, stops the cluster
   * and removes its directory.
   *
   * @return true if every write was acknowledged and every acknowledged row is where it belongs
   */
  public boolean run(Path workDir) throws Exception {
    Path dir = Files.createTempDirectory(Files.createDirectories(workDir), "cutover-");
    int shards = shape.sources.size();
    int spares = shape.targets.size();
    ClusterSpec spec =
        new ClusterSpec(
            dir,
            shards,
            spares,
            FreePorts.block(27606, shards + spares),
            FreePorts.block(29792, 2));
    out.printf(
        "cutover benchmark: %s, %d switches (forward and reverse"
            + " alternating), %d writer threads through router-lib at %d writes/s, buffering on%n",
        shape.describe(), switches, writers, writesPerSecond);
    out.flush();
    ClusterDescriptor cluster = LocalCluster.up(spec, line -> {});
    boolean ok = false;
    try {
      ok = measure(cluster);
    } finally {
      LocalCluster.down(dir);
      if (ok) {
        deleteTree(dir);
      } else {
        out.println("the cluster's data stays in " + dir + " for inspection");
      }
    }
    return ok;
  }

  private boolean measure(ClusterDescriptor cluster) throws Exception {
    VSchema vschema = VSchema.parse(VSCHEMA);
    Map<String, JdbcEndpoint> endpoints = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.mariadb()) {
      endpoints.put(
          s.name(),
          new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), ""));
    }
    List<ShardAssignment> first = new ArrayList<>();
    List<ShardServer> sources = new ArrayList<>();
    List<ShardServer> targets = new ArrayList<>();
    long captureId = 9101;
    for (int i = 0; i < shape.sources.size(); i++) {
      ClusterDescriptor.Server source = cluster.shards().get(i);
      String shard = shape.sources.get(i);
      try (Connection c = DriverManager.getConnection(source.jdbcUrl(""), source.user(), "");
          Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE " + KEYSPACE);
        st.execute(
            "CREATE TABLE "
                + KEYSPACE
                + ".messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
                + " body VARCHAR(100)) ENGINE=InnoDB");
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, KEYSPACE, shard, 1, true);
      }
      first.add(new ShardAssignment(KeyRange.parse(shard), source.name(), true, true));
      sources.add(server(shard, source, captureId++));
    }
    for (int i = 0; i < shape.targets.size(); i++) {
      targets.add(server(shape.targets.get(i), cluster.spares().get(i), captureId++));
    }
    ShardMap v1 = ShardMap.first(KEYSPACE, vschema, first);
    String bootstrap = cluster.kafka().bootstrap();
    ShardMapTopicConfig topic = ShardMapTopicConfig.builder().bootstrapServers(bootstrap).build();
    WorkflowSpec workflow =
        new WorkflowSpec(
            "bench-" + shape.name().toLowerCase(java.util.Locale.ROOT),
            KEYSPACE,
            vschema,
            sources,
            targets,
            bootstrap,
            "reshard",
            ShardMapTopic.DEFAULT_NAME,
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30));
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, KEYSPACE);
        KafkaWorkflowStore store =
            KafkaWorkflowStore.open(bootstrap, KafkaWorkflowStore.DEFAULT_TOPIC)) {
      publisher.publish(v1);
      try (KafkaShardMapSource maps = KafkaShardMapSource.start(topic, KEYSPACE);
          Router router =
              Router.create(maps, EndpointResolver.of(endpoints), RouterConfig.defaults())) {
        Map<Long, Long> seenNanos = new ConcurrentHashMap<>();
        maps.addListener(m -> seenNanos.putIfAbsent(m.version(), System.nanoTime()));
        Writers w = new Writers(router, writers, writesPerSecond);
        List<Switch> measured = new ArrayList<>();
        try (WorkflowRunner runner =
            new WorkflowRunner(workflow, new WorkflowEngine(store, Clock.systemUTC()), publisher)) {
          w.start();
          Thread.sleep(1000);
          runner.create();
          runner.copy(CopierConfig.defaults());
          runner.diff();
          runner.switchReads();
          Thread.sleep(Math.max(1000, settle.toMillis()));
          for (int i = 0; i < switches; i++) {
            boolean forward = i % 2 == 0;
            awaitLagBelow(runner, Duration.ofSeconds(1), Duration.ofSeconds(60));
            w.measureFrom();
            if (forward) {
              runner.switchWrites(i > 0); // a reverse marks the diff stale; the data is the same
            } else {
              runner.reverseTraffic();
            }
            Thread.sleep(settle.toMillis());
            Switch s =
                result(forward, w, runner.lastCutoverSteps(), seenNanos, maps.current().version());
            measured.add(s);
            print(i + 1, s);
          }
          w.stop();
        } finally {
          w.stop();
        }
        summarise(measured, w);
        long found = countOnOwners(cluster, maps.current());
        out.printf(
            "writes: %d acknowledged, %d failed; rows on the shards that own them now: %d%n",
            w.acknowledged.get(), w.failed.get(), found);
        if (w.firstError != null) {
          out.println("first write error: " + w.firstError);
        }
        return w.failed.get() == 0 && found == w.acknowledged.get();
      }
    }
  }

  /** Waits until the forward streams lag less than {@code limit} (the switch refuses more). */
  private static void awaitLagBelow(WorkflowRunner runner, Duration limit, Duration timeout)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (runner.maxLagMillis() >= limit.toMillis() && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
  }

  private Switch result(
      boolean forward,
      Writers w,
      CutoverSteps steps,
      Map<Long, Long> seenNanos,
      long newestVersion) {
    Map<String, Long> ms = new LinkedHashMap<>();
    steps.durations().forEach((k, v) -> ms.put(k, v.toMillis()));
    long published = steps.endNanos("publish");
    Long seen = seenNanos.get(newestVersion);
    long refresh = seen == null || published == 0 ? -1 : (seen - published) / 1_000_000;
    long resume = seen == null ? -1 : Math.max(0, (w.gapEndNanos.get() - seen) / 1_000_000);
    return new Switch(
        forward ? "forward" : "reverse",
        w.longestGap.get() / 1_000_000,
        steps.fencedWindow().toMillis(),
        ms,
        refresh,
        resume);
  }

  private void print(int n, Switch s) {
    StringBuilder b = new StringBuilder();
    s.stepMillis().forEach((k, v) -> b.append(String.format("  %s %d", k, v)));
    out.printf(
        "switch %d %-7s  write gap %5d ms  fenced window %5d ms |%s | router refresh %d, writes"
            + " resume %d%n",
        n, s.direction(), s.gapMillis(), s.windowMillis(), b, s.refreshMillis(), s.resumeMillis());
    out.flush();
  }

  private void summarise(List<Switch> measured, Writers w) {
    out.printf(
        "longest write gap over %d switches: p50 %d ms, max %d ms (goal: p50 < 100 ms)%n",
        measured.size(),
        p50(measured.stream().mapToLong(Switch::gapMillis).toArray()),
        measured.stream().mapToLong(Switch::gapMillis).max().orElse(0));
    out.printf(
        "fenced window: p50 %d ms, max %d ms%n",
        p50(measured.stream().mapToLong(Switch::windowMillis).toArray()),
        measured.stream().mapToLong(Switch::windowMillis).max().orElse(0));
    Map<String, List<Long>> byStep = new LinkedHashMap<>();
    for (Switch s : measured) {
      s.stepMillis().forEach((k, v) -> byStep.computeIfAbsent(k, x -> new ArrayList<>()).add(v));
    }
    byStep.put("router refresh", measured.stream().map(Switch::refreshMillis).toList());
    byStep.put("writes resume", measured.stream().map(Switch::resumeMillis).toList());
    out.println("per step, p50 / max ms (forward and reverse together):");
    byStep.forEach(
        (k, v) -> {
          long[] a = v.stream().mapToLong(Long::longValue).toArray();
          out.printf("  %-28s %5d / %5d%n", k, p50(a), Arrays.stream(a).max().orElse(0));
        });
    out.flush();
  }

  private static long p50(long[] v) {
    if (v.length == 0) {
      return 0;
    }
    long[] s = v.clone();
    Arrays.sort(s);
    return s[(s.length - 1) / 2];
  }

  /** Rows on the shards that serve writes in {@code map}, each counted where it belongs. */
  private static long countOnOwners(ClusterDescriptor cluster, ShardMap map) throws Exception {
    long n = 0;
    for (Shard shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      ClusterDescriptor.Server s =
          cluster.mariadb().stream()
              .filter(m -> m.name().equals(shard.endpoint()))
              .findFirst()
              .orElseThrow();
      try (Connection c = DriverManager.getConnection(s.jdbcUrl(KEYSPACE), s.user(), "");
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT channel_id FROM messages")) {
        var hash = map.vschema().primaryVindex("messages").functional();
        while (rs.next()) {
          if (shard.range().contains(hash.keyspaceId(rs.getLong(1)))) {
            n++;
          }
        }
      }
    }
    return n;
  }

  private static ShardServer server(String shard, ClusterDescriptor.Server s, long captureId) {
    return new ShardServer(shard, s.name(), s.host(), s.port(), s.user(), "", captureId);
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /**
   * The application: threads that insert rows through the router and time every acknowledgement.
   */
  private static final class Writers {
    final Router router;
    final int threads;
    final long intervalNanos;
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong nextId = new AtomicLong();
    final AtomicLong acknowledged = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong lastAck = new AtomicLong();
    final AtomicLong longestGap = new AtomicLong();
    final AtomicLong gapEndNanos = new AtomicLong();
    volatile String firstError;
    private ExecutorService pool;
    private final List<Future<?>> running = new ArrayList<>();

    Writers(Router router, int threads, int writesPerSecond) {
      this.router = router;
      this.threads = threads;
      this.intervalNanos = 1_000_000_000L * threads / writesPerSecond;
    }

    void start() {
      pool = Executors.newFixedThreadPool(threads);
      for (int i = 0; i < threads; i++) {
        running.add(pool.submit(this::write));
      }
    }

    /** Starts a new measurement: the longest gap between acknowledgements from now on. */
    synchronized void measureFrom() {
      lastAck.set(System.nanoTime());
      longestGap.set(0);
      gapEndNanos.set(0);
    }

    private void write() {
      ThreadLocalRandom r = ThreadLocalRandom.current();
      long next = System.nanoTime() + r.nextLong(intervalNanos);
      while (!stop.get()) {
        long wait = next - System.nanoTime();
        if (wait > 0) {
          java.util.concurrent.locks.LockSupport.parkNanos(wait);
        }
        next = Math.max(next + intervalNanos, System.nanoTime()); // a late write never bunches
        long id = nextId.incrementAndGet();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("channel_id", 1 + r.nextLong(1_000_000));
        row.put("body", "row " + id);
        try {
          router.insert("messages", row);
          acknowledged.incrementAndGet();
          ack();
        } catch (RuntimeException e) {
          failed.incrementAndGet();
          if (firstError == null) {
            firstError = e.toString();
          }
        }
      }
    }

    private synchronized void ack() {
      long now = System.nanoTime();
      long gap = now - lastAck.getAndSet(now);
      if (gap > longestGap.get()) {
        longestGap.set(gap);
        gapEndNanos.set(now);
      }
    }

    void stop() throws Exception {
      stop.set(true);
      for (Future<?> f : running) {
        f.get();
      }
      running.clear();
      if (pool != null) {
        pool.shutdown();
      }
    }
  }
}
