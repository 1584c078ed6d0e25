package io.reshard.bench.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The chaos run's report: per fault kind, how many were injected (and how many of them while their
 * step still ran, the rest just after it), how many healed without help, and the median and largest
 * time to heal of those; the end checks summed over the lifecycles; every help given and why; and
 * whether the run passed — only if every planned fault was injected and healed without help, every
 * lifecycle completed, every diff was clean, every check is 0 and the daemon never exited by
 * itself. Printed as tables and written as JSON. Immutable once built.
 */
final class ChaosReport {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private final ChaosOptions options;
  private final FaultPlan plan;
  private final List<FaultRecord> faults;
  private final List<LifecycleResult> lifecycles;
  private final List<String> daemonExits;
  private final long seconds;

  ChaosReport(
      ChaosOptions options,
      FaultPlan plan,
      List<FaultRecord> faults,
      List<LifecycleResult> lifecycles,
      List<String> daemonExits,
      long seconds) {
    this.options = options;
    this.plan = plan;
    this.faults = List.copyOf(faults);
    this.lifecycles = List.copyOf(lifecycles);
    this.daemonExits = List.copyOf(daemonExits);
    this.seconds = seconds;
  }

  /**
   * One figure that must be 0 for the run to pass.
   *
   * @param key its name in the JSON report
   * @param label its name in the printed table
   * @param value its value, summed over the lifecycles
   */
  record Check(String key, String label, long value) {}

  /** The end checks and the run's own, in the printed order. */
  List<Check> checks() {
    List<Check> c = new ArrayList<>();
    c.add(new Check("acknowledged_writes_lost", "acknowledged writes lost", sum(EndChecks::lost)));
    c.add(new Check("ids_duplicated", "ids duplicated", sum(EndChecks::duplicated)));
    c.add(new Check("rows_on_wrong_shard", "rows on a wrong shard", sum(EndChecks::misplaced)));
    c.add(new Check("rows_no_write_explains", "rows no write explains", sum(EndChecks::phantom)));
    c.add(
        new Check(
            "writes_accepted_by_stale_owner",
            "writes accepted by a stale owner",
            sum(EndChecks::staleOwner)));
    c.add(
        new Check(
            "read_anomalies",
            "reads: scatter duplicates, loaded rows missed",
            lifecycles.stream().mapToLong(LifecycleResult::readAnomalies).sum()));
    c.add(
        new Check(
            "diffs_not_clean",
            "diffs not clean",
            lifecycles.stream().mapToLong(l -> l.diffsRun() - l.diffsClean()).sum()));
    c.add(
        new Check(
            "lifecycles_not_completed",
            "lifecycles not completed",
            lifecycles.stream().filter(l -> !l.isCompleted() || l.checks() == null).count()
                + (plan.lifecycles() - lifecycles.size())));
    c.add(
        new Check(
            "faults_not_injected",
            "faults not injected",
            plan.faults().size() - faults.stream().filter(FaultRecord::wasInjected).count()));
    c.add(
        new Check(
            "faults_not_healed_without_help",
            "faults not healed without help",
            faults.stream().filter(f -> !f.healedWithoutHelp()).count()));
    c.add(
        new Check(
            "help_without_fault",
            "help without a fault",
            lifecycles.stream().mapToLong(l -> l.helpWithoutFault().size()).sum()));
    c.add(
        new Check("daemon_exits_nobody_caused", "daemon exits nobody caused", daemonExits.size()));
    return c;
  }

  /** True if the run passed. */
  boolean ok() {
    return checks().stream().allMatch(c -> c.value() == 0);
  }

  /** Prints the tables. */
  void print(PrintWriter out) {
    out.println();
    out.printf(
        "%-20s %9s %9s %20s %12s %12s%n",
        "fault kind", "injected", "in a step", "healed without help", "median heal", "max heal");
    for (FaultKind k : FaultKind.values()) {
      List<FaultRecord> of = faults.stream().filter(f -> f.planned.kind() == k).toList();
      if (of.isEmpty()) {
        continue;
      }
      long[] heal = healTimes(of);
      out.printf(
          "%-20s %9d %9d %20d %12s %12s%n",
          k.label(),
          of.stream().filter(FaultRecord::wasInjected).count(),
          of.stream().filter(FaultRecord::landedInStep).count(),
          heal.length,
          heal.length == 0 ? "-" : seconds(median(heal)),
          heal.length == 0 ? "-" : seconds(heal[heal.length - 1]));
    }
    out.println();
    out.println("end checks (all lifecycles):");
    checks().forEach(c -> out.printf("  %-50s %d%n", c.label(), c.value()));
    List<String> help = helpLines();
    if (!help.isEmpty()) {
      out.println("human help and faults not healed:");
      help.forEach(h -> out.println("  " + h));
    }
    out.printf(
        "chaos run %s in %d s (seed %d, %d faults)%n",
        ok() ? "passed" : "FAILED", seconds, options.seed(), options.faults());
    out.flush();
  }

