package io.reshard.differ;

import io.reshard.copier.rows.RowKey;
import io.reshard.copier.rows.RowWriter;
import io.reshard.copier.rows.Sessions;
import io.reshard.copier.rows.ShardingKey;
import io.reshard.copier.rows.TableSchema;
import io.reshard.differ.compare.TableDiffer;
import io.reshard.router.ReshardException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The diff of a workflow's target against its source (DESIGN 4.7; Vitess's VDiff): every row of the
 * moved tables, read on both sides at one source position G, compared byte for byte.
 *
 * <p><b>The runbook</b> ({@link #run()}), logged as {@code phase i/6}:
 *
 * <ol>
 *   <li>check the tables and read their definitions from the source;
 *   <li>stop the target's applier ({@link StreamControl#stop()});
 *   <li>open a consistent snapshot on the source and read its exact position G ({@link
 *       ServerFlavor#openSnapshot});
 *   <li>run the applier to exactly G ({@link StreamControl#runTo});
 *   <li>open a consistent snapshot on the target, then restart the applier: both snapshots now show
 *       the same position, while the pipeline goes on;
 *   <li>compare the tables one after the other, chunk by chunk ({@link TableDiffer}), saving
 *       progress in {@code _reshard.diff_state} on the target.
 * </ol>
 *
 * <p><b>Repair</b> ({@link #repair()}) runs the same steps but keeps the applier stopped at G until
 * every table is compared, and in each chunk rewrites the target's mismatched and missing rows with
 * the source snapshot's images and deletes its extra rows: the target then holds the source's state
 * at G, which is what it must hold at G, and the applier continues from there. A second, plain diff
 * then checks the result.
 *
 * <p><b>Resume.</b> With {@link DifferConfig#resume()}, each table continues after the last key
 * saved in {@code _reshard.diff_state}, with its counts, at a new snapshot position; tables found
 * done are not read again. Otherwise the workflow's diff state is cleared first.
 *
 * <p>Thread-safety: one call at a time.
 */
public final class Differ {
  private static final Logger LOG = LoggerFactory.getLogger(Differ.class);
  private static final int REPAIR_ROWS_PER_STATEMENT = 500;
  private static final long REPAIR_BYTES_PER_STATEMENT = 4L << 20;

  private final DiffSpec spec;
  private final DifferConfig config;
  private final StreamControl control;
  private final DiffListener listener;

  /**
   * @param spec what to compare
   * @param config how
   * @param control the target applier's control (cdc provides it; {@link StreamControl#none()} on
   *     static data)
   * @param listener hears chunk boundaries; {@link DiffListener#NONE} for nobody
   */
  public Differ(DiffSpec spec, DifferConfig config, StreamControl control, DiffListener listener) {
    this.spec = Objects.requireNonNull(spec, "spec");
    this.config = Objects.requireNonNull(config, "config");
    this.control = Objects.requireNonNull(control, "control");
    this.listener = Objects.requireNonNull(listener, "listener");
  }

  /**
   * The outcome of a repair.
   *
   * @param repaired the diff that found and fixed the differences ({@link TableDiff#repaired()})
   * @param verified the plain diff run after it; clean if the repair worked
   */
  public record RepairResult(DiffReport repaired, DiffReport verified) {}

  /**
   * Diffs every table and reports.
   *
   * @throws io.reshard.copier.CopyRefusedException if a table cannot be diffed (no primary key,
   *     ...)
   * @throws ReshardException naming the side and the MySQL error code, on a database failure
   */
  public DiffReport run() throws InterruptedException {
    return pass(false, config.resume());
  }

  /** Diffs every table repairing the target, then diffs again; see the class description. */
  public RepairResult repair() throws InterruptedException {
    DiffReport repaired = pass(true, false);
    DiffReport verified = pass(false, false);
    return new RepairResult(repaired, verified);
  }

  private DiffReport pass(boolean repair, boolean resume) throws InterruptedException {
    String wf = spec.workflow();
    String target = spec.target().name();
    LOG.info(
        "workflow {} target {} diff phase 1/6 checking {} tables",
        wf,
        target,
        spec.tables().size());
    try (Connection src = Sessions.open(spec.source(), spec.keyspace(), "")) {
      String sqlMode = Sessions.pipelineSqlMode(Sessions.globalSqlMode(src));
      Sessions.apply(src, sqlMode);
      List<TableSchema> tables = new ArrayList<>();
      for (String t : spec.tables()) {
        TableSchema schema = TableSchema.load(src, spec.keyspace(), t);
        ShardingKey.of(spec.vschema(), schema);
        tables.add(schema);
      }
      try (Connection tgt = Sessions.open(spec.target().endpoint(), spec.keyspace(), sqlMode);
          Connection writes = Sessions.open(spec.target().endpoint(), spec.keyspace(), sqlMode)) {
        DiffStateTable.create(writes);
        if (!resume) {
          DiffStateTable.delete(writes, wf);
        }
        writes.setAutoCommit(false);
        return snapshotAndCompare(tables, src, tgt, writes, repair, resume);
      }
    } catch (SQLException e) {
      throw new ReshardException(
          "workflow "
              + wf
              + " diff of target "
              + target
              + " failed with MySQL error "
              + e.getErrorCode()
              + " (SQLSTATE "
              + e.getSQLState()
              + "): "
              + e.getMessage()
              + "; run the diff again with resume to continue after the last saved chunk",
          e);
    }
  }

  private DiffReport snapshotAndCompare(
      List<TableSchema> tables,
      Connection src,
      Connection tgt,
      Connection writes,
      boolean repair,
      boolean resume)
      throws SQLException, InterruptedException {
    String wf = spec.workflow();
    String target = spec.target().name();
    LOG.info("workflow {} target {} diff phase 2/6 stopping the applier", wf, target);
    control.stop();
    boolean stopped = true;
    try {
      String g = config.flavor().openSnapshot(src);
      LOG.info("workflow {} target {} diff phase 3/6 source snapshot at {}", wf, target, g);
      LOG.info("workflow {} target {} diff phase 4/6 running the applier to {}", wf, target, g);
      control.runTo(g, config.catchUpTimeout());
      ServerFlavor.begin(tgt);
      if (!repair) {
        control.resume();
        stopped = false;
      }
      LOG.info(
          "workflow {} target {} diff phase 5/6 target snapshot at {}{}",
          wf,
          target,
          g,
          repair ? "; the applier stays stopped for the repair" : "; applier restarted");
      LOG.info(
          "workflow {} target {} diff phase 6/6 comparing {} tables", wf, target, tables.size());
      List<TableDiff> results = new ArrayList<>();
      for (TableSchema t : tables) {
        results.add(compare(t, src, tgt, writes, repair, resume, g));
      }
      DiffReport report = new DiffReport(wf, target, g, results);
      LOG.info("workflow {} target {} diff done:\n{}", wf, target, report.toTable());
      return report;
    } finally {
      if (stopped) {
        control.resume();
      }
      src.rollback();
      tgt.rollback();
    }
  }

  private TableDiff compare(
      TableSchema t,
      Connection src,
      Connection tgt,
      Connection writes,
      boolean repair,
      boolean resume,
      String g)
      throws SQLException {
    Optional<DiffStateTable.State> state =
        resume ? DiffStateTable.read(writes, spec.workflow(), t.table()) : Optional.empty();
    writes.commit();
    if (state.isPresent() && state.get().done()) {
      LOG.info("workflow {} table {}: already compared", spec.workflow(), t.table());
      return state.get().counts();
    }
    RowKey after =
        state
            .flatMap(DiffStateTable.State::lastKeyJson)
            .map(j -> RowKey.fromJson(j, t.keyNames()))
            .orElse(null);
    TableDiffer differ =
        new TableDiffer(
            spec,
            config,
            t,
            ShardingKey.of(spec.vschema(), t),
            src,
            tgt,
            writes,
            repair ? new RowWriter(t, REPAIR_ROWS_PER_STATEMENT, REPAIR_BYTES_PER_STATEMENT) : null,
            g,
            listener);
    return differ.run(after, state.map(DiffStateTable.State::counts).orElse(null));
  }
}
