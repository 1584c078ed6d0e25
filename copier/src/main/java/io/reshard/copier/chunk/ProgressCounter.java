package io.reshard.copier.chunk;

import io.reshard.copier.CopyProgress;
import io.reshard.copier.CopyProgress.TableProgress;
import io.reshard.copier.CopyProgress.TableState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * One table's progress, updated by its copy and read by anyone: rows copied (earlier runs
 * included), the estimate, this run's rate and the time left.
 *
 * <p>Thread-safe: one writer, any number of readers.
 */
public final class ProgressCounter {
  private final String table;
  private final long estimatedRows;
  private final Clock clock;
  private volatile TableState state = TableState.PENDING;
  private volatile long rowsBefore;
  private volatile long rowsThisRun;
  private volatile int chunkRows;
  private volatile Instant started;
  private volatile Instant finished;

  /**
   * @param table the table
   * @param estimatedRows the source's estimate of its rows
   * @param clock the time source for rates
   */
  public ProgressCounter(String table, long estimatedRows, Clock clock) {
    this.table = table;
    this.estimatedRows = estimatedRows;
    this.clock = clock;
  }

  /** The copy starts (or resumes) with {@code rowsBefore} rows copied by earlier runs. */
  public void start(long rowsBefore, int chunkRows) {
    this.rowsBefore = rowsBefore;
    this.chunkRows = chunkRows;
    this.started = clock.instant();
    this.state = TableState.COPYING;
  }

  /** A chunk of {@code rows} committed; the next chunk reads {@code nextChunkRows}. */
  public void add(int rows, int nextChunkRows) {
    rowsThisRun += rows;
    chunkRows = nextChunkRows;
  }

  /** The table is done; {@code rowsBefore} if it was found done without copying. */
  public void done(long rowsBefore) {
    if (state == TableState.PENDING) {
      this.rowsBefore = rowsBefore;
      this.started = clock.instant();
    }
    finished = clock.instant();
    state = TableState.DONE;
  }

  /** Rows copied in this run. */
  public long rowsThisRun() {
    return rowsThisRun;
  }

  /** A snapshot. */
  public TableProgress snapshot() {
    TableState s = state;
    long copied = rowsBefore + rowsThisRun;
    long estimate = Math.max(estimatedRows, copied);
    Instant from = started;
    Instant to = finished != null ? finished : clock.instant();
    double rate = from == null ? 0 : CopyProgress.rate(rowsThisRun, Duration.between(from, to));
    return new TableProgress(
        table,
        s,
        copied,
        estimate,
        rate,
        s == TableState.DONE
            ? java.util.Optional.of(Duration.ZERO)
            : CopyProgress.eta(estimate - copied, rate),
        chunkRows);
  }
}
