package io.reshard.switcher;

import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * How a keyspace's rows spread over its keyspace ids, from a sample: the distinct ksids seen, each
 * with the rows it stands for, in ksid order, over one key range (the keyspace, or the union of a
 * workflow's source shards). What {@link RangePlanner} cuts into target ranges and what {@link
 * KeyDistributionSampler} reads from the shards' servers.
 *
 * <p>A sampled row stands for {@code rows / sampled} rows of its table on its shard, so a point's
 * {@link Point#rows} is an estimate (fractional when sampled) and every share is of the estimated
 * total. Equal ksids (trailing zero bytes ignored) are one point: no key range can split one ksid.
 *
 * <p>Immutable and thread-safe.
 */
public final class KeyDistribution {

  /**
   * One keyspace id and the rows it stands for.
   *
   * @param ksid the keyspace id
   * @param rows the rows with this ksid, estimated from the sample; positive
   * @param example a sharding key that maps to it, e.g. {@code messages.channel_id=7}; null if none
   *     was kept
   */
  public record Point(KeyspaceId ksid, double rows, String example) {
    /** Checks the ksid and that the rows are positive and finite. */
    public Point {
      Objects.requireNonNull(ksid, "ksid");
      if (!(rows > 0) || Double.isInfinite(rows)) {
        throw new IllegalArgumentException("a point stands for a positive number of rows: " + rows);
      }
    }
  }

  /**
   * How one table on one shard was read.
   *
   * @param shard the shard, e.g. {@code -40}
   * @param table the table
   * @param rows its rows ({@code COUNT(*)})
   * @param sampled the rows read and placed (all of them when {@code rows} is at most the sample
   *     size)
   * @param skipped rows read but not placed: a NULL or unmappable sharding key, or a ksid outside
   *     the shard's range or the planned range
   * @param note why the table was not read on this shard (a sequence, a table missing there, one
   *     the vschema places by a lookup vindex), or null if it was
   */
  public record TableSample(
      String shard, String table, long rows, long sampled, long skipped, String note) {}

  private final KeyRange range;
  private final List<Point> points;
  private final List<TableSample> tables;
  private final double totalRows;

  private KeyDistribution(KeyRange range, List<Point> points, List<TableSample> tables) {
    this.range = range;
    this.points = points;
    this.tables = tables;
    double sum = 0;
    for (Point p : points) {
      sum += p.rows();
    }
    this.totalRows = sum;
  }

  /**
   * A distribution over {@code range}.
   *
   * @param points in any order; equal ksids are merged (rows added, the first example kept)
   * @param tables how each table on each shard was read (may be empty, for tests)
   * @throws IllegalArgumentException naming the ksid if a point lies outside {@code range}
   */
  public static KeyDistribution of(
      KeyRange range, Collection<Point> points, List<TableSample> tables) {
    Objects.requireNonNull(range, "range");
    List<Point> sorted = new ArrayList<>(points);
    sorted.sort(Comparator.comparing(Point::ksid));
    List<Point> merged = new ArrayList<>(sorted.size());
    for (Point p : sorted) {
      if (!range.contains(p.ksid())) {
        throw new IllegalArgumentException(
            "keyspace id " + p.ksid() + " is outside key range " + range.name());
      }
      int last = merged.size() - 1;
      if (last >= 0 && merged.get(last).ksid().equals(p.ksid())) {
        Point q = merged.get(last);
        merged.set(
            last,
            new Point(
                q.ksid(), q.rows() + p.rows(), q.example() != null ? q.example() : p.example()));
      } else {
        merged.add(p);
      }
    }
    return new KeyDistribution(range, List.copyOf(merged), List.copyOf(tables));
  }

  /** The key range the distribution covers. */
  public KeyRange range() {
    return range;
  }

  /** The distinct ksids in ksid order, each with its rows. */
  public List<Point> points() {
    return points;
  }

  /** How each table on each shard was read, in the order read. */
  public List<TableSample> tables() {
    return tables;
  }

  /** The rows the points stand for (estimated when sampled). */
  public double totalRows() {
    return totalRows;
  }

  /** The rows of the tables read ({@code COUNT(*)} summed over tables and shards). */
  public long countedRows() {
    return tables.stream().mapToLong(TableSample::rows).sum();
  }

  /** The rows read and placed, summed over tables and shards. */
  public long sampledRows() {
    return tables.stream().mapToLong(TableSample::sampled).sum();
  }

  /** The rows read but not placed (see {@link TableSample#skipped}). */
  public long skippedRows() {
    return tables.stream().mapToLong(TableSample::skipped).sum();
  }

  /**
   * The rows of each range, by the points each contains.
   *
   * @param ranges contiguous ranges in order
   * @return one sum per range, in the same order; points outside every range are not counted
   */
  public double[] rowsPerRange(List<KeyRange> ranges) {
    double[] rows = new double[ranges.size()];
    int r = 0;
    for (Point p : points) {
      while (r < ranges.size() && isBeyond(p.ksid(), ranges.get(r))) {
        r++;
      }
      if (r == ranges.size()) {
        break;
      }
      if (ranges.get(r).contains(p.ksid())) {
        rows[r] += p.rows();
      }
    }
    return rows;
  }

  /** True if {@code ksid} is at or after the end of {@code range}. */
  private static boolean isBeyond(KeyspaceId ksid, KeyRange range) {
    return range.end().map(end -> ksid.compareTo(end) >= 0).orElse(false);
  }
}
