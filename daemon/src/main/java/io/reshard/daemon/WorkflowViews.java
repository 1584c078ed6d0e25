package io.reshard.daemon;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.copier.CopyProgress;
import io.reshard.differ.DiffReport;
import io.reshard.differ.TableDiff;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How the admin endpoint shows workflows, as JSON-able maps and lists (keys in snake case, in a
 * fixed order): the stored record ({@link #record}), what the hosting daemon adds ({@link #hosted},
 * {@link #notHosted}), a copy's progress ({@link #copy}) and diff reports ({@link #diff}). The
 * field names are the admin API's wire format (docs/daemon.md). Stateless; thread-safe.
 */
final class WorkflowViews {
  private static final ObjectMapper JSON = new ObjectMapper();

  private WorkflowViews() {}

  /** A workflow record as the endpoint shows it: every field present, null where unset. */
  static Map<String, Object> record(Workflow w) {
    Map<String, Object> v = new LinkedHashMap<>();
    v.put("name", w.name());
    v.put("keyspace", w.keyspace());
    v.put("state", w.state().name());
    v.put("sources", w.sources());
    v.put("targets", w.targets());
    v.put("servers", w.servers());
    v.put("p0", w.p0());
    v.put("journal_position", w.journalPosition());
    v.put("reverse_position", w.reversePosition());
    v.put("last_diff_clean", w.lastDiffClean());
    v.put("last_error", w.lastError());
    v.put("capture_gap", w.captureGap());
    v.put("triggers", w.schemaObjects().triggers().option());
    v.put(
        "trigger_definitions",
        w.schemaObjects().triggerDefinitions().stream().map(t -> t.describe()).toList());
    v.put("carried_objects", w.schemaObjects().carried());
    v.put("schema_warning", w.schemaObjects().warning());
    v.put("updated_at", w.updatedAt());
    v.put("next_states", w.state().next().stream().map(Enum::name).sorted().toList());
    return v;
  }

  /** What a daemon that does not host the workflow adds to its record: {@code {hosted: false}}. */
  static Map<String, Object> notHosted() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("hosted", false);
    return m;
  }

  /**
   * What the hosting daemon adds to a workflow's record: {@code hosted, state, copy_done,
   * max_lag_ms, streams, [last_error], [copy], diff_running, [copy_error, copy_heals], generation}.
   *
   * @param stored the runner's record, read before {@code s}
   * @param s the runner's status
   * @param copyError why the copy thread ended, or null
   * @param copyHeals true if the daemon starts that copy again by itself (the failure was one that
   *     trying again can heal); false if it waits for {@code resume}
   */
  static Map<String, Object> hosted(
      Workflow stored, WorkflowStatus s, String copyError, boolean copyHeals) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("hosted", true);
    // the runner's record is never older than the one read from the topic just before
    m.put("state", s.workflow().state().name());
    m.put("copy_done", s.copyDone());
    m.put("max_lag_ms", s.maxLagMillis());
    List<Object> streams = new ArrayList<>();
    for (WorkflowStatus.Stream st : s.streams()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("direction", st.direction());
      one.put("source", String.join(",", st.sources()));
      one.put("target", st.target());
      one.put("state", st.state());
      one.put("position", st.positions());
      one.put("lag_ms", st.lagMillis());
      one.put("last_error", st.lastError());
      streams.add(one);
    }
    m.put("streams", streams);
    if (s.workflow().lastError() == null) {
      s.streams().stream()
          .filter(st -> st.lastError() != null)
          .findFirst()
          .ifPresent(
              st -> m.put("last_error", "the stream into " + st.target() + ": " + st.lastError()));
    }
    if (s.copy() != null) {
      m.put("copy", copy(s.copy()));
    }
    m.put("diff_running", s.diff());
    if (copyError != null) {
      m.put("copy_error", copyError);
      m.put("copy_heals", copyHeals);
    }
    m.put("generation", stored.generation());
    return m;
  }

  /**
   * A copy's progress: {@code rows_copied, estimated_rows, rows_per_s, eta_s, done, tables}, each
   * table with {@code rows_per_s} and {@code eta_s} while it is not done.
   */
  static Map<String, Object> copy(CopyProgress p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("rows_copied", p.rowsCopied());
    m.put("estimated_rows", p.estimatedRows());
    m.put("rows_per_s", Math.round(p.rowsPerSecond()));
    m.put("eta_s", p.eta().map(Duration::toSeconds).orElse(null));
    m.put("done", p.done());
    List<Object> tables = new ArrayList<>();
    for (CopyProgress.TableProgress t : p.tables()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("table", t.table());
      one.put("state", t.state().name());
      one.put("rows_copied", t.rowsCopied());
      one.put("estimated_rows", t.estimatedRows());
      boolean done = t.state() == CopyProgress.TableState.DONE;
      one.put("rows_per_s", done ? null : Math.round(t.rowsPerSecond()));
      one.put("eta_s", done ? null : t.eta().map(Duration::toSeconds).orElse(null));
      tables.add(one);
    }
    m.put("tables", tables);
    return m;
  }

  /** {@code {clean, tables: [per table over all targets], targets: [each report]}}. */
  static Map<String, Object> diff(List<DiffReport> reports) {
    Map<String, long[]> sums = new LinkedHashMap<>();
    List<Object> targets = new ArrayList<>();
    for (DiffReport r : reports) {
      for (TableDiff t : r.tables()) {
        long[] a = sums.computeIfAbsent(t.table(), k -> new long[5]);
        a[0] += t.compared();
        a[1] += t.matching();
        a[2] += t.mismatched();
        a[3] += t.extraSource();
        a[4] += t.extraTarget();
      }
      targets.add(parse(r.toJson()));
    }
    List<Object> tables = new ArrayList<>();
    sums.forEach(
        (table, a) -> {
          Map<String, Object> m = new LinkedHashMap<>();
          m.put("table", table);
          m.put("compared", a[0]);
          m.put("matching", a[1]);
          m.put("mismatched", a[2]);
          m.put("extra_source", a[3]);
          m.put("extra_target", a[4]);
          tables.add(m);
        });
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("clean", reports.stream().allMatch(DiffReport::isClean));
    data.put("tables", tables);
    data.put("targets", targets);
    return data;
  }

  /**
   * A repair's result: {@code {clean, rows_repaired, repaired: <diff of what was found and fixed>,
   * verified: <diff after it>}}, {@code clean} being the second diff's.
   */
  static Map<String, Object> repair(
      List<DiffReport> repaired, List<DiffReport> verified, long rowsRepaired) {
    Map<String, Object> after = diff(verified);
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("clean", after.get("clean"));
    data.put("rows_repaired", rowsRepaired);
    data.put("repaired", diff(repaired));
    data.put("verified", after);
    return data;
  }

  private static Object parse(String json) {
    try {
      return JSON.readValue(json, Object.class);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("a report's own JSON always parses", e);
    }
  }
}
