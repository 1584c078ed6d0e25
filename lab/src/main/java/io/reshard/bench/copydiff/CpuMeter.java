package io.reshard.bench.copydiff;

import io.reshard.cluster.ClusterDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU seconds spent by the benchmark's processes over a window, read from {@code /proc/PID/stat}
 * (Linux only; elsewhere every figure is 0): each {@code mariadbd} of the cluster, this JVM, and
 * this JVM's ended child processes (pt-table-sync, mariadb-dump). Not thread-safe.
 */
final class CpuMeter {
  /** Clock ticks per second of {@code /proc/PID/stat}; 100 on every Linux this runs on. */
  private static final double HZ = 100.0;

  private final List<Long> pids = new ArrayList<>();
  private final List<String> names = new ArrayList<>();

  CpuMeter(List<ClusterDescriptor.Server> servers) {
    for (ClusterDescriptor.Server s : servers) {
      pids.add(s.pid());
      names.add(s.name());
    }
  }

  /** A reading: per server, then this JVM, then its ended children, in clock ticks. */
  long[] now() {
    long[] t = new long[pids.size() + 2];
    for (int i = 0; i < pids.size(); i++) {
      t[i] = ticks(Path.of("/proc/" + pids.get(i) + "/stat"), false);
    }
    t[pids.size()] = ticks(Path.of("/proc/self/stat"), false);
    t[pids.size() + 1] = ticks(Path.of("/proc/self/stat"), true);
    return t;
  }

  /** The CPU seconds of each process since {@code before}, as one line. */
  String since(long[] before, double wallSeconds) {
    long[] after = now();
    StringBuilder out = new StringBuilder("    cpu s:");
    double total = 0;
    for (int i = 0; i < after.length; i++) {
      double s = (after[i] - before[i]) / HZ;
      total += s;
      String name = i < names.size() ? names.get(i) : i == names.size() ? "jvm" : "children";
      out.append(String.format(" %s %.2f", name, s));
    }
    out.append(
        String.format(
            "  total %.2f over %.2f s wall (%.0f %% of 2 cores)",
            total, wallSeconds, 100 * total / (2 * wallSeconds)));
    return out.toString();
  }

  /** utime + stime (or cutime + cstime) of a {@code stat} file; 0 if unreadable. */
  private static long ticks(Path stat, boolean children) {
    try {
      String s = Files.readString(stat);
      // fields after the command name, which is in parentheses and may hold spaces
      String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
      // f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17
      int at = children ? 13 : 11;
      return Long.parseLong(f[at]) + Long.parseLong(f[at + 1]);
    } catch (IOException | RuntimeException e) {
      return 0;
    }
  }
}