  private List<String> helpLines() {
    List<String> lines = new ArrayList<>();
    for (FaultRecord f : faults) {
      if (!f.healedWithoutHelp()) {
        lines.add(f.planned.describe() + ": " + outcome(f));
        f.helpGiven().forEach(h -> lines.add("    help: " + h));
        f.daemonLog().forEach(l -> lines.add("    log: " + l));
      }
    }
    for (LifecycleResult l : lifecycles) {
      l.helpWithoutFault()
          .forEach(h -> lines.add("lifecycle " + l.keyspace.lifecycle() + " (no fault): " + h));
    }
    daemonExits.forEach(e -> lines.add("supervisor: " + e));
    return lines;
  }

  private static String outcome(FaultRecord f) {
    if (!f.wasInjected()) {
      return "not injected";
    }
    return f.unmet() == null || f.unmet().isEmpty()
        ? "healed within the bound, but only with help"
        : "not healed: " + f.unmet();
  }

  /** Writes the JSON report to {@code file}. */
  void write(Path file) throws IOException {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("ok", ok());
    m.put("seed", options.seed());
    m.put("faults_requested", options.faults());
    m.put("duration_s", seconds);
    m.put("options", options(options));
    m.put("plan", plan.faults().stream().map(FaultPlan.PlannedFault::describe).toList());
    Map<String, Object> byKind = new LinkedHashMap<>();
    for (FaultKind k : FaultKind.values()) {
      List<FaultRecord> of = faults.stream().filter(f -> f.planned.kind() == k).toList();
      long[] heal = healTimes(of);
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("injected", of.stream().filter(FaultRecord::wasInjected).count());
      one.put("landed_during_step", of.stream().filter(FaultRecord::landedInStep).count());
      one.put("healed_without_help", heal.length);
      one.put("median_heal_ms", heal.length == 0 ? null : median(heal));
      one.put("max_heal_ms", heal.length == 0 ? null : heal[heal.length - 1]);
      byKind.put(k.wireName(), one);
    }
    m.put("by_kind", byKind);
    Map<String, Object> checks = new LinkedHashMap<>();
    checks().forEach(c -> checks.put(c.key(), c.value()));
    m.put("checks", checks);
    m.put("faults", faults.stream().map(FaultRecord::toJson).toList());
    m.put("lifecycles", lifecycles.stream().map(LifecycleResult::toJson).toList());
    m.put("daemon_exits_nobody_caused", daemonExits);
    Path parent = file.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    JSON.writeValue(file.toFile(), m);
  }

  private static Map<String, Object> options(ChaosOptions o) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kinds", o.kinds().stream().map(FaultKind::wireName).toList());
    m.put("fault_probability", o.probability());
    m.put("max_delay_ms", o.maxDelay().toMillis());
    m.put("rows", o.rows());
    m.put("writers", o.writers());
    m.put("writes_per_s", o.writesPerSecond());
    m.put("reads_per_s", o.readsPerSecond());
    m.put("stale_lag_ms", o.staleLag().toMillis());
    m.put("heal_timeout_ms", o.healTimeout().toMillis());
    m.put("lag_bound_ms", o.lagBound().toMillis());
    m.put("pause_ms", o.pause().toMillis());
    m.put("lock_hold_ms", o.lockHold().toMillis());
    m.put("restart_delay_ms", o.restartDelay().toMillis());
    m.put("daemon_settings", o.daemonSettings());
    return m;
  }

  private long sum(java.util.function.ToLongFunction<EndChecks> f) {
    return lifecycles.stream()
        .filter(l -> l.checks() != null)
        .mapToLong(l -> f.applyAsLong(l.checks()))
        .sum();
  }

  /** The heal times of the faults that healed without help, sorted. */
  private static long[] healTimes(List<FaultRecord> of) {
    long[] t =
        of.stream()
            .filter(FaultRecord::healedWithoutHelp)
            .mapToLong(FaultRecord::healMillis)
            .toArray();
    Arrays.sort(t);
    return t;
  }

  /** The median of sorted values (the mean of the middle two for an even count). */
  static long median(long[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  private static String seconds(long millis) {
    return String.format("%.1f s", millis / 1000.0);
  }
}
