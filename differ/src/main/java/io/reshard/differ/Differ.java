package io.reshard.differ;

import io.reshard.core.placement.ShardingKey;
import io.reshard.core.placement.TargetShard;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.rows.Futures;
import io.reshard.core.rows.RowWriter;
import io.reshard.core.rows.Sessions;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.differ.compare.TableDiffer;
import io.reshard.router.ReshardException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The diff of a workflow's targets against their source (DESIGN 4.7; Vitess's VDiff): every row of
 * the moved tables, read on every side at one source position G, compared byte for byte. The source
 * is read once for all the targets of the {@link DiffSpec}: each source row is routed by keyspace
 * id to the target whose range holds it.
 *
 * <p><b>The runbook</b> ({@link #runAll()}), logged as {@code phase i/6}:
 *
 * <ol>
 *   <li>check the tables and read their definitions from the source;
 *   <li>stop every target's applier ({@link StreamControl#stop()});
 *   <li>open a consistent snapshot on the source and read its exact position G ({@link
 *       ServerFlavor#openSnapshot});
 *   <li>for every target at once (one thread each): run its applier to exactly G ({@link
 *       StreamControl#runTo}), open a consistent snapshot on the target, and restart that applier;
 *   <li>every target's snapshot now shows the same source position G, while the pipeline goes on;
 *   <li>compare the tables one after the other, chunk by chunk, the source against every target at
 *       once ({@link TableDiffer}), saving progress in {@code _reshard.diff_state} on each target.
 * </ol>
 *
 * <p><b>Repair</b> ({@link #repairAll()}) runs the same steps but keeps the appliers stopped at G
 * until every table is compared, and in each chunk rewrites a target's mismatched and missing rows
 * with the source snapshot's images and deletes its extra rows: the target then holds the source's
 * state at G, which is what it must hold at G, and its applier continues from there. A second,
 * plain diff then checks the result.
 *
 * <p><b>Resume.</b> With {@link DifferConfig#resume()}, each table continues after the last key
 * saved in the targets' {@code _reshard.diff_state}, with their counts, at a new snapshot position;
 * tables found done on every target are not read again. Otherwise the workflow's diff state is
 * cleared first.
 *
 * <p>Thread-safety: one call at a time. The reads of a chunk run on a few threads of the differ's
 * own (one per target and one for the source).
 */
public final class Differ {
  private static final Logger LOG = LoggerFactory.getLogger(Differ.class);
  private static final int REPAIR_ROWS_PER_STATEMENT = 500;
  private static final long REPAIR_BYTES_PER_STATEMENT = 4L << 20;

  private final DiffSpec spec;
  private final DifferConfig config;
  private final List<StreamControl> controls;
  private final DiffListener listener;

  /**
   * A diff of a spec with one target.
   *
   * @param spec what to compare; one target
   * @param config how
   * @param control the target applier's control (cdc provides it; {@link StreamControl#none()} on
   *     static data)
   * @param listener hears chunk boundaries; {@link DiffListener#NONE} for nobody
   * @throws IllegalArgumentException if the spec has several targets (use the list form)
   */
  public Differ(DiffSpec spec, DifferConfig config, StreamControl control, DiffListener listener) {
    this(spec, config, List.of(Objects.requireNonNull(control, "control")), listener);
  }

  /**
   * A diff of every target of a spec, reading the source once.
   *
   * @param spec what to compare
   * @param config how
   * @param controls one per target, in {@link DiffSpec#targets()} order: that target's applier
   * @param listener hears chunk boundaries; {@link DiffListener#NONE} for nobody
   * @throws IllegalArgumentException if there is not exactly one control per target
   */
  public Differ(
      DiffSpec spec, DifferConfig config, List<StreamControl> controls, DiffListener listener) {
    this.spec = Objects.requireNonNull(spec, "spec");
    this.config = Objects.requireNonNull(config, "config");
    this.controls = List.copyOf(controls);
    this.listener = Objects.requireNonNull(listener, "listener");
    if (this.controls.size() != spec.targets().size()) {
      throw new IllegalArgumentException(
          "diff of workflow "
              + spec.workflow()
              + " has "
              + spec.targets().size()
              + " targets "
              + spec.targetNames()
              + " but "
              + this.controls.size()
              + " stream controls: give one per target, in the same order");
    }
  }

  /**
   * The outcome of a repair of one target.
   *
   * @param repaired the diff that found and fixed the differences ({@link TableDiff#repaired()})
   * @param verified the plain diff run after it; clean if the repair worked
   */
  public record RepairResult(DiffReport repaired, DiffReport verified) {}

  /**
   * Diffs every table of the spec's only target and reports.
   *
   * @throws IllegalStateException if the spec has several targets (use {@link #runAll()})
   * @throws io.reshard.copier.CopyRefusedException if a table cannot be diffed (no primary key,
   *     ...)
   * @throws ReshardException naming the side and the MySQL error code, on a database failure
   */
  public DiffReport run() throws InterruptedException {
    spec.target();
    return runAll().get(0);
  }

  /**
   * Diffs every table on every target, reading the source once, and reports per target.
   *
   * @return one report per target, in {@link DiffSpec#targets()} order, all at the same G
   * @throws io.reshard.copier.CopyRefusedException if a table cannot be diffed (no primary key,
   *     ...)
   * @throws ReshardException naming the targets and the MySQL error code, on a database failure
   */
  public List<DiffReport> runAll() throws InterruptedException {
    return pass(false, config.resume());
  }

  /**
   * Diffs every table of the spec's only target repairing it, then diffs again; see the class
   * description.
   *
   * @throws IllegalStateException if the spec has several targets (use {@link #repairAll()})
   */
  public RepairResult repair() throws InterruptedException {
    spec.target();
    return repairAll().get(0);
  }

  /**
   * Diffs every table on every target repairing them, then diffs again; see the class description.
   *
   * @return one result per target, in {@link DiffSpec#targets()} order
   */
  public List<RepairResult> repairAll() throws InterruptedException {
    List<DiffReport> repaired = pass(true, false);
    List<DiffReport> verified = pass(false, false);
    List<RepairResult> out = new ArrayList<>();
    for (int i = 0; i < repaired.size(); i++) {
      out.add(new RepairResult(repaired.get(i), verified.get(i)));
    }
    return out;
  }

  private List<DiffReport> pass(boolean repair, boolean resume) throws InterruptedException {
    String wf = spec.workflow();
    LOG.info(
        "workflow {} targets {} diff phase 1/6 checking {} tables",
        wf,
        spec.targetNames(),
        spec.tables().size());
    List<Connection> open = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(spec.targets().size() + 1, daemon());
    try {
      Connection src = Sessions.open(spec.source(), spec.keyspace(), "");
      open.add(src);
      String sqlMode = Sessions.pipelineSqlMode(Sessions.globalSqlMode(src));
      Sessions.apply(src, sqlMode);
      List<TableSchema> tables = new ArrayList<>();
      for (String t : spec.tables()) {
        TableSchema schema = TableSchemaReader.readMoved(src, spec.keyspace(), t);
        ShardingKey.of(spec.vschema(), schema);
        tables.add(schema);
      }
      List<Connection> reads = new ArrayList<>();
      List<Connection> writes = new ArrayList<>();
      for (TargetShard t : spec.targets()) {
        Connection read = Sessions.open(t.endpoint(), spec.keyspace(), sqlMode);
        open.add(read);
        Connection write = Sessions.open(t.endpoint(), spec.keyspace(), sqlMode);
        open.add(write);
        DiffProgress.create(write);
        if (!resume) {
          DiffProgress.delete(write, wf);
        }
        write.setAutoCommit(false);
        reads.add(read);
        writes.add(write);
      }
      return snapshotAndCompare(tables, src, reads, writes, repair, resume, pool);
    } catch (SQLException e) {
      throw new ReshardException(
          "workflow "
              + wf
              + " diff of targets "
              + spec.targetNames()
              + " failed with MySQL error "
              + e.getErrorCode()
              + " (SQLSTATE "
              + e.getSQLState()
              + "): "
              + e.getMessage()
              + "; run the diff again once every server answers"
              + (config.resume() ? " (it continues after the last saved chunk)" : ""),
          e);
    } finally {
      pool.shutdownNow();
      for (Connection c : open) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // closing: nothing left to do
        }
      }
    }
  }

  private List<DiffReport> snapshotAndCompare(
      List<TableSchema> tables,
      Connection src,
      List<Connection> reads,
      List<Connection> writes,
      boolean repair,
      boolean resume,
      ExecutorService pool)
      throws SQLException, InterruptedException {
    String wf = spec.workflow();
    List<String> names = spec.targetNames();
    boolean[] stopped = new boolean[controls.size()];
    try {
      LOG.info("workflow {} targets {} diff phase 2/6 stopping the appliers", wf, names);
      for (int i = 0; i < controls.size(); i++) {
        stopped[i] = true;
        controls.get(i).stop();
      }
      String g = config.flavor().openSnapshot(src);
      LOG.info("workflow {} targets {} diff phase 3/6 source snapshot at {}", wf, names, g);
      LOG.info("workflow {} targets {} diff phase 4/6 running the appliers to {}", wf, names, g);
      List<Future<Void>> catchUps = new ArrayList<>();
      for (int i = 0; i < controls.size(); i++) {
        int target = i;
        catchUps.add(
            pool.submit(
                () -> {
                  controls.get(target).runTo(GtidPosition.parse(g), config.catchUpTimeout());
                  ServerFlavor.begin(reads.get(target));
                  if (!repair) {
                    stopped[target] = false;
                    controls.get(target).resume();
                  }
                  return null;
                }));
      }
      // every catch-up ends (even after a failure) before the snapshot goes on
      Futures.awaitAll(catchUps, "running the appliers to the snapshot");
      LOG.info(
          "workflow {} targets {} diff phase 5/6 target snapshots at {}{}",
          wf,
          names,
          g,
          repair ? "; the appliers stay stopped for the repair" : "; appliers restarted");
      LOG.info(
          "workflow {} targets {} diff phase 6/6 comparing {} tables", wf, names, tables.size());
      List<List<TableDiff>> perTarget = new ArrayList<>();
      names.forEach(n -> perTarget.add(new ArrayList<>()));
      for (TableSchema t : tables) {
        List<TableDiff> results = compare(t, src, reads, writes, repair, resume, g, pool);
        for (int i = 0; i < results.size(); i++) {
          perTarget.get(i).add(results.get(i));
        }
      }
      List<DiffReport> reports = new ArrayList<>();
      for (int i = 0; i < names.size(); i++) {
        DiffReport report = new DiffReport(wf, names.get(i), g, perTarget.get(i));
        LOG.info("workflow {} target {} diff done:\n{}", wf, names.get(i), report.toTable());
        reports.add(report);
      }
      return reports;
    } finally {
      for (int i = 0; i < stopped.length; i++) {
        if (stopped[i]) {
          controls.get(i).resume();
        }
      }
      endSnapshot(src);
      reads.forEach(Differ::endSnapshot);
    }
  }

  /** Ends a snapshot transaction without hiding the failure that ended the diff, if any. */
  private static void endSnapshot(Connection c) {
    try {
      if (!c.getAutoCommit()) {
        c.rollback();
      }
    } catch (SQLException e) {
      LOG.debug("ending a snapshot transaction: {}", e.getMessage());
    }
  }

  private List<TableDiff> compare(
      TableSchema t,
      Connection src,
      List<Connection> reads,
      List<Connection> writes,
      boolean repair,
      boolean resume,
      String g,
      ExecutorService pool)
      throws SQLException, InterruptedException {
    List<Optional<DiffProgress.State>> states = new ArrayList<>();
    List<TableDiffer.Target> targets = new ArrayList<>();
    for (int i = 0; i < writes.size(); i++) {
      Connection w = writes.get(i);
      states.add(resume ? DiffProgress.read(w, spec.workflow(), t.table()) : Optional.empty());
      w.commit();
      targets.add(
          new TableDiffer.Target(
              reads.get(i),
              w,
              repair
                  ? new RowWriter(t, REPAIR_ROWS_PER_STATEMENT, REPAIR_BYTES_PER_STATEMENT)
                  : null));
    }
    if (states.stream().allMatch(s -> s.isPresent() && s.get().done())) {
      LOG.info("workflow {} table {}: already compared", spec.workflow(), t.table());
      return states.stream().map(s -> s.get().counts()).toList();
    }
    TableDiffer differ =
        new TableDiffer(
            spec, config, t, ShardingKey.of(spec.vschema(), t), src, targets, g, pool, listener);
    return differ.run(states);
  }

  private static ThreadFactory daemon() {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, "diff-read-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
