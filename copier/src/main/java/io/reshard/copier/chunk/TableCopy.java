package io.reshard.copier.chunk;

import io.reshard.copier.Copier;
import io.reshard.copier.CopierConfig;
import io.reshard.copier.CopyListener;
import io.reshard.copier.CopyMetrics;
import io.reshard.copier.CopySpec;
import io.reshard.copier.CopyThrottle;
import io.reshard.core.error.DataIntegrityException;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.core.placement.ShardingKey;
import io.reshard.core.rows.KeyOrder;
import io.reshard.core.rows.RowKey;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.state.CopyStateTable;
import io.reshard.router.ReshardException;
import io.reshard.router.RetriableReshardException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy of one table: find where to resume, then copy chunk after chunk until a chunk comes back
 * short, pausing whenever the throttle asks.
 *
 * <p><b>Resume.</b> Every target stores the last key of the last chunk it committed. The copy
 * resumes after the smallest of them (compared by the source server, in the key's collation and
 * types); a target with no state yet means "from the first row". The targets that were ahead
 * receive a few rows again, which the insert-if-absent leaves as they are: no duplicate, and no
 * gap, since no target is behind the resume point. The table is skipped only if every target says
 * done.
 *
 * <p><b>Errors.</b> A lock wait timeout or deadlock on the source (1205, 1213) retries the chunk up
 * to {@link CopierConfig#maxChunkAttempts()} times. A lost connection is a {@link
 * RetriableReshardException} (run the copy again; it resumes). Any other SQL error is a {@link
 * ReshardException} naming the table and the MySQL error code.
 *
 * <p>Not thread-safe: one thread runs one table copy.
 */
public final class TableCopy {
  private static final Logger LOG = LoggerFactory.getLogger(TableCopy.class);

  private final CopySpec spec;
  private final CopierConfig config;
  private final TableSchema table;
  private final ShardingKey sharding;
  private final String sqlMode;
  private final ExecutorService writers;
  private final CopyThrottle throttle;
  private final CopyMetrics metrics;
  private final CopyListener listener;
  private final ProgressCounter progress;
  private final Copier.Sleeper sleeper;

  /** Wires one table's copy; see {@link Copier} for the parts. */
  public TableCopy(
      CopySpec spec,
      CopierConfig config,
      TableSchema table,
      ShardingKey sharding,
      String sqlMode,
      ExecutorService writers,
      CopyThrottle throttle,
      CopyMetrics metrics,
      CopyListener listener,
      ProgressCounter progress,
      Copier.Sleeper sleeper) {
    this.spec = spec;
    this.config = config;
    this.table = table;
    this.sharding = sharding;
    this.sqlMode = sqlMode;
    this.writers = writers;
    this.throttle = throttle;
    this.metrics = metrics;
    this.listener = listener;
    this.progress = progress;
    this.sleeper = sleeper;
  }

