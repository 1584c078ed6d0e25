package io.reshard.bench.copydiff;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import io.reshard.copier.Copier;
import io.reshard.copier.CopyProgress;
import io.reshard.copier.CopySpec;
import io.reshard.copier.StreamCoverage;
import io.reshard.core.placement.TargetShard;
import io.reshard.differ.DiffListener;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSpec;
import io.reshard.differ.Differ;
import io.reshard.differ.DifferConfig;
import io.reshard.differ.StreamControl;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Prints copy and diff rates measured on this machine; not a test.
 *
 * <p>Starts a local cluster of 3 MariaDB servers (and its Kafka broker, unused) in a temporary
 * directory, loads narrow chat rows (id, channel_id, user_id, created_at, a body of about 130
 * characters) into db1, then measures on the same rows:
 *
 * <ol>
 *   <li>the online copy from db1 (shard {@code -}) to db2 ({@code -80}) and db3 ({@code 80-}),
 *       default {@link io.reshard.copier.CopierConfig};
 *   <li>{@code mariadb-dump --single-transaction | mariadb} of the same table from db1 into a fresh
 *       database {@code bench_dump} on db2 (one target, no split: the machine's own tools as the
 *       baseline);
 *   <li>then three differences go into both copies on db2 (a changed body, a missing row, an extra
 *       row: {@link Differences});
 *   <li>the diff of both targets the way it was done before, one {@link Differ} per target (the
 *       source read once per target);
 *   <li>the diff of both targets by one {@link Differ} (the source read once), default config; its
 *       reports must name exactly the three keys;
 *   <li>the same diff with chunks of 1,000 and 5,000 rows;
 *   <li>a plain PK-ordered streaming scan of the table on the source and on both targets;
 *   <li>{@code pt-table-sync --print} from percona-toolkit between db1's table and the full copy in
 *       {@code bench_dump} on db2 (the same rows per side; it must print exactly one statement per
 *       injected difference), skipped with a line if the tool is not installed (Debian: {@code
 *       apt-get install percona-toolkit}).
 * </ol>
 *
 * <p>The ratios printed: copy / dump rate, diff / scan rate (the scan's rate counts source rows, as
 * the diff's does) and diff / pt-table-sync rate (rows per side). Then the CPU seconds of each
 * server, of this JVM and of its ended child processes over each measured run ({@link CpuMeter}).
 * {@code -Dbench.quick=true} leaves out the per-target diff and the other chunk sizes; {@code
 * -Dbench.pairs=N} runs the diff and pt-table-sync N times, one after the other, and prints each
 * pair's ratio and the lowest, median and highest (the machine's load changes from run to run).
 *
 * <p>Run from the repository root (one command line):
 *
 * <pre>
 * mvn -B -q -o -pl lab -am package -DskipTests &amp;&amp; java -cp "lab/target/reshard-lab.jar:lab/target/lib/*" io.reshard.bench.copydiff.CopyDiffBenchmark [rows, default 200000]
 * </pre>
 */
