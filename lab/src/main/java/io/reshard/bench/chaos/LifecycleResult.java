package io.reshard.bench.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one lifecycle ended with: whether it completed, its diffs, the application's counts, the end
 * checks, and human help that no fault of its own explains. Written by its driver (and its action
 * thread), read by the report. Thread-safe.
 */
final class LifecycleResult {
  final ChaosKeyspace keyspace;
  private boolean completed;
  private String abandonedBecause;
  private final List<Map<String, Object>> diffs = new ArrayList<>();
  private final List<String> helpWithoutFault = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private Map<String, Object> traffic = Map.of();
  private EndChecks checks;
  private long mapVersions;

  LifecycleResult(ChaosKeyspace keyspace) {
    this.keyspace = keyspace;
  }

  synchronized void completed() {
    completed = true;
  }

  synchronized void abandoned(String why) {
    abandonedBecause = why;
  }

  /** A diff's result: whether it was clean, and its per-table counts. */
  synchronized void diff(LifecycleStep step, boolean clean, Object tables) {
    Map<String, Object> d = new LinkedHashMap<>();
    d.put("step", step.label());
    d.put("clean", clean);
    d.put("tables", tables);
    diffs.add(d);
  }

  /** Help given in a step without a fault: the system needed it on its own. */
  synchronized void helpWithoutFault(String what) {
    helpWithoutFault.add(what);
  }

  /** Something worth reading in the report that is neither help nor a failure. */
  synchronized void note(String what) {
    notes.add(what);
  }

  synchronized void traffic(Map<String, Object> counts) {
    traffic = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(counts));
  }

  synchronized void checks(EndChecks c, long versions) {
    checks = c;
    mapVersions = versions;
  }

  synchronized boolean isCompleted() {
    return completed;
  }

  synchronized EndChecks checks() {
    return checks;
  }

  synchronized long diffsRun() {
    return diffs.size();
  }

  synchronized long diffsClean() {
    return diffs.stream().filter(d -> Boolean.TRUE.equals(d.get("clean"))).count();
  }

  synchronized List<String> helpWithoutFault() {
    return List.copyOf(helpWithoutFault);
  }

  /** Reader anomalies that are checks too: scatter duplicates and loaded rows not found. */
  synchronized long readAnomalies() {
    return ((Number) traffic.getOrDefault("scatter_duplicates", 0L)).longValue()
        + ((Number) traffic.getOrDefault("read_misses", 0L)).longValue();
  }

  synchronized Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("lifecycle", keyspace.lifecycle());
    m.put("keyspace", keyspace.name());
    m.put("workflow", keyspace.workflow());
    m.put("split", keyspace.source() + " -> " + keyspace.targets());
    m.put("completed", completed);
    m.put("abandoned_because", abandonedBecause);
    m.put("diffs", List.copyOf(diffs));
    m.put("traffic", traffic);
    m.put("map_versions", mapVersions);
    if (checks != null) {
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("ids", checks.ids());
      c.put("rows_on_owners", checks.rows());
      c.put("acknowledged_writes_lost", checks.lost());
      c.put("ids_duplicated", checks.duplicated());
      c.put("rows_on_wrong_shard", checks.misplaced());
      c.put("rows_no_write_explains", checks.phantom());
      c.put("writes_accepted_by_stale_owner", checks.staleOwner());
      c.put("samples", checks.samples());
      m.put("checks", c);
    }
    m.put("help_without_fault", List.copyOf(helpWithoutFault));
    m.put("notes", List.copyOf(notes));
    return m;
  }
}