  /**
   * Copies the table to every target, from where the targets' state says.
   *
   * @throws ReshardException (or its retriable branch) naming the table, on failure
   * @throws InterruptedException if interrupted between chunks (every target write of the current
   *     chunk has finished by then)
   */
  public void run() throws InterruptedException {
    try (ChunkCopier copier = new ChunkCopier(spec, config, table, sharding, sqlMode, writers)) {
      Resume resume = resumePoint(copier);
      if (resume.done()) {
        LOG.info(
            "workflow {} table {}: already copied, {} rows",
            spec.workflow(),
            table.table(),
            resume.rows());
        progress.done(resume.rows());
        listener.tableDone(table.table());
        return;
      }
      LOG.info(
          "workflow {} table {}: copying to {} targets {}",
          spec.workflow(),
          table.table(),
          spec.targets().size(),
          resume.key() == null ? "from the first row" : "after key " + resume.key());
      copyChunks(copier, resume);
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  private void copyChunks(ChunkCopier copier, Resume resume)
      throws SQLException, InterruptedException {
    ChunkSizer sizer =
        new ChunkSizer(
            config.chunkTargetDuration(),
            config.initialChunkRows(),
            config.minChunkRows(),
            config.maxChunkRows());
    progress.start(resume.rows(), sizer.rows());
    RowKey after = resume.key();
    for (long n = 1; ; n++) {
      awaitThrottle();
      if (Thread.interrupted()) {
        throw new InterruptedException("copy of " + table + " interrupted");
      }
      ChunkCopier.Chunk chunk = copyWithRetries(copier, after, sizer.rows());
      sizer.observe(chunk.rowsRead(), chunk.elapsed());
      metrics.chunk(table.table(), chunk.rowsRead(), chunk.elapsed());
      metrics.chunkRows(table.table(), sizer.rows());
      if (chunk.rowsOutside() > 0) {
        metrics.outside(table.table(), chunk.rowsOutside());
        LOG.warn(
            "workflow {} table {}: skipped {} rows whose keyspace id is outside source range {}",
            spec.workflow(),
            table.table(),
            chunk.rowsOutside(),
            spec.sourceRange());
      }
      progress.add(chunk.rowsRead(), sizer.rows());
      listener.chunkCommitted(table.table(), n, chunk.rowsRead(), chunk.lastKey());
      after = chunk.lastKey();
      if (chunk.last()) {
        break;
      }
    }
    progress.done(resume.rows());
    listener.tableDone(table.table());
    LOG.info("workflow {} table {}: copied", spec.workflow(), table.table());
  }

  private ChunkCopier.Chunk copyWithRetries(ChunkCopier copier, RowKey after, int rows)
      throws SQLException, InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return copier.copy(after, rows);
      } catch (SQLException e) {
        if (!ErrorClassifier.isLockConflict(e) || attempt >= config.maxChunkAttempts()) {
          throw e;
        }
        metrics.retried(table.table());
        LOG.info(
            "workflow {} table {}: chunk after {} hit error {} ({}), attempt {}/{}",
            spec.workflow(),
            table.table(),
            after,
            e.getErrorCode(),
            e.getMessage(),
            attempt,
            config.maxChunkAttempts());
      }
    }
  }

  private void awaitThrottle() throws InterruptedException {
    Optional<String> reason;
    boolean logged = false;
    while ((reason = throttle.pauseReason()).isPresent()) {
      metrics.throttled(table.table());
      if (!logged) {
        LOG.info("workflow {} table {}: pausing: {}", spec.workflow(), table.table(), reason.get());
        logged = true;
      }
      sleeper.sleep(config.throttleRecheck());
    }
  }

  /** Where to resume: after {@code key} (null: from the first row), with rows copied before. */
  record Resume(RowKey key, long rows, boolean done) {}

  private Resume resumePoint(ChunkCopier copier) throws SQLException {
    List<RowKey> keys = new ArrayList<>();
    long rows = 0;
    boolean allDone = true;
    for (int i = 0; i < copier.targets().size(); i++) {
      Connection c = copier.targets().get(i);
      Optional<CopyStateTable.State> state = CopyStateTable.read(c, spec.workflow(), table.table());
      c.commit();
      if (state.isEmpty()) {
        allDone = false;
        keys.add(null);
        continue;
      }
      rows += state.get().rowsCopied();
      allDone &= state.get().done();
      int target = i;
      keys.add(state.get().lastKeyJson().map(j -> storedKey(j, target)).orElse(null));
    }
    RowKey min = KeyOrder.min(copier.source(), table, keys);
    copier.source().commit();
    return new Resume(min, rows, allDone);
  }

  private RowKey storedKey(String json, int target) {
    try {
      return RowKey.fromJson(json, table.primaryKey());
    } catch (IllegalArgumentException e) {
      throw new DataIntegrityException(
          "workflow "
              + spec.workflow()
              + " table "
              + table.table()
              + ": the copy state on target "
              + spec.targets().get(target).name()
              + " cannot be resumed: "
              + e.getMessage()
              + "; the table's primary key changed during the workflow: cancel it and start over");
    }
  }

  private ReshardException failure(SQLException e) {
    String what =
        "workflow "
            + spec.workflow()
            + " table "
            + table.table()
            + ": copy failed with MySQL error "
            + e.getErrorCode()
            + " (SQLSTATE "
            + e.getSQLState()
            + "): "
            + e.getMessage();
    return ErrorClassifier.isConnectionLoss(e)
        ? new RetriableReshardException(
            what + "; run the copy again: it resumes from the saved key", e)
        : new ReshardException(what, e);
  }
}