public final class CopyDiffBenchmark {
  private static final String DB = "bench";
  private static final String VSCHEMA =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}},"
          + " \"tables\": {\"messages\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}";
  private static final String DDL =
      "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
          + " user_id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL, body VARCHAR(200),"
          + " KEY by_channel (channel_id, created_at)) ENGINE=InnoDB";

  private CopyDiffBenchmark() {}

  public static void main(String[] args) throws Exception {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    Path dir = Files.createTempDirectory("reshard-bench-");
    ClusterSpec spec =
        new ClusterSpec(dir, 1, 2, FreePorts.block(33406, 3), FreePorts.block(39392, 2));
    System.out.printf("starting 3 MariaDB servers under %s ...%n", dir);
    ClusterDescriptor cluster = LocalCluster.up(spec, line -> {});
    try {
      run(cluster, rows);
    } finally {
      LocalCluster.down(dir);
    }
  }

  private static void run(ClusterDescriptor cluster, int rows) throws Exception {
    ClusterDescriptor.Server src = cluster.mariadb().get(0);
    ClusterDescriptor.Server left = cluster.mariadb().get(1);
    ClusterDescriptor.Server right = cluster.mariadb().get(2);
    for (ClusterDescriptor.Server s : cluster.mariadb()) {
      sql(s, "", "CREATE DATABASE " + DB, "CREATE DATABASE bench_dump");
      sql(s, DB, DDL);
    }
    CpuMeter cpu = new CpuMeter(cluster.mariadb());
    List<String> cpuLines = new ArrayList<>();
    // -Dbench.quick=true leaves out the per-target diff and the other chunk sizes
    boolean quick = Boolean.getBoolean("bench.quick");
    long t0 = System.nanoTime();
    load(src, rows);
    double loadS = seconds(t0);
    System.out.printf("loaded %,d rows into db1 in %.1f s%n", rows, loadS);

    VSchema vschema = VSchema.parse(VSCHEMA);
    CopySpec copy =
        new CopySpec(
            "bench",
            DB,
            endpoint(src),
            KeyRange.FULL,
            List.of(
                new TargetShard(KeyRange.parse("-80"), endpoint(left)),
                new TargetShard(KeyRange.parse("80-"), endpoint(right))),
            List.of("messages"),
            vschema,
            "1-1-1");
    long[] c0 = cpu.now();
    t0 = System.nanoTime();
    CopyProgress p = Copier.builder(copy).coverage(StreamCoverage.staticSource()).build().run();
    double copyS = seconds(t0);
    cpuLines.add("online copy to two targets");
    cpuLines.add(cpu.since(c0, copyS));

    c0 = cpu.now();
    t0 = System.nanoTime();
    dump(src, left);
    double dumpS = seconds(t0);
    cpuLines.add("mariadb-dump | mariadb");
    cpuLines.add(cpu.since(c0, dumpS));

    // the same three differences on the copy and on the dump: a changed column, a missing row and
    // an extra row, all in -80 (db2), which each tool must name by key
    Differences diffs = Differences.pick(vschema, rows);
    diffs.inject(left, DB);
    diffs.inject(left, "bench_dump");

    // before: one Differ per target, each reading the whole source
    t0 = System.nanoTime();
    long comparedPerTarget = 0;
    for (TargetShard t : quick ? List.<TargetShard>of() : copy.targets()) {
      DiffReport r =
          new Differ(
                  new DiffSpec("bench", DB, endpoint(src), t, List.of("messages"), vschema),
                  DifferConfig.defaults(),
                  StreamControl.none(),
                  DiffListener.NONE)
              .run();
      comparedPerTarget += r.table("messages").compared();
    }
    double perTargetS = seconds(t0);

    // now: one Differ for both targets, reading the source once
    c0 = cpu.now();
    t0 = System.nanoTime();
    List<DiffReport> reports = diffBoth(src, copy, vschema, DifferConfig.defaults());
    double diffS = seconds(t0);
    String diffCpu = cpu.since(c0, diffS);
    cpuLines.add("diff of both targets at once");
    cpuLines.add(diffCpu);
    long compared = 0;
    for (DiffReport r : reports) {
      compared += r.table("messages").compared();
    }
    diffs.checkNamed(reports);

    // the chunk size: the same diff with smaller and larger chunks than the default
    int[] chunkSizes = quick ? new int[0] : new int[] {1000, 5000};
    double[] chunkS = new double[chunkSizes.length];
    for (int i = 0; i < chunkSizes.length; i++) {
      t0 = System.nanoTime();
      diffs.checkNamed(
          diffBoth(src, copy, vschema, DifferConfig.builder().chunkRows(chunkSizes[i]).build()));
      chunkS[i] = seconds(t0);
    }

    c0 = cpu.now();
    t0 = System.nanoTime();
    long scanned = scan(src) + scan(left) + scan(right);
    double scanS = seconds(t0);
    cpuLines.add("plain PK-ordered scan");
    cpuLines.add(cpu.since(c0, scanS));

    c0 = cpu.now();
    t0 = System.nanoTime();
    String pt = PtTableSync.run(src, left, DB, "bench_dump", "messages");
    double ptS = seconds(t0);
    String ptCpu = cpu.since(c0, ptS);
    cpuLines.add("pt-table-sync --print");
    cpuLines.add(ptCpu);
    if (pt != null) {
      diffs.checkNamedBy(pt);
    }

    // -Dbench.pairs=N: N - 1 more runs of the diff and pt-table-sync, one after the other
    List<String> pairLines = new ArrayList<>();
    List<Double> ratios = new ArrayList<>();
    if (pt != null) {
      ratios.add(ptS / diffS);
      pairLines.add(pairLine(1, diffS, ptS, diffCpu, ptCpu));
    }
    for (int pair = 2; pt != null && pair <= Integer.getInteger("bench.pairs", 1); pair++) {
      c0 = cpu.now();
      t0 = System.nanoTime();
      diffs.checkNamed(diffBoth(src, copy, vschema, DifferConfig.defaults()));
      double d = seconds(t0);
      String dCpu = cpu.since(c0, d);
      c0 = cpu.now();
      t0 = System.nanoTime();
      diffs.checkNamedBy(PtTableSync.run(src, left, DB, "bench_dump", "messages"));
      double q = seconds(t0);
      ratios.add(q / d);
      pairLines.add(pairLine(pair, d, q, dCpu, cpu.since(c0, q)));
    }

    System.out.printf(
        "%nrows: %,d narrow chat rows (body ~130 chars), source db1 -> db2 (-80) + db3 (80-)%n",
        rows);
    System.out.printf("%-52s %10s %12s%n", "", "seconds", "rows/s");
    System.out.printf(
        "%-52s %10.2f %,12.0f%n", "online copy to two targets (copier)", copyS, rows / copyS);
    System.out.printf(
        "%-52s %10.2f %,12.0f%n",
        "mariadb-dump --single-transaction | mariadb", dumpS, rows / dumpS);
    if (!quick) {
      System.out.printf(
          "%-52s %10.2f %,12.0f%n",
          "diff, one Differ per target (source read twice)",
          perTargetS,
          comparedPerTarget / perTargetS);
    }
    System.out.printf(
        "%-52s %10.2f %,12.0f%n", "diff of both targets at once (differ)", diffS, compared / diffS);
    for (int i = 0; i < chunkSizes.length; i++) {
      System.out.printf(
          "%-52s %10.2f %,12.0f%n",
          "  the same with chunkRows " + chunkSizes[i], chunkS[i], compared / chunkS[i]);
    }
    System.out.printf(
        "%-52s %10.2f %,12.0f%n",
        "plain PK-ordered scan, source + both targets", scanS, (scanned / 2.0) / scanS);
    if (pt != null) {
      System.out.printf(
          "%-52s %10.2f %,12.0f%n",
          "pt-table-sync --print db1 vs db2 (a full copy)", ptS, rows / ptS);
    } else {
      System.out.printf(
          "%-52s %10s %12s%n", "pt-table-sync --print: skipped, not on PATH", "-", "-");
    }
    System.out.printf(
        "copy / dump rate: %.2f   diff / scan rate: %.2f   diff / pt-table-sync rate: %s%n",
        dumpS / copyS, scanS / diffS, pt == null ? "-" : String.format("%.2f", ptS / diffS));
    System.out.printf(
        "(copy: %,d rows, last chunk size %d; diff: %,d keys compared, %d differences named by"
            + " both tools where run; scan: %,d rows read, rate per source row; pt-table-sync:"
            + " rows per side)%n",
        p.rowsCopied(), p.tables().get(0).chunkRows(), compared, diffs.count(), scanned);
    System.out.printf(
        "%nCPU seconds per process over each run (/proc/PID/stat; children: pt-table-sync,"
            + " mariadb-dump and mariadb, counted when they end):%n");
    cpuLines.forEach(System.out::println);
    if (ratios.size() > 1) {
      System.out.printf(
          "%nthe diff and pt-table-sync run one after the other, %d times:%n", ratios.size());
      pairLines.forEach(System.out::println);
      List<Double> sorted = ratios.stream().sorted().toList();
      System.out.printf(
          "diff / pt-table-sync rate: lowest %.2f, median %.2f, highest %.2f%n",
          sorted.get(0), sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1));
    }
  }

  /** One {@link Differ} for both targets of {@code copy}, reading the source once. */
  private static List<DiffReport> diffBoth(
      ClusterDescriptor.Server src, CopySpec copy, VSchema vschema, DifferConfig config)
      throws Exception {
    return new Differ(
            new DiffSpec("bench", DB, endpoint(src), copy.targets(), List.of("messages"), vschema),
            config,
            List.of(StreamControl.none(), StreamControl.none()),
            DiffListener.NONE)
        .runAll();
  }

  private static String pairLine(int pair, double diffS, double ptS, String diffCpu, String ptCpu) {
    return String.format(
        "  %d: diff %.2f s, pt-table-sync %.2f s, ratio %.2f%n    diff %s%n    pt-table-sync %s",
        pair, diffS, ptS, ptS / diffS, diffCpu.strip(), ptCpu.strip());
  }

  private static void load(ClusterDescriptor.Server s, int rows) throws Exception {
    Random r = new Random(1);
    String words = "the quick brown fox jumps over a lazy dog while shards split and merge online ";
    LocalDateTime t = LocalDateTime.of(2026, 1, 1, 0, 0);
    int batch = 1000;
    try (Connection c = connect(s, DB)) {
      c.setAutoCommit(false);
      String sql =
          "INSERT INTO messages VALUES "
              + String.join(", ", Collections.nCopies(batch, "(?, ?, ?, ?, ?)"));
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        for (int id = 1; id <= rows; id += batch) {
          int p = 1;
          for (int i = 0; i < batch; i++) {
            long key = Math.min(id + i, rows);
            int start = r.nextInt(words.length());
            String body = (words + words + words).substring(start, start + 120 + r.nextInt(20));
            ps.setLong(p++, id + i <= rows ? key : -(id + i)); // pad the last batch below zero
            ps.setLong(p++, 1 + r.nextInt(5000));
            ps.setLong(p++, 1 + r.nextInt(100_000));
            ps.setObject(p++, t.plusNanos(1000L * (id + i)));
            ps.setString(p++, body);
          }
          ps.executeUpdate();
        }
      }
      try (Statement st = c.createStatement()) {
        st.execute("DELETE FROM messages WHERE id < 0");
      }
      c.commit();
    }
  }

  private static void dump(ClusterDescriptor.Server from, ClusterDescriptor.Server to)
      throws Exception {
    String cmd =
        String.format(
            "set -o pipefail; mariadb-dump --no-defaults -h127.0.0.1 -P%d -uroot"
                + " --single-transaction %s messages | mariadb --no-defaults -h127.0.0.1 -P%d -uroot"
                + " bench_dump",
            from.port(), DB, to.port());
    Process p = new ProcessBuilder("bash", "-c", cmd).inheritIO().start();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("mariadb-dump | mariadb failed: exit " + p.exitValue());
    }
  }

  private static long scan(ClusterDescriptor.Server s) throws Exception {
    long n = 0;
    try (Connection c = connect(s, DB);
        Statement st = c.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      st.setFetchSize(1000); // Connector/J 3 streams with any positive fetch size
      try (ResultSet rs =
          st.executeQuery(
              "SELECT id, channel_id, user_id, created_at, body FROM messages ORDER BY id")) {
        List<String> sink = new ArrayList<>(5);
        while (rs.next()) {
          sink.clear();
          for (int i = 1; i <= 5; i++) {
            sink.add(rs.getString(i));
          }
          n++;
        }
      }
    }
    return n;
  }

  private static JdbcEndpoint endpoint(ClusterDescriptor.Server s) {
    return new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), "");
  }

  private static Connection connect(ClusterDescriptor.Server s, String db) throws Exception {
    return DriverManager.getConnection(s.jdbcUrl(db), s.user(), "");
  }

  private static void sql(ClusterDescriptor.Server s, String db, String... statements)
      throws Exception {
    try (Connection c = connect(s, db);
        Statement st = c.createStatement()) {
      for (String q : statements) {
        st.execute(q);
      }
    }
  }

  private static double seconds(long t0) {
    return (System.nanoTime() - t0) / 1e9;
  }
}
