package io.reshard.bench.cdc;

import io.reshard.bench.cdc.ChatBacklog.Changes;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.Flavor;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Prints the cdc figures of issue 4 measured on this machine; not a test.
 *
 * <ol>
 *   <li>starts its own local cluster (1 source shard, 2 spares as targets, a Kafka broker) on free
 *       ports under {@code --dir}, of MariaDB servers or, with {@code --flavor mysql}, of MySQL
 *       8.0.31 servers (then only {@code --parts capture} runs: Debezium's MySQL connector in place
 *       of its MariaDB connector; apply and lag are refused before anything starts);
 *   <li>writes a backlog of {@code --changes} row changes to the source's binlog ({@link
 *       ChatBacklog});
 *   <li>capture into Kafka, after an uncounted run of the bare loop and of reshard's capture that
 *       warm the broker up (its JIT, plain and transactional paths), {@code --runs} times each, in
 *       alternating order: reshard's CaptureEngine ({@link ReshardCaptureMain}), Debezium 3.5.0
 *       embedded with a producer ({@link DebeziumCaptureMain}) and a bare binlog-client-to-producer
 *       loop ({@link BareCaptureMain}), each in a child JVM whose CPU time is reported;
 *   <li>apply of the backlog (reshard's change topic of the first capture run) into an empty
 *       target, {@code --runs} times each: reshard's ApplyEngine ({@link ReshardApplyMain}) and a
 *       bare batched loop ({@link BareApplyMain}); every target is checked against the source (row
 *       count and {@code CHECKSUM TABLE}) and dropped;
 *   <li>end-to-end lag at fixed source write rates ({@link LagBenchmark}), unless {@code --lag} is
 *       empty ({@code --parts lag} runs only this part, {@code --parts backlog} only the others,
 *       {@code --parts capture} only the capture runs);
 *   <li>stops the cluster and deletes {@code --dir}; the children's logs (and JFR recordings, if
 *       {@code --child-jvm-opts} asks for them: {@code {logs}} and {@code {name}} are replaced by
 *       the log directory and the run's name) stay in {@code <dir>-logs}.
 * </ol>
 *
 * <p>Run from the repository root:
 *
 * <pre>
 * mvn -B -q -Pbench -pl lab/cdc-bench -am package -DskipTests &amp;&amp; java -cp "lab/cdc-bench/target/classes:$(cat lab/cdc-bench/target/bench.classpath)" io.reshard.bench.cdc.CdcBenchmark [--changes 1000000] [--runs 2] [--chunk 1000] [--lag 2000,5000,10000] [--lag-seconds 20] [--parts backlog,lag|capture] [--flavor mariadb|mysql] [--dir target/cdc-bench] [--child-jvm-opts "..."]
 * </pre>
 */
public final class CdcBenchmark {
  private static final long CHILD_TIMEOUT_SECONDS = 1800;
  private static final long BUFFER_POOL_BYTES = 1L << 30;
  private static final long SETTLE_MILLIS = 3000;
  private static final Set<String> PARTS = Set.of("backlog", "capture", "lag");
  private static final String USAGE =
      "usage: CdcBenchmark [--changes N] [--runs R] [--chunk ROWS] [--lag RATE,RATE,...]"
          + " [--lag-seconds S] [--parts backlog,lag|capture] [--flavor mariadb|mysql] [--dir DIR]"
          + " [--child-jvm-opts OPTS]";
  // held so that the level set on it stays (java.util.logging keeps loggers weakly)
  private static final java.util.logging.Logger BINLOG_CLIENT_LOG =
      java.util.logging.Logger.getLogger("com.github.shyiko.mysql.binlog");

  private final Options options;
  private final Path logs;
  private ClusterDescriptor cluster;
  private int nextServerId = 9001;

  /** The command line. */
  record Options(
      long changes,
      int runs,
      int chunk,
      List<Integer> lagRates,
      int lagSeconds,
      Path dir,
      List<String> childJvmOptions,
      List<String> parts,
      Flavor flavor) {
    static Options parse(String[] args) {
      Map<String, String> m = new LinkedHashMap<>();
      for (int i = 0; i < args.length; i++) {
        if (!args[i].startsWith("--") || i + 1 >= args.length) {
          throw new IllegalArgumentException(USAGE + "; got " + Arrays.toString(args));
        }
        m.put(args[i].substring(2), args[++i]);
      }
      List<String> parts = List.of(m.getOrDefault("parts", "backlog,lag").split(","));
      Flavor flavor = Flavor.parse(m.get("flavor"));
      checkParts(parts, flavor);
      String lag = m.getOrDefault("lag", "2000,5000,10000");
      String jvm = m.getOrDefault("child-jvm-opts", "").strip();
      return new Options(
          Long.parseLong(m.getOrDefault("changes", "1000000")),
          Integer.parseInt(m.getOrDefault("runs", "2")),
          Integer.parseInt(m.getOrDefault("chunk", "1000")),
          lag.isBlank() ? List.of() : Arrays.stream(lag.split(",")).map(Integer::valueOf).toList(),
          Integer.parseInt(m.getOrDefault("lag-seconds", "20")),
          Path.of(m.getOrDefault("dir", "target/cdc-bench")).toAbsolutePath().normalize(),
          jvm.isEmpty() ? List.of() : List.of(jvm.split("\\s+")),
          parts,
          flavor);
    }

    /**
     * Refuses unknown parts, and on MySQL every part but {@code capture}: the apply and lag parts
     * are written for MariaDB targets (the bare applier's {@code useBulkStmts}, MariaDB Connector/J
     * in the lag run) and have not been run on MySQL.
     */
    private static void checkParts(List<String> parts, Flavor flavor) {
      for (String part : parts) {
        if (!PARTS.contains(part)) {
          throw new IllegalArgumentException(
              "unknown part '" + part + "' in --parts; use backlog, lag or capture");
        }
      }
      if (flavor == Flavor.MYSQL && !parts.equals(List.of("capture"))) {
        throw new IllegalArgumentException(
            "--flavor mysql runs the capture part only (reshard, Debezium's MySQL connector and the"
                + " bare loop on a MySQL 8.0.31 binlog); apply and lag are not supported on MySQL"
                + " yet, so --parts "
                + String.join(",", parts)
                + " is refused: give --parts capture");
      }
    }
  }

  private CdcBenchmark(Options options) {
    this.options = options;
    this.logs = options.dir().resolveSibling(options.dir().getFileName() + "-logs");
  }

  /** Runs the benchmark with the command line the class comment shows; prints to stdout. */
  public static void main(String[] args) throws Exception {
    // quiet logs for the engines of the lag run, which run in this JVM
    System.setProperty(
        "org.slf4j.simpleLogger.defaultLogLevel",
        System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
    BINLOG_CLIENT_LOG.setLevel(java.util.logging.Level.WARNING);
    Options o;
    try {
      o = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("CdcBenchmark: " + e.getMessage());
      System.exit(2);
      return;
    }
    if (Files.exists(o.dir())) {
      throw new IllegalStateException(
          o.dir()
              + " exists: stop a cluster left there first"
              + " (./reshard cluster down --dir "
              + o.dir()
              + ") and delete it");
    }
    new CdcBenchmark(o).run();
  }

  private void run() throws Exception {
    deleteTree(logs);
    Files.createDirectories(logs);
    ClusterSpec spec =
        new ClusterSpec(
            options.dir().resolve("cluster"),
            1,
            2,
            FreePorts.block(23406, 3),
            FreePorts.block(29492, 2),
            options.flavor());
    System.out.printf(
        "starting 3 %s servers and a Kafka broker under %s ...%n",
        options.flavor() == Flavor.MYSQL ? "MySQL 8.0.31" : "MariaDB", spec.dir());
    try {
      cluster = LocalCluster.up(spec, line -> {});
      measure();
    } finally {
      LocalCluster.down(spec.dir());
      deleteTree(options.dir());
    }
  }

  private void measure() throws Exception {
    // The local cluster's 64 MiB buffer pool would make every server read and write pages on the
    // shared disk during the runs, so the figures would follow other people's I/O; 1 GiB holds
    // the benchmark's tables, as a production server's buffer pool would.
    for (ClusterDescriptor.Server s : cluster.mariadb()) {
      ChatBacklog.execute(s, "SET GLOBAL innodb_buffer_pool_size = " + BUFFER_POOL_BYTES);
    }
    if (options.parts().contains("backlog") || options.parts().contains("capture")) {
      backlog(cluster.shards().get(0), Changes.of(options.changes()));
    }
    if (options.parts().contains("lag") && !options.lagRates().isEmpty()) {
      new LagBenchmark(cluster, options.lagRates(), options.lagSeconds()).run();
    }
  }

  /** Parts 1 and 2: the backlog, its capture by both engines, its apply by both appliers. */
  private void backlog(ClusterDescriptor.Server source, Changes changes) throws Exception {
    // a binlog of its own: Debezium (snapshot.mode=never) reads from its first file
    ChatBacklog.execute(source, "RESET MASTER");
    ChatBacklog.createTable(source, ChatBacklog.DATABASE);
    String p0 = ChatBacklog.binlogPosition(source);
    long t0 = System.nanoTime();
    ChatBacklog.load(source, changes, options.chunk());
    double loadSeconds = (System.nanoTime() - t0) / 1e9;
    String end = ChatBacklog.binlogPosition(source);
    String sourceFingerprint = ChatBacklog.fingerprint(source, ChatBacklog.DATABASE);
    System.out.printf(
        "backlog: %,d changes (%,d inserts, %,d updates, %,d deletes) in transactions of %,d rows,"
            + " written in %.1f s; binlog %.0f MiB; GTIDs %s .. %s; source table %s (rows/checksum)%n",
        changes.total(),
        changes.inserts(),
        changes.updates(),
        changes.deletes(),
        options.chunk(),
        loadSeconds,
        ChatBacklog.binlogBytes(source) / 1048576.0,
        p0.isEmpty() ? "(none)" : p0,
        end,
        sourceFingerprint);
    captureAndApply(source, changes, p0, end, sourceFingerprint);
  }

  private void captureAndApply(
      ClusterDescriptor.Server source, Changes changes, String p0, String end, String expected)
      throws Exception {
    List<Row> capture = new ArrayList<>();
    // A fresh broker spends twice the CPU on its first million records (its JIT), and again on
    // its first million in transactions: one run of the bare loop and one of reshard's capture,
    // to topics of their own and not counted, warm it, so that no measured run pays for it (each
    // measured engine still starts in a fresh JVM). The order of the measured runs alternates.
    Row bareWarmUp = bareCapture(source, 0, p0, changes);
    Row reshardWarmUp = reshardCapture(source, 0, p0, end, changes);
    System.out.printf(
        "  (broker warm-up, not counted: bare loop %.1f s, reshard capture %.1f s)%n",
        bareWarmUp.seconds(), reshardWarmUp.seconds());
    for (int run = 1; run <= options.runs(); run++) {
      if (run % 2 == 1) {
        capture.add(reshardCapture(source, run, p0, end, changes));
        capture.add(debeziumCapture(source, run, changes));
        capture.add(bareCapture(source, run, p0, changes));
      } else {
        capture.add(bareCapture(source, run, p0, changes));
        capture.add(debeziumCapture(source, run, changes));
        capture.add(reshardCapture(source, run, p0, end, changes));
      }
    }
    printCapture(capture, changes, options.flavor());
    if (!options.parts().contains("backlog")) {
      return; // --parts capture: the capture runs only
    }

    String topic = ChangeRecords.changeTopic("r1", ChatBacklog.DATABASE, "-");
    List<Row> apply = new ArrayList<>();
    for (int run = 1; run <= options.runs(); run++) {
      if (run % 2 == 1) {
        apply.add(reshardApply(run, topic, p0, end, expected));
        apply.add(bareApply(run, topic, changes, expected));
      } else {
        apply.add(bareApply(run, topic, changes, expected));
        apply.add(reshardApply(run, topic, p0, end, expected));
      }
    }
    printApply(apply, changes);
  }

  /** One measured run of one variant. */
  record Row(
      String variant,
      int run,
      double seconds,
      double rowsPerSecond,
      double cpuSeconds,
      String note) {}

  /** A capture run's note: when its first record came, and the rate from then on. */
  private static String afterFirst(Map<String, String> r, String key, long rows) {
    double first = Double.parseDouble(r.get(key));
    double s = Double.parseDouble(r.get("seconds"));
    return String.format("%5.1f s %,10.0f", first, rows / (s - first));
  }

  private Row reshardCapture(
      ClusterDescriptor.Server source, int run, String p0, String end, Changes changes)
      throws Exception {
    Map<String, String> args = sourceArgs(source);
    args.put("topicPrefix", "r" + run);
    args.put("start", p0);
    args.put("end", end);
    Map<String, String> r = child(ReshardCaptureMain.class, args, "capture-reshard-" + run, source);
    return row(
        "reshard CaptureEngine",
        run,
        r,
        changes.total(),
        afterFirst(r, "firstCommitSeconds", changes.total()));
  }

  private Row debeziumCapture(ClusterDescriptor.Server source, int run, Changes changes)
      throws Exception {
    Map<String, String> args = sourceArgs(source);
    args.put("table", ChatBacklog.TABLE);
    args.put("topic", "dbz" + run);
    args.put("rows", Long.toString(changes.total()));
    Map<String, String> r =
        child(DebeziumCaptureMain.class, args, "capture-debezium-" + run, source);
    return row(
        "Debezium 3.5.0 embedded + producer",
        run,
        r,
        changes.total(),
        afterFirst(r, "firstRecordSeconds", changes.total()));
  }

  private Row bareCapture(ClusterDescriptor.Server source, int run, String p0, Changes changes)
      throws Exception {
    Map<String, String> args = sourceArgs(source);
    args.put("table", ChatBacklog.TABLE);
    args.put("topic", "bare" + run);
    args.put("start", p0);
    args.put("rows", Long.toString(changes.total()));
    Map<String, String> r = child(BareCaptureMain.class, args, "capture-bare-" + run, source);
    return row(
        "bare binlog client -> producer",
        run,
        r,
        changes.total(),
        afterFirst(r, "firstRecordSeconds", changes.total()));
  }

  private Row reshardApply(int run, String topic, String p0, String end, String expected)
      throws Exception {
    ClusterDescriptor.Server target = cluster.spares().get(0);
    String database = "chat_r" + run;
    ChatBacklog.createTable(target, database);
    Map<String, String> args = new LinkedHashMap<>();
    args.put("jdbcUrl", target.jdbcUrl(database));
    args.put("user", target.user());
    args.put("keyspace", ChatBacklog.DATABASE);
    args.put("bootstrap", cluster.kafka().bootstrap());
    args.put("topic", topic);
    args.put("p0", p0);
    args.put("end", end);
    args.put("workflow", "bench" + run);
    Map<String, String> r = child(ReshardApplyMain.class, args, "apply-reshard-" + run, target);
    return verified("reshard ApplyEngine, target -", run, r, target, database, expected);
  }

  private Row bareApply(int run, String topic, Changes changes, String expected) throws Exception {
    ClusterDescriptor.Server target = cluster.spares().get(1);
    String database = "chat_b" + run;
    ChatBacklog.createTable(target, database);
    Map<String, String> args = new LinkedHashMap<>();
    // executeBatch as COM_STMT_BULK_EXECUTE: the fastest batched JDBC path (LOCAL-CLUSTER-NOTES 6)
    args.put("jdbcUrl", target.jdbcUrl(database) + "?useBulkStmts=true");
    args.put("user", target.user());
    args.put("bootstrap", cluster.kafka().bootstrap());
    args.put("topic", topic);
    args.put("rows", Long.toString(changes.total()));
    Map<String, String> r = child(BareApplyMain.class, args, "apply-bare-" + run, target);
    return verified("bare batched REPLACE/DELETE loop", run, r, target, database, expected);
  }

  private Row verified(
      String variant,
      int run,
      Map<String, String> r,
      ClusterDescriptor.Server target,
      String database,
      String expected)
      throws Exception {
    String got = ChatBacklog.fingerprint(target, database);
    String check = got.equals(expected) ? "target = source " + got : "MISMATCH " + got;
    ChatBacklog.execute(target, "DROP DATABASE " + database);
    long applied = Long.parseLong(r.get("rowsApplied"));
    return row(variant, run, r, applied, check);
  }

  private static Row row(String variant, int run, Map<String, String> r, long rows, String note) {
    double s = Double.parseDouble(r.get("seconds"));
    return new Row(variant, run, s, rows / s, Double.parseDouble(r.get("cpuSeconds")), note);
  }

  private Map<String, String> sourceArgs(ClusterDescriptor.Server source) {
    Map<String, String> args = new LinkedHashMap<>();
    args.put("host", source.host());
    args.put("port", Integer.toString(source.port()));
    args.put("user", source.user());
    args.put("flavor", options.flavor().id());
    args.put("serverId", Integer.toString(nextServerId++));
    args.put("database", ChatBacklog.DATABASE);
    args.put("bootstrap", cluster.kafka().bootstrap());
    return args;
  }

  /** Runs a child and prints the CPU {@code server} and the broker spent meanwhile. */
  private Map<String, String> child(
      Class<?> main, Map<String, String> args, String name, ClusterDescriptor.Server server)
      throws Exception {
    settle();
    System.out.printf("  running %s ...%n", name);
    List<String> jvm = new ArrayList<>();
    for (String o : options.childJvmOptions()) {
      jvm.add(o.replace("{name}", name).replace("{logs}", logs.toString()));
    }
    double mariadb0 = cpuSeconds(server.pid());
    double broker0 = cpuSeconds(cluster.kafka().pid());
    Map<String, String> r =
        ChildJvm.run(main, args, jvm, logs.resolve(name + ".log"), CHILD_TIMEOUT_SECONDS);
    System.out.printf(
        "  %s: %s; meanwhile %s's %s %.1f CPU s, the broker %.1f CPU s%n",
        name,
        r,
        server.name(),
        options.flavor() == Flavor.MYSQL ? "mysqld" : "mariadbd",
        cpuSeconds(server.pid()) - mariadb0,
        cpuSeconds(cluster.kafka().pid()) - broker0);
    return r;
  }

  /**
   * Lets the previous run's aftermath pass before the next one starts: its ~200 MB of topic data
   * written back to disk ({@code sync}) and the broker's background work, so that no run starts
   * while the one before it still costs I/O and CPU (the first capture run after another was
   * measured 30 % slower without this).
   */
  private static void settle() throws Exception {
    new ProcessBuilder("sync").inheritIO().start().waitFor();
    Thread.sleep(SETTLE_MILLIS);
  }

  private static double cpuSeconds(long pid) {
    return ProcessHandle.of(pid)
        .flatMap(h -> h.info().totalCpuDuration())
        .map(d -> d.toNanos() / 1e9)
        .orElse(Double.NaN);
  }

  private static void printCapture(List<Row> rows, Changes changes, Flavor flavor) {
    System.out.printf(
        "%n1. capture -> Kafka: %,d row changes from the %s binlog into one topic (Debezium: its %s"
            + " connector)%n",
        changes.total(),
        flavor == Flavor.MYSQL ? "MySQL 8.0.31" : "MariaDB",
        flavor == Flavor.MYSQL ? "MySQL" : "MariaDB");
    printRows(rows, "1st record  rows/s after it");
    if (flavor == Flavor.MARIADB) {
      System.out.println(
          "   references (others, this machine): Debezium ~43k rows/s and ~47 CPU s;"
              + " bare binlog client -> Kafka ~108k rows/s; goal: reshard >= 2x Debezium, <= 15"
              + " CPU s");
    }
    summarise(rows, "reshard CaptureEngine", "Debezium 3.5.0 embedded + producer");
    summarise(rows, "reshard CaptureEngine", "bare binlog client -> producer");
    perRun(rows, "reshard CaptureEngine", "Debezium 3.5.0 embedded + producer");
    perRun(rows, "reshard CaptureEngine", "bare binlog client -> producer");
  }

  /** The ratio of {@code ours} to {@code theirs} in rows/s and in CPU s, run by run. */
  private static void perRun(List<Row> rows, String ours, String theirs) {
    StringBuilder b = new StringBuilder("   per run, " + ours + " / " + theirs + ":");
    for (Row a : rows) {
      if (!a.variant().equals(ours)) {
        continue;
      }
      rows.stream()
          .filter(r -> r.variant().equals(theirs) && r.run() == a.run())
          .findFirst()
          .ifPresent(
              t ->
                  b.append(
                      String.format(
                          " run %d %.2f (CPU %.2f);",
                          a.run(),
                          a.rowsPerSecond() / t.rowsPerSecond(),
                          a.cpuSeconds() / t.cpuSeconds())));
    }
    System.out.println(b);
  }

  private static void printApply(List<Row> rows, Changes changes) {
    System.out.printf(
        "%n2. apply of the backlog: %,d row changes into an empty target%n", changes.total());
    printRows(rows, "check");
    System.out.println(
        "   references (others, this machine): bare batched loop ~35k rows/s;"
            + " Debezium JDBC sink ~11k rows/s (not measured here)");
    summarise(rows, "reshard ApplyEngine, target -", "bare batched REPLACE/DELETE loop");
  }

  private static void printRows(List<Row> rows, String noteHeader) {
    System.out.printf(
        "   %-36s %3s %9s %10s %8s  %s%n", "", "run", "seconds", "rows/s", "CPU s", noteHeader);
    rows.stream()
        .sorted(Comparator.comparing(Row::variant).thenComparingInt(Row::run))
        .forEach(
            r ->
                System.out.printf(
                    "   %-36s %3d %9.1f %,10.0f %8.1f  %s%n",
                    r.variant(),
                    r.run(),
                    r.seconds(),
                    r.rowsPerSecond(),
                    r.cpuSeconds(),
                    r.note()));
  }

  private static void summarise(List<Row> rows, String ours, String theirs) {
    double a = best(rows, ours);
    double b = best(rows, theirs);
    System.out.printf(
        "   best runs: %s %,.0f rows/s vs %s %,.0f rows/s: ratio %.2f%n",
        ours, a, theirs, b, a / b);
  }

  private static double best(List<Row> rows, String variant) {
    return rows.stream()
        .filter(r -> r.variant().equals(variant))
        .mapToDouble(Row::rowsPerSecond)
        .max()
        .orElse(Double.NaN);
  }

  private static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
