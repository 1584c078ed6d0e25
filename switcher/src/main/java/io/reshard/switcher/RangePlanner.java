package io.reshard.switcher;

import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * Proposes target ranges for a reshard from the real key distribution ({@code reshard plan}): cuts
 * a {@link KeyDistribution} into {@code n} contiguous key ranges whose busiest range holds as few
 * rows as any cut can give, or into the fewest ranges none of which holds more than a given share.
 * Pure: no I/O.
 *
 * <p><b>Algorithm.</b> The distribution's distinct keyspace ids, in order, carry weights (their
 * rows in thousandths, so the sums are exact integers). A contiguous range holds a run of them, and
 * no range can split one ksid. For a cap {@code C}, the fewest runs whose sums are each at most
 * {@code C} are found greedily (each run as long as it fits); the smallest {@code C} that needs at
 * most {@code n} runs is found by binary search between the largest single weight and the total.
 * That is the least busiest share any partition into {@code n} ranges can have (the classic linear
 * partition bound). The runs are then chosen left to right, each as close as it can be to an even
 * share of what is left ({@code left / runs left}) while every run stays within {@code C} and what
 * is left can still be cut into the runs left within {@code C} (the fewest runs of every suffix are
 * precomputed), and each run keeps at least one ksid; so the busiest share is optimal and the
 * others are as even as that allows, not crowded into the first ranges.
 *
 * <p><b>Boundaries.</b> A cut between the last ksid {@code a} of one run and the first ksid {@code
 * b} of the next is a boundary {@code c} with {@code a < c <= b} (ranges are {@code [start, end)}),
 * written with the fewest bytes at which such a {@code c} exists and, at that width, midway between
 * the two: between {@code 3a41...} and {@code 3a97...} it is {@code 3a6c}. Trailing zero bytes are
 * dropped ({@code 80}, not {@code 8000}). The rows the sample did not see between {@code a} and
 * {@code b} are thus shared between the two ranges. Cuts between keys of a large sample need 2 to 4
 * bytes; never more than the ksids' own length.
 *
 * <p>Stateless and thread-safe.
 */
public final class RangePlanner {
  /** Weights are rows in thousandths: sampled rows stand for fractions of rows. */
  private static final double WEIGHT_UNITS_PER_ROW = 1000.0;

  private static final HexFormat HEX = HexFormat.of();

  private RangePlanner() {}

  /**
   * Cuts the distribution's range into {@code n} ranges.
   *
   * @param n the number of target ranges, at least 1
   * @throws IllegalArgumentException if {@code n < 1}
   * @throws SwitchRefusedException if the distribution has no rows, or fewer distinct keyspace ids
   *     than {@code n} (a range without a row could only be cut arbitrarily)
   */
  public static RangePlan plan(KeyDistribution d, int n) {
    if (n < 1) {
      throw new IllegalArgumentException(
          "cannot plan " + n + " ranges: the number of target ranges must be at least 1");
    }
    Weights w = Weights.of(d);
    if (w.size() < n) {
      throw new SwitchRefusedException(
          "the sample has only "
              + w.size()
              + " distinct keyspace id"
              + (w.size() == 1 ? "" : "s")
              + " in "
              + d.range().name()
              + ", so at most "
              + w.size()
              + " ranges can each hold rows: ask for at most "
              + w.size()
              + " ranges (no range can split one keyspace id)");
    }
    long cap = leastCap(w, n);
    int[] cuts = cuts(w, n, cap);
    return result(d, cuts);
  }

  /**
   * Cuts the distribution's range into the fewest ranges none of which holds more than {@code
   * maxShare} of the rows, as even as {@link #plan} makes them.
   *
   * @param maxShare the largest share one range may hold, more than 0 and at most 1 (0.15 = 15%)
   * @throws IllegalArgumentException if {@code maxShare} is not in {@code (0, 1]}
   * @throws SwitchRefusedException if the distribution has no rows, or a single keyspace id holds
   *     more than {@code maxShare} (no range can split it), naming each such ksid and its share
   */
  public static RangePlan planForMaxShare(KeyDistribution d, double maxShare) {
    if (!(maxShare > 0 && maxShare <= 1)) {
      throw new IllegalArgumentException(
          "the largest share of one range must be more than 0 and at most 1 (0.15 = 15%); got "
              + maxShare);
    }
    Weights w = Weights.of(d);
    // a share typed as 0.21 is 0.2099999...: a key holding exactly 21% must still fit
    long cap = (long) Math.floor(maxShare * w.total() * (1 + 1e-12));
    List<String> tooHot = new ArrayList<>();
    for (int i = 0; i < w.size(); i++) {
      if (w.weight(i) > cap) {
        tooHot.add(describe(d.points().get(i), (double) w.weight(i) / w.total()));
      }
    }
    if (!tooHot.isEmpty()) {
      throw new SwitchRefusedException(
          "no range can hold at most "
              + percent(maxShare)
              + " of the rows: "
              + String.join("; ", tooHot)
              + ", and no range can split one keyspace id; allow a larger share, or spread that"
              + " key's rows over several sharding keys");
    }
    return plan(d, w.runs(cap));
  }

