package io.reshard.copier;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * A snapshot of a copy's progress, per table and overall, for the CLI's progress bar: rows copied,
 * the estimated total (the source's {@code information_schema.TABLES.TABLE_ROWS}, which InnoDB only
 * estimates, so a table may finish below or above it), the rate and the time left.
 *
 * <p>Counts are source rows read and routed to a target; rows copied before a resume are included.
 * Rates count this run only. Immutable.
 *
 * @param workflow the workflow
 * @param tables one entry per table, in the spec's order
 * @param rowsCopied the sum over tables
 * @param estimatedRows the sum over tables of the larger of the estimate and the rows copied
 * @param rowsPerSecond rows copied per second in this run, all tables together
 * @param eta the estimated time left, or empty while no rate is known
 * @param done true once every table is done
 */
public record CopyProgress(
    String workflow,
    List<TableProgress> tables,
    long rowsCopied,
    long estimatedRows,
    double rowsPerSecond,
    Optional<Duration> eta,
    boolean done) {

  /** Copies the list. */
  public CopyProgress {
    tables = List.copyOf(tables);
  }

  /** Where a table's copy stands. */
  public enum TableState {
    /** Not started in this run. */
    PENDING,
    /** Chunks are being copied. */
    COPYING,
    /** Every row has been copied (now or in an earlier run). */
    DONE
  }

  /**
   * One table's progress.
   *
   * @param table the table
   * @param state where it stands
   * @param rowsCopied source rows copied so far, earlier runs included
   * @param estimatedRows the larger of the source's estimate and {@code rowsCopied}
   * @param rowsPerSecond this run's rate
   * @param eta the estimated time left, or empty while no rate is known; zero once done
   * @param chunkRows the current chunk size
   */
  public record TableProgress(
      String table,
      TableState state,
      long rowsCopied,
      long estimatedRows,
      double rowsPerSecond,
      Optional<Duration> eta,
      int chunkRows) {}

  /** Builds the overall snapshot from the tables' snapshots and this run's totals. */
  public static CopyProgress of(
      String workflow, List<TableProgress> tables, long rowsThisRun, Duration elapsed) {
    long copied = tables.stream().mapToLong(TableProgress::rowsCopied).sum();
    long estimated = tables.stream().mapToLong(TableProgress::estimatedRows).sum();
    boolean done = tables.stream().allMatch(t -> t.state() == TableState.DONE);
    double rate = rate(rowsThisRun, elapsed);
    Optional<Duration> eta = done ? Optional.of(Duration.ZERO) : eta(estimated - copied, rate);
    return new CopyProgress(workflow, tables, copied, estimated, rate, eta, done);
  }

  /**
   * The progress of several copies of the same tables (one per source of a merge) as one: per table
   * the rows and estimates summed, the state the least advanced one's, the rates summed.
   */
  public static CopyProgress combine(String workflow, List<CopyProgress> each) {
    if (each.size() == 1) {
      return each.get(0);
    }
    java.util.Map<String, TableProgress> byTable = new java.util.LinkedHashMap<>();
    for (CopyProgress p : each) {
      for (TableProgress t : p.tables()) {
        byTable.merge(t.table(), t, CopyProgress::sum);
      }
    }
    List<TableProgress> tables = List.copyOf(byTable.values());
    long copied = tables.stream().mapToLong(TableProgress::rowsCopied).sum();
    long estimated = tables.stream().mapToLong(TableProgress::estimatedRows).sum();
    double rate = each.stream().mapToDouble(CopyProgress::rowsPerSecond).sum();
    boolean done = each.stream().allMatch(CopyProgress::done);
    Optional<Duration> eta = done ? Optional.of(Duration.ZERO) : eta(estimated - copied, rate);
    return new CopyProgress(workflow, tables, copied, estimated, rate, eta, done);
  }

  private static TableProgress sum(TableProgress a, TableProgress b) {
    TableState state = a.state().compareTo(b.state()) <= 0 ? a.state() : b.state();
    if (state == TableState.PENDING
        && (a.state() != TableState.PENDING || b.state() != TableState.PENDING)) {
      state = TableState.COPYING; // one source's part is copied or copying: the table is under way
    }
    long copied = a.rowsCopied() + b.rowsCopied();
    long estimated = a.estimatedRows() + b.estimatedRows();
    double rate = a.rowsPerSecond() + b.rowsPerSecond();
    Optional<Duration> eta =
        state == TableState.DONE ? Optional.of(Duration.ZERO) : eta(estimated - copied, rate);
    return new TableProgress(
        a.table(), state, copied, estimated, rate, eta, Math.max(a.chunkRows(), b.chunkRows()));
  }

  /** The fraction done, 0 to 1. */
  public double fraction() {
    return done
        ? 1.0
        : estimatedRows == 0 ? 0.0 : Math.min(1.0, (double) rowsCopied / estimatedRows);
  }

  /** Rows per second, 0 if no time has passed. */
  public static double rate(long rows, Duration elapsed) {
    double seconds = elapsed.toNanos() / 1e9;
    return seconds <= 0 ? 0.0 : rows / seconds;
  }

  /** The time to copy {@code remainingRows} at {@code rowsPerSecond}; empty if the rate is 0. */
  public static Optional<Duration> eta(long remainingRows, double rowsPerSecond) {
    if (remainingRows <= 0) {
      return Optional.of(Duration.ZERO);
    }
    if (rowsPerSecond <= 0) {
      return Optional.empty();
    }
    return Optional.of(Duration.ofMillis((long) Math.ceil(remainingRows / rowsPerSecond * 1000)));
  }

  /** One line, e.g. {@code copy wf1: 120000/200000 rows (60.0%), 41000 rows/s, eta 2 s}. */
  @Override
  public String toString() {
    return String.format(
        "copy %s: %d/%d rows (%.1f%%), %.0f rows/s, eta %s",
        workflow,
        rowsCopied,
        estimatedRows,
        fraction() * 100,
        rowsPerSecond,
        eta.map(d -> d.toSeconds() + " s").orElse("unknown"));
  }
}
