package io.reshard.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntConsumer;

/**
 * Collects per-operation latencies of one benchmark variant from several threads and reports count,
 * rate and percentiles. Each thread records into its own array; {@link #merge} combines. Not
 * thread-safe itself: one instance per thread, merged at the end.
 */
public final class LatencyRecorder {
  private long[] nanos = new long[1 << 16];
  private int n;

  public void record(long latencyNanos) {
    if (n == nanos.length) {
      nanos = Arrays.copyOf(nanos, n * 2);
    }
    nanos[n++] = latencyNanos;
  }

  public int count() {
    return n;
  }

  public static LatencyRecorder merge(Iterable<LatencyRecorder> parts) {
    LatencyRecorder all = new LatencyRecorder();
    for (LatencyRecorder p : parts) {
      for (int i = 0; i < p.n; i++) {
        all.record(p.nanos[i]);
      }
    }
    Arrays.sort(all.nanos, 0, all.n);
    return all;
  }

  /** The q-quantile in milliseconds of a merged (sorted) recorder. */
  public double quantileMillis(double q) {
    if (n == 0) {
      return Double.NaN;
    }
    int i = (int) Math.min(n - 1, Math.round(q * (n - 1)));
    return nanos[i] / 1e6;
  }

  /**
   * Runs {@code op} from {@code threads} threads until {@code duration} has passed and returns the
   * merged latencies. Each thread calls {@code op} with its own call counter.
   */
  public static LatencyRecorder runFor(int threads, Duration duration, IntConsumer op)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      long end = System.nanoTime() + duration.toNanos();
      List<Future<LatencyRecorder>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        futures.add(
            pool.submit(
                () -> {
                  LatencyRecorder r = new LatencyRecorder();
                  int i = 0;
                  while (System.nanoTime() < end) {
                    long s = System.nanoTime();
                    op.accept(i++);
                    r.record(System.nanoTime() - s);
                  }
                  return r;
                }));
      }
      List<LatencyRecorder> parts = new ArrayList<>();
      for (Future<LatencyRecorder> f : futures) {
        parts.add(f.get());
      }
      return merge(parts);
    } finally {
      pool.shutdown();
    }
  }
}