  /**
   * A boundary {@code c} with {@code below < c <= atOrAbove}, in the fewest bytes, midway at that
   * width, trailing zero bytes dropped: see the class description.
   *
   * @return its lower-case hex, never empty
   * @throws IllegalArgumentException if {@code below} is not below {@code atOrAbove}
   */
  static String boundary(KeyspaceId below, KeyspaceId atOrAbove) {
    byte[] a = below.bytes();
    byte[] b = atOrAbove.bytes();
    int widest = Math.max(a.length, b.length);
    for (int width = 1; width <= widest; width++) {
      BigInteger lo = prefix(a, width).add(BigInteger.ONE);
      BigInteger hi = prefix(b, width);
      if (lo.compareTo(hi) <= 0) {
        return trimmedHex(lo.add(hi).shiftRight(1), width);
      }
    }
    throw new IllegalArgumentException(
        "no boundary between keyspace ids " + below + " and " + atOrAbove + ": not in order");
  }

  /**
   * A share as people read it, as every message of the planner prints it: {@code 12.5%}; below 0.1%
   * with three decimals, {@code 0.040%}.
   *
   * @param share 0 to 1
   */
  public static String percent(double share) {
    double p = share * 100;
    return String.format(Locale.ROOT, p != 0 && p < 0.1 ? "%.3f%%" : "%.1f%%", p);
  }

