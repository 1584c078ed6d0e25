package io.reshard.bench.cdc;

import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.ApplyEngine;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.VSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * End-to-end lag, source commit to applied on the target, at fixed source write rates: reshard's
 * CaptureEngine and ApplyEngine run in this JVM (default settings), a writer inserts chat rows into
 * the source at each rate for a fixed time, and a poller reads {@code MAX(id)} on the target every
 * 5 ms.
 *
 * <p>The writer commits one multi-row INSERT every 10 ms (rate / 100 rows; ids ascending) and notes
 * the time its commit returned; when the poller first sees a transaction's last id on the target,
 * that transaction's lag is now minus that time (one clock, this JVM's {@code nanoTime}; the poller
 * adds up to 5 ms). Lag is "bounded" at a rate when the writer kept the rate and the lag of the
 * last second's transactions is under 2 s, i.e. the pipeline is not falling behind.
 */
final class LagBenchmark {
  private static final String DATABASE = "lag";
  private static final int TICK_MILLIS = 10;
  private static final Duration DRAIN = Duration.ofSeconds(60);
  private static final Duration WARM_UP = Duration.ofSeconds(10);

  private final ClusterDescriptor cluster;
  private final List<Integer> rates;
  private final int seconds;

  /** One written transaction: its last id and when its commit returned. */
  private record Written(long lastId, long committedNanos) {}

  LagBenchmark(ClusterDescriptor cluster, List<Integer> rates, int seconds) {
    this.cluster = cluster;
    this.rates = rates;
    this.seconds = seconds;
  }

  void run() throws Exception {
    ClusterDescriptor.Server source = cluster.shards().get(0);
    ClusterDescriptor.Server target = cluster.spares().get(0);
    ChatBacklog.createTable(source, DATABASE);
    ChatBacklog.createTable(target, DATABASE);
    GtidPosition p0 = GtidPosition.parse(ChatBacklog.binlogPosition(source));
    String topic = ChangeRecords.changeTopic("lag", DATABASE, "-");
    System.out.printf(
        "%n3. end-to-end lag (source commit -> row on the target), %d s per rate, capture and"
            + " apply in one JVM with default settings%n",
        seconds);
    try (CaptureEngine capture = new CaptureEngine(captureConfig(source, p0));
        ApplyEngine apply = new ApplyEngine(applyConfig(target, topic, p0))) {
      capture.start();
      apply.start();
      long started = System.nanoTime();
      // measure only once a change flows end to end (capture's start-up is not lag)
      ChatBacklog.execute(
          source,
          "INSERT INTO " + DATABASE + ".messages VALUES (1, 1, 1, UTC_TIMESTAMP(6), 'warm-up')");
      GtidPosition warm = GtidPosition.parse(ChatBacklog.binlogPosition(source));
      if (!apply.awaitApplied(topic, warm, Duration.ofSeconds(120))) {
        throw new IllegalStateException(
            "the lag pipeline did not start: " + apply.lastError() + ", " + capture.failure());
      }
      System.out.printf(
          "   first change applied %.1f s after capture and apply were started%n",
          (System.nanoTime() - started) / 1e9);
      System.out.printf(
          "   %-10s %10s %8s %8s %8s %12s  %s%n",
          "rate", "written/s", "p50 ms", "p99 ms", "max ms", "last 1 s ms", "");
      // a warm-up at the lowest rate, not counted: the engines' code is still being compiled
      long nextId = measure(source, target, rates.get(0), 2, WARM_UP, false);
      for (int rate : rates) {
        nextId = measure(source, target, rate, nextId, Duration.ofSeconds(seconds), true);
        if (capture.state() == CaptureEngine.State.FAILED) {
          throw new IllegalStateException("capture failed", capture.failure().orElse(null));
        }
      }
    }
  }

