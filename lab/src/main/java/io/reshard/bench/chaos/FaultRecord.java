package io.reshard.bench.chaos;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What happened to one planned fault: where it landed, how long the environment was without the
 * process, whether and how fast the system healed on its own, and any human help it needed (each a
 * line saying what was done and why). Written by the lifecycle's driver and its action thread, read
 * by the report. Thread-safe.
 */
final class FaultRecord {
  final FaultPlan.PlannedFault planned;
  private String process;
  private String stateAtInjection;
  private boolean landedInStep;
  private long injectedAtMillis = -1;
  private long outageMillis;
  private String injectionError;
  private HealWatch.Result heal;
  private boolean healedAfterHelp;
  private final List<String> help = new ArrayList<>();
  private List<String> daemonLog = List.of();

  FaultRecord(FaultPlan.PlannedFault planned) {
    this.planned = planned;
  }

  /** Records the injection: the process hit, the workflow state then, and the outage. */
  synchronized void injected(
      String process, String state, boolean inStep, long atMillis, long outageMillis) {
    this.process = process;
    this.stateAtInjection = state;
    this.landedInStep = inStep;
    this.injectedAtMillis = atMillis;
    this.outageMillis = outageMillis;
  }

  /** The fault could not be injected (the process was not running, say). */
  synchronized void failedToInject(String why) {
    this.injectionError = why;
  }

  /** The result of the wait for healing without help. */
  synchronized void healed(HealWatch.Result r) {
    this.heal = r;
  }

  /** Human help given, and why. */
  synchronized void help(String what) {
    help.add(what);
  }

  /** The system healed once it had been helped. */
  synchronized void healedAfterHelp() {
    healedAfterHelp = true;
  }

  /** The daemon's warnings and errors after the fault, kept when it did not heal. */
  synchronized void daemonLog(List<String> lines) {
    daemonLog = List.copyOf(lines);
  }

  /** Injected while its step still ran (a copy: while it copied), not just after it. */
  synchronized boolean landedInStep() {
    return wasInjected() && landedInStep;
  }

  synchronized boolean wasInjected() {
    return injectionError == null && injectedAtMillis >= 0;
  }

  /** Injected, healed within the bound, and no help of any kind was needed for its step. */
  synchronized boolean healedWithoutHelp() {
    return wasInjected() && heal != null && heal.healed() && help.isEmpty();
  }

  /** The heal time, if it healed without help. */
  synchronized long healMillis() {
    return heal == null ? -1 : heal.millis();
  }

  synchronized List<String> helpGiven() {
    return List.copyOf(help);
  }

  synchronized String unmet() {
    return heal == null ? null : heal.unmet();
  }

  synchronized List<String> daemonLog() {
    return daemonLog;
  }

  /** The record as JSON-able maps. */
  synchronized Map<String, Object> toJson() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("index", planned.index());
    m.put("lifecycle", planned.lifecycle());
    m.put("step", planned.step().label());
    m.put("kind", planned.kind().wireName());
    m.put("target", planned.target().label());
    m.put("delay_ms", planned.delayMillis());
    m.put("process", process);
    m.put("injected", wasInjected());
    m.put("injection_error", injectionError);
    m.put("injected_at_ms", injectedAtMillis);
    m.put("workflow_state_at_injection", stateAtInjection);
    m.put("landed_during_step", landedInStep);
    m.put("outage_ms", outageMillis);
    m.put("healed_within_bound", heal != null && heal.healed());
    m.put("heal_ms", heal == null ? null : heal.millis());
    m.put("not_healed_because", heal == null || heal.healed() ? null : heal.unmet());
    m.put("help", List.copyOf(help));
    m.put("healed_after_help", healedAfterHelp);
    m.put("healed_without_help", healedWithoutHelp());
    m.put("daemon_log", daemonLog);
    return m;
  }
}
