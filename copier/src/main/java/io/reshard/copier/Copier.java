package io.reshard.copier;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.copier.chunk.ProgressCounter;
import io.reshard.copier.chunk.TableCopy;
import io.reshard.core.error.DataIntegrityException;
import io.reshard.core.placement.ShardingKey;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.rows.Sessions;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.core.state.CopyStateTable;
import io.reshard.router.ReshardException;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy phase of a workflow: copies the existing rows of the moved tables from one source shard
 * to the target shards, in chunks by primary key, resumably (DESIGN 4.6).
 *
 * <p><b>The runbook</b> ({@link #run()}), logged as {@code phase i/5}:
 *
 * <ol>
 *   <li>check every table (primary key, InnoDB, no cascading foreign key, a functional primary
 *       vindex) and read its definition from the source;
 *   <li>create {@code _reshard.copy_state} on every target;
 *   <li>wait until the change stream covers the start position P0;
 *   <li>copy the tables, {@link CopierConfig#tableParallelism()} at a time, each chunk as {@link
 *       io.reshard.copier.chunk.TableCopy} describes, resuming from the targets' saved keys;
 *   <li>done: every target's copy state says so.
 * </ol>
 *
 * <p><b>Why the copy and the change stream end in the same state.</b> Copying runs while the
 * application writes, and the stream applies those writes to the targets at the same time. Take any
 * row and look at the last thing that happens to it on a target.
 *
 * <ul>
 *   <li>The stream holds every source change after P0, in source order, with full images, and the
 *       copy reads nothing before the stream covers P0. So every change the copy might miss is on
 *       its way through the stream.
 *   <li>A chunk reads its rows with share locks and keeps them until every target has committed the
 *       chunk. A source transaction that changes one of those rows must wait for the lock, so it
 *       commits after the chunk is on the targets, and the stream (which applies in commit order)
 *       applies it after the chunk's insert. The newest image therefore always lands last.
 *   <li>A chunk's insert that finds the row already on the target (the stream got there first with
 *       a change committed before the chunk's read, or an earlier run of this chunk did) does
 *       nothing: insert-if-absent never overwrites, so it cannot put an older image over a newer
 *       one. Replaying a chunk after a crash is thus harmless.
 *   <li>A chunk row that clashes on a unique key with a row the target still holds means that the
 *       value moved on the source after the state the target holds; both the move and the new
 *       owner's write happened after P0, so both are in the stream and are applied in source order,
 *       which ends with the clash resolved as on the source.
 * </ul>
 *
 * All of this rests on row locks ordering the chunk against later changes, which is why only InnoDB
 * tables are copied.
 *
 * <p><b>Thread-safety.</b> {@link #run()} is called once, by one thread; {@link #progress()} may be
 * called from any thread at any time.
 */
public final class Copier {
  private static final Logger LOG = LoggerFactory.getLogger(Copier.class);

  /** Waits; {@link Thread#sleep} in production, a fake in tests so that they never sleep. */
  @FunctionalInterface
  public interface Sleeper {
    /** Pauses for {@code d}. */
    void sleep(Duration d) throws InterruptedException;
  }

  private final CopySpec spec;
  private final CopierConfig config;
  private final StreamCoverage coverage;
  private final CopyThrottle throttle;
  private final CopyMetrics metrics;
  private final CopyListener listener;
  private final Clock clock;
  private final Sleeper sleeper;
  // replaced whole once every table's estimate is read, so that progress never mixes tables with
  // and without their estimate (a first line "0 of ~2,127 rows" of a 49,000-row copy)
  private volatile Map<String, ProgressCounter> progress;
  private volatile Instant started;

  /** When every table was done: the rate is that of the copy, not one that falls after it. */
  private volatile Instant finished;

  private Copier(Builder b) {
    this.spec = b.spec;
    this.config = b.config;
    this.coverage = Objects.requireNonNull(b.coverage, "coverage: the change stream's coverage");
    this.throttle = b.throttle;
    this.metrics = new CopyMetrics(b.registry, spec.workflow());
    this.listener = b.listener;
    this.clock = b.clock;
    this.sleeper = b.sleeper;
    Map<String, ProgressCounter> pending = new LinkedHashMap<>();
    for (String t : spec.tables()) {
      pending.put(t, new ProgressCounter(t, 0, clock));
    }
    this.progress = pending;
  }

  /** A builder for the copy of {@code spec}. */
  public static Builder builder(CopySpec spec) {
    return new Builder(spec);
  }

  /**
   * Runs the copy to the end, or resumes it from the targets' state.
   *
   * @return the final progress, every table done
   * @throws CopyRefusedException if a table cannot be moved (nothing written)
   * @throws StreamCoverageTimeoutException if the stream does not cover P0 in time
   * @throws DataIntegrityException if a value cannot be stored exactly, or stored state no longer
   *     fits a table
   * @throws ReshardException for other failures, retriable when a run again will resume
   * @throws InterruptedException if interrupted; chunks in flight finish their target writes first
   */
  public CopyProgress run() throws InterruptedException {
    started = clock.instant();
    String wf = spec.workflow();
    LOG.info("workflow {} phase 1/5 checking {} tables on the source", wf, spec.tables().size());
    String sqlMode;
    List<TableSchema> tables = new ArrayList<>();
    Map<String, ProgressCounter> estimated = new LinkedHashMap<>();
    try (Connection source = Sessions.open(spec.source(), spec.keyspace(), "")) {
      sqlMode = Sessions.pipelineSqlMode(Sessions.globalSqlMode(source));
      for (String t : spec.tables()) {
        TableSchema schema = TableSchemaReader.readMoved(source, spec.keyspace(), t);
        ShardingKey.of(spec.vschema(), schema);
        tables.add(schema);
        estimated.put(
            t,
            new ProgressCounter(
                t, TableSchemaReader.estimatedRows(source, spec.keyspace(), t), clock));
      }
      progress = estimated;
    } catch (SQLException e) {
      throw new ReshardException(
          "workflow " + wf + ": cannot read the source's tables: " + e.getMessage(), e);
    }
    LOG.info("workflow {} phase 2/5 preparing copy state on {} targets", wf, spec.targets().size());
    prepareTargets();
    LOG.info(
        "workflow {} phase 3/5 waiting for the change stream to cover {}",
        wf,
        spec.startPosition());
    coverage.awaitCovered(GtidPosition.parse(spec.startPosition()), config.coverageTimeout());
    LOG.info(
        "workflow {} phase 4/5 copying {} tables, {} at a time",
        wf,
        tables.size(),
        config.tableParallelism());
    copyTables(tables, sqlMode);
    finished = clock.instant();
    CopyProgress done = progress();
    LOG.info("workflow {} phase 5/5 copy done: {}", wf, done);
    return done;
  }

  /**
   * Reads each table's estimated row count from the source before {@link #run()} (which reads them
   * again), so that {@link #progress()} of a copy not started yet already counts its rows: a
   * workflow of several sources copies one source after the other and shows them as one.
   *
   * @throws ReshardException if the source cannot be read
   */
  public void estimate() {
    Map<String, ProgressCounter> estimated = new LinkedHashMap<>();
    try (Connection source = Sessions.open(spec.source(), spec.keyspace(), "")) {
      for (String t : spec.tables()) {
        estimated.put(
            t,
            new ProgressCounter(
                t, TableSchemaReader.estimatedRows(source, spec.keyspace(), t), clock));
      }
    } catch (SQLException e) {
      throw new ReshardException(
          "workflow "
              + spec.workflow()
              + ": cannot read the source's table estimates: "
              + e.getMessage(),
          e);
    }
    if (started == null) {
      progress = estimated;
    }
  }

  /** The progress now; all tables pending before {@link #run()} has read their estimates. */
  public CopyProgress progress() {
    List<CopyProgress.TableProgress> tables = new ArrayList<>();
    long thisRun = 0;
    for (ProgressCounter c : progress.values()) {
      tables.add(c.snapshot());
      thisRun += c.rowsThisRun();
    }
    Instant from = started;
    Instant to = finished;
    Duration elapsed =
        from == null
            ? Duration.ZERO
            : Duration.between(from, to == null || to.isBefore(from) ? clock.instant() : to);
    return CopyProgress.of(spec.workflow(), tables, thisRun, elapsed);
  }

  private void prepareTargets() {
    for (TargetShard t : spec.targets()) {
      try (Connection c = Sessions.open(t.endpoint(), spec.keyspace(), "")) {
        CopyStateTable.create(c);
      } catch (SQLException e) {
        throw new ReshardException(
            "workflow "
                + spec.workflow()
                + ": cannot create _reshard.copy_state on target "
                + t.name()
                + ": MySQL error "
                + e.getErrorCode()
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  private void copyTables(List<TableSchema> tables, String sqlMode) throws InterruptedException {
    int parallel = Math.min(config.tableParallelism(), tables.size());
    ExecutorService tablePool = Executors.newFixedThreadPool(parallel, named("copy-table"));
    ExecutorService writerPool =
        Executors.newFixedThreadPool(parallel * spec.targets().size(), named("copy-write"));
    try {
      List<Future<Void>> futures = new ArrayList<>();
      for (TableSchema t : tables) {
        TableCopy copy =
            new TableCopy(
                spec,
                config,
                t,
                ShardingKey.of(spec.vschema(), t),
                sqlMode,
                writerPool,
                throttle,
                metrics,
                listener,
                progress.get(t.table()),
                sleeper);
        futures.add(
            tablePool.submit(
                () -> {
                  copy.run();
                  return null;
                }));
      }
      for (Future<Void> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          futures.forEach(x -> x.cancel(true));
          throw unwrap(e.getCause());
        }
      }
    } finally {
      tablePool.shutdownNow();
      tablePool.awaitTermination(1, TimeUnit.MINUTES);
      writerPool.shutdown();
      writerPool.awaitTermination(1, TimeUnit.MINUTES);
    }
  }

  private static RuntimeException unwrap(Throwable t) {
    if (t instanceof RuntimeException r) {
      return r;
    }
    return new ReshardException("copy failed: " + t, t);
  }

  private static java.util.concurrent.ThreadFactory named(String prefix) {
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    return r -> {
      Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }

  /** Builds a {@link Copier}; not thread-safe. Only the stream coverage has no default. */
  public static final class Builder {
    private final CopySpec spec;
    private CopierConfig config = CopierConfig.defaults();
    private StreamCoverage coverage;
    private CopyThrottle throttle = CopyThrottle.none();
    private MeterRegistry registry = new SimpleMeterRegistry();
    private CopyListener listener = CopyListener.NONE;
    private Clock clock = Clock.systemUTC();
    private Sleeper sleeper = d -> Thread.sleep(d.toMillis());

    private Builder(CopySpec spec) {
      this.spec = Objects.requireNonNull(spec, "spec");
    }

    /** The pacing and batching; default {@link CopierConfig#defaults()}. */
    public Builder config(CopierConfig v) {
      config = Objects.requireNonNull(v);
      return this;
    }

    /** Required: how to wait for the change stream to cover P0 (cdc provides it). */
    public Builder coverage(StreamCoverage v) {
      coverage = Objects.requireNonNull(v);
      return this;
    }

    /** When to pause; default never. */
    public Builder throttle(CopyThrottle v) {
      throttle = Objects.requireNonNull(v);
      return this;
    }

    /** Where metrics go; default a private {@link SimpleMeterRegistry}. */
    public Builder meterRegistry(MeterRegistry v) {
      registry = Objects.requireNonNull(v);
      return this;
    }

    /** Who hears phase boundaries; default nobody. */
    public Builder listener(CopyListener v) {
      listener = Objects.requireNonNull(v);
      return this;
    }

    /** The time source for progress; default the system clock. */
    public Builder clock(Clock v) {
      clock = Objects.requireNonNull(v);
      return this;
    }

    /** How throttle pauses wait; default {@link Thread#sleep}. */
    public Builder sleeper(Sleeper v) {
      sleeper = Objects.requireNonNull(v);
      return this;
    }

    /**
     * @throws NullPointerException if no stream coverage was given
     */
    public Copier build() {
      return new Copier(this);
    }
  }
}