  /** Writes at {@code rate} for {@code duration}, waits for the target, prints; the next id. */
  private long measure(
      ClusterDescriptor.Server source,
      ClusterDescriptor.Server target,
      int rate,
      long firstId,
      Duration duration,
      boolean print)
      throws Exception {
    int rowsPerTick = Math.max(1, rate * TICK_MILLIS / 1000);
    ConcurrentLinkedQueue<Written> written = new ConcurrentLinkedQueue<>();
    Poller poller = new Poller(target, written);
    Thread pollerThread = new Thread(poller, "lag-poller");
    pollerThread.start();
    long id = firstId;
    long start = System.nanoTime();
    long ticks = duration.toMillis() / TICK_MILLIS;
    try (Connection c = ChatBacklog.connect(source, DATABASE);
        PreparedStatement ps = c.prepareStatement(insertSql(rowsPerTick))) {
      for (long t = 0; t < ticks; t++) {
        long due = start + t * TICK_MILLIS * 1_000_000L;
        long wait = due - System.nanoTime();
        if (wait > 0) {
          Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        int p = 1;
        for (int i = 0; i < rowsPerTick; i++, id++) {
          ps.setLong(p++, id);
          ps.setLong(p++, 1 + id % 5000);
          ps.setLong(p++, 1 + id % 100_000);
          ps.setString(p++, "lag probe row " + id + " " + "x".repeat(110));
        }
        ps.executeUpdate();
        written.add(new Written(id - 1, System.nanoTime()));
      }
    }
    double writeSeconds = (System.nanoTime() - start) / 1e9;
    long total = id - firstId;
    poller.awaitDrained(id - 1, DRAIN);
    poller.stop();
    pollerThread.join();
    if (print) {
      print(
          rate,
          total / writeSeconds,
          poller.lagsMillis(),
          poller.lastSecondLagMillis(),
          id - 1,
          poller.seenMaxId());
    }
    return id;
  }

  private void print(
      int rate, double achieved, long[] lags, double lastSecond, long lastId, long seenMax) {
    Arrays.sort(lags);
    boolean drained = seenMax >= lastId;
    boolean bounded = drained && achieved >= rate * 0.95 && lastSecond < 2000;
    System.out.printf(
        "   %-10s %,10.0f %8d %8d %8d %12.0f  %s%n",
        String.format("%,d/s", rate),
        achieved,
        percentile(lags, 0.50),
        percentile(lags, 0.99),
        lags.length == 0 ? -1 : lags[lags.length - 1],
        lastSecond,
        !drained
            ? "NOT DRAINED within " + DRAIN.toSeconds() + " s (lag unbounded)"
            : bounded ? "bounded" : "growing or rate not reached");
  }

  private static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return -1;
    }
    return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
  }

  private static String insertSql(int rows) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      values.add("(?, ?, ?, UTC_TIMESTAMP(6), ?)");
    }
    return "INSERT INTO messages (id, channel_id, user_id, created_at, body) VALUES "
        + String.join(", ", values);
  }

  private CaptureConfig captureConfig(ClusterDescriptor.Server source, GtidPosition p0) {
    Map<String, String> m = new HashMap<>();
    m.put("source.host", source.host());
    m.put("source.port", Integer.toString(source.port()));
    m.put("source.user", source.user());
    m.put("source.server.id", "9901");
    m.put("keyspace", DATABASE);
    m.put("shard", "-");
    m.put("kafka.bootstrap.servers", cluster.kafka().bootstrap());
    m.put("topic.prefix", "lag");
    m.put("start.position", p0.toString());
    return CaptureConfig.from(m);
  }

  private ApplyConfig applyConfig(ClusterDescriptor.Server target, String topic, GtidPosition p0) {
    return new ApplyConfig(
        "lag",
        "-",
        target.jdbcUrl(DATABASE),
        target.user(),
        "",
        DATABASE,
        VSchema.parse(ChatBacklog.VSCHEMA),
        cluster.kafka().bootstrap(),
        Map.of(topic, p0),
        ApplyConfig.DEFAULT_MAX_ROWS_PER_COMMIT,
        Duration.ofMillis(100));
  }

  /** Polls the target's highest id and turns first sightings into lags. */
  private static final class Poller implements Runnable {
    private final ClusterDescriptor.Server target;
    private final ConcurrentLinkedQueue<Written> written;
    private final List<Long> lags = new ArrayList<>();
    private final List<long[]> seenAt = new ArrayList<>(); // {committedNanos, lagMillis}
    private volatile boolean running = true;
    private volatile long seenMax;

    Poller(ClusterDescriptor.Server target, ConcurrentLinkedQueue<Written> written) {
      this.target = target;
      this.written = written;
    }

    @Override
    public void run() {
      try (Connection c = ChatBacklog.connect(target, DATABASE);
          PreparedStatement ps = c.prepareStatement("SELECT MAX(id) FROM messages")) {
        while (running) {
          long max;
          try (ResultSet rs = ps.executeQuery()) {
            rs.next();
            max = rs.getLong(1);
          }
          long now = System.nanoTime();
          synchronized (this) {
            for (Written w = written.peek(); w != null && w.lastId() <= max; w = written.peek()) {
              written.poll();
              long lag = (now - w.committedNanos()) / 1_000_000;
              lags.add(lag);
              seenAt.add(new long[] {w.committedNanos(), lag});
            }
            seenMax = max;
            notifyAll();
          }
          Thread.sleep(5);
        }
      } catch (SQLException | InterruptedException e) {
        throw new IllegalStateException("lag poller failed", e);
      }
    }

    synchronized void awaitDrained(long lastId, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (seenMax < lastId && System.nanoTime() < deadline) {
        wait(100);
      }
    }

    void stop() {
      running = false;
    }

    long seenMaxId() {
      return seenMax;
    }

    synchronized long[] lagsMillis() {
      return lags.stream().mapToLong(Long::longValue).toArray();
    }

    /** Mean lag of the transactions committed in the run's last second. */
    synchronized double lastSecondLagMillis() {
      if (seenAt.isEmpty()) {
        return Double.NaN;
      }
      long last = seenAt.get(seenAt.size() - 1)[0];
      return seenAt.stream()
          .filter(s -> s[0] >= last - 1_000_000_000L)
          .mapToLong(s -> s[1])
          .average()
          .orElse(Double.NaN);
    }
  }
}