  /** The smallest cap with which the weights fit in at most {@code n} runs. */
  private static long leastCap(Weights w, int n) {
    long lo = w.largest(); // no cap below the heaviest ksid works
    long hi = w.total(); // one run holds everything
    while (lo < hi) {
      long mid = lo + (hi - lo) / 2;
      if (w.runs(mid) <= n) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /**
   * The run boundaries, as indexes into the weights: {@code cuts[0] = 0}, {@code cuts[n] = size},
   * run {@code k} holding ksids {@code cuts[k] .. cuts[k+1]-1}; see the class description.
   */
  private static int[] cuts(Weights w, int n, long cap) {
    int m = w.size();
    int[] fewest = w.fewestRunsOfSuffixes(cap);
    int[] cuts = new int[n + 1];
    cuts[n] = m;
    int s = 0;
    for (int k = 1; k < n; k++) {
      int runsLeft = n - k + 1; // this run and the ones after it
      int hi = Math.min(w.reach(s, cap), m - (runsLeft - 1)); // fits, leaves a ksid per run
      int lo = firstAtMost(fewest, s + 1, hi, runsLeft - 1); // the rest still fits
      long target = w.prefix(s) + (w.prefix(m) - w.prefix(s)) / runsLeft;
      s = closest(w, lo, hi, target);
      cuts[k] = s;
    }
    return cuts;
  }

  /** The first index in {@code [from, to]} with {@code fewest[i] <= runs} (non-increasing). */
  private static int firstAtMost(int[] fewest, int from, int to, int runs) {
    int lo = from;
    int hi = to;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (fewest[mid] <= runs) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return lo;
  }

  /** The index in {@code [lo, hi]} whose prefix sum is closest to {@code target}. */
  private static int closest(Weights w, int lo, int hi, long target) {
    int a = lo;
    int b = hi;
    while (a < b) { // first index whose prefix sum is at least the target
      int mid = (a + b) >>> 1;
      if (w.prefix(mid) < target) {
        a = mid + 1;
      } else {
        b = mid;
      }
    }
    if (a > lo && target - w.prefix(a - 1) <= w.prefix(a) - target) {
      return a - 1;
    }
    return a;
  }

  private static RangePlan result(KeyDistribution d, int[] cuts) {
    int n = cuts.length - 1;
    List<KeyspaceId> ksids = d.points().stream().map(KeyDistribution.Point::ksid).toList();
    String startHex = d.range().start().map(KeyspaceId::hex).orElse("");
    String endHex = d.range().end().map(KeyspaceId::hex).orElse("");
    double total = d.totalRows();
    double[] rowsBefore = new double[ksids.size() + 1]; // summed as rowsPerRange sums them
    for (int i = 0; i < ksids.size(); i++) {
      rowsBefore[i + 1] = rowsBefore[i] + d.points().get(i).rows();
    }
    List<RangePlan.Target> targets = new ArrayList<>(n);
    String from = startHex;
    for (int k = 0; k < n; k++) {
      String to =
          k == n - 1 ? endHex : boundary(ksids.get(cuts[k + 1] - 1), ksids.get(cuts[k + 1]));
      KeyRange range = n == 1 ? d.range() : KeyRange.parse(from + "-" + to);
      double rows = rowsBefore[cuts[k + 1]] - rowsBefore[cuts[k]];
      targets.add(target(range, rows, total, cuts[k + 1] - cuts[k]));
      from = to;
    }
    List<KeyRange> evenRanges = d.range().split(n);
    double[] evenRows = d.rowsPerRange(evenRanges);
    int[] evenIds = idsPerRange(ksids, evenRanges);
    List<RangePlan.Target> even = new ArrayList<>(n);
    for (int k = 0; k < n; k++) {
      even.add(target(evenRanges.get(k), evenRows[k], total, evenIds[k]));
    }
    List<RangePlan.HotKey> hot = new ArrayList<>();
    for (KeyDistribution.Point p : d.points()) {
      if (p.rows() * n > total) {
        hot.add(new RangePlan.HotKey(p.ksid(), p.rows(), p.rows() / total, p.example()));
      }
    }
    return new RangePlan(d.range(), targets, even, hot, total);
  }

  private static RangePlan.Target target(KeyRange range, double rows, double total, int ids) {
    return new RangePlan.Target(range, rows, total == 0 ? 0 : rows / total, ids);
  }

  private static int[] idsPerRange(List<KeyspaceId> ksids, List<KeyRange> ranges) {
    int[] ids = new int[ranges.size()];
    int r = 0;
    for (KeyspaceId k : ksids) {
      while (r < ranges.size() && !ranges.get(r).contains(k)) {
        r++;
      }
      if (r < ranges.size()) {
        ids[r]++;
      }
    }
    return ids;
  }

  /** {@code keyspace id 166b40b44aba4bd6 (messages.channel_id=1) holds 12.0% of the rows}. */
  static String describe(KeyDistribution.Point p, double share) {
    return "keyspace id "
        + p.ksid()
        + (p.example() == null ? "" : " (" + p.example() + ")")
        + " holds "
        + percent(share)
        + " of the rows";
  }

  /** The first {@code width} bytes of {@code b}, zero-padded, as an unsigned integer. */
  private static BigInteger prefix(byte[] b, int width) {
    byte[] p = new byte[width];
    System.arraycopy(b, 0, p, 0, Math.min(width, b.length));
    return new BigInteger(1, p);
  }

  /** {@code v} as {@code width} big-endian bytes without trailing zero bytes, in hex. */
  private static String trimmedHex(BigInteger v, int width) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[width];
    int copy = Math.min(raw.length, width);
    System.arraycopy(raw, raw.length - copy, out, width - copy, copy);
    int len = width;
    while (len > 1 && out[len - 1] == 0) {
      len--;
    }
    return HEX.formatHex(out, 0, len);
  }

  /** The distribution's ksids as exact integer weights with their prefix sums. */
  private static final class Weights {
    private final long[] prefix;
    private final long largest;

    private Weights(long[] prefix, long largest) {
      this.prefix = prefix;
      this.largest = largest;
    }

    /**
     * @throws SwitchRefusedException if the distribution has no rows
     */
    static Weights of(KeyDistribution d) {
      List<KeyDistribution.Point> points = d.points();
      if (points.isEmpty()) {
        throw new SwitchRefusedException(
            "no rows in key range "
                + d.range().name()
                + ": there is nothing to plan ranges by; load the data first, or check that the"
                + " vschema names the tables that hold it");
      }
      long[] prefix = new long[points.size() + 1];
      long largest = 0;
      for (int i = 0; i < points.size(); i++) {
        long w = Math.max(1, Math.round(points.get(i).rows() * WEIGHT_UNITS_PER_ROW));
        prefix[i + 1] = Math.addExact(prefix[i], w);
        largest = Math.max(largest, w);
      }
      return new Weights(prefix, largest);
    }

    int size() {
      return prefix.length - 1;
    }

    long weight(int i) {
      return prefix[i + 1] - prefix[i];
    }

    long prefix(int i) {
      return prefix[i];
    }

    long total() {
      return prefix[size()];
    }

    long largest() {
      return largest;
    }

    /** The end of the longest run from {@code s} within {@code cap}; {@code s} if none fits. */
    int reach(int s, long cap) {
      int lo = s;
      int hi = size();
      while (lo < hi) { // the last index e with prefix[e] - prefix[s] <= cap
        int mid = (lo + hi + 1) >>> 1;
        if (prefix[mid] - prefix[s] <= cap) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return lo;
    }

    /** The fewest runs within {@code cap}, greedily; {@code Integer.MAX_VALUE} if none can. */
    int runs(long cap) {
      int count = 0;
      for (int s = 0; s < size(); count++) {
        int e = reach(s, cap);
        if (e == s) {
          return Integer.MAX_VALUE;
        }
        s = e;
      }
      return count;
    }

    /**
     * For each index {@code i}, the fewest runs within {@code cap} that hold ksids {@code i..}; 0
     * at the end. Non-increasing in {@code i}. Needs {@code cap >= largest()}.
     */
    int[] fewestRunsOfSuffixes(long cap) {
      int[] fewest = new int[size() + 1];
      for (int i = size() - 1; i >= 0; i--) {
        fewest[i] = 1 + fewest[reach(i, cap)];
      }
      return fewest;
    }
  }
}
