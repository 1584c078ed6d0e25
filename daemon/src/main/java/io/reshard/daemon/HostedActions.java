package io.reshard.daemon;

import io.reshard.daemon.WorkflowActions.Outcome;
import io.reshard.daemon.WorkflowActions.Result;
import io.reshard.differ.DiffReport;
import io.reshard.differ.Differ;
import io.reshard.differ.TableDiff;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.WorkflowRunner;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The operator's actions on a workflow the daemon hosts, each one step of its runner, and the
 * answer the admin endpoint gives (its outcome, a message for humans, data for {@code --output
 * json}). The caller holds the workflow's lock. Stateless.
 */
final class HostedActions {
  private HostedActions() {}

  /**
   * Performs {@code action} on {@code h}.
   *
   * @param p the action's parameters, as the admin endpoint received them
   * @param unhost called with the workflow's name when the action ends its hosting (complete,
   *     cancel)
   */
  static Result act(
      HostedWorkflow h,
      WorkflowAction action,
      Map<String, String> p,
      Consumer<String> unhost,
      CaptureStops stops)
      throws Exception {
    WorkflowRunner r = h.runner;
    String name = r.spec().name();
    return switch (action) {
      case DIFF -> Boolean.parseBoolean(p.getOrDefault("repair", "false")) ? repair(h) : diff(h);
      case SWITCH_READS -> {
        r.switchReads();
        yield new Result(Outcome.DONE, "workflow " + name + ": reads served by the targets");
      }
      case SWITCH_WRITES -> switchWrites(r, p);
      case RESUME -> resume(h, stops);
      case REVERSE_TRAFFIC -> {
        r.reverseTraffic();
        yield new Result(
            Outcome.DONE,
            "workflow "
                + name
                + ": writes and reads back on "
                + r.workflow().sources()
                + "; forward streams run again (run a diff before switching again)");
      }
      case COMPLETE -> {
        r.complete(Boolean.parseBoolean(p.getOrDefault("drop_source_data", "false")));
        unhost.accept(name);
        r.close();
        yield new Result(
            Outcome.DONE,
            "workflow " + name + " completed: " + r.workflow().sources() + " retired");
      }
      case CANCEL -> {
        h.stopCopy();
        r.cancel();
        unhost.accept(name);
        r.close();
        yield new Result(Outcome.DONE, "workflow " + name + " cancelled: the targets were emptied");
      }
      // perform() creates before any workflow is hosted: never reached
      case CREATE -> throw new IllegalArgumentException("workflow " + name + " exists already");
    };
  }

  /**
   * Acts on every stop of the workflow: a copy that stopped (on any failure) goes on from where it
   * was; streams whose applier ended are started again from their stored positions; streams stopped
   * in error pass over the DDL or retry the row. Refused only if nothing had stopped.
   */
  private static Result resume(HostedWorkflow h, CaptureStops stops) {
    WorkflowRunner r = h.runner;
    String name = r.spec().name();
    List<String> done = new java.util.ArrayList<>();
    if (h.restartFailedCopy()) {
      done.add("the copy goes on from where it stopped");
    }
    int restarted = r.restartDeadStreams();
    if (restarted > 0) {
      done.add(
          restarted == 1
              ? "1 stream whose applier had ended started again"
              : restarted + " streams whose appliers had ended started again");
    }
    List<String> resumed;
    try {
      resumed = r.resumeStreams();
    } catch (SwitchRefusedException e) {
      // a stopped capture: say which way on applies
      throw new SwitchRefusedException(
          e.getMessage() + stops.wayOn(r.workflow()).map(w -> "; " + w).orElse(""));
    }
    if (!resumed.isEmpty()) {
      done.add(
          "streams into "
              + resumed
              + " resumed (a DDL is passed over, a refused row is tried again, a change whose"
              + " key no vindex maps is passed over: the change that fixed the row carries it)");
    }
    return done.isEmpty()
        ? new Result(
            Outcome.REFUSED,
            "workflow " + name + ": nothing is stopped: the copy and every stream run or are done")
        : new Result(Outcome.DONE, "workflow " + name + ": " + String.join("; ", done));
  }

  private static Result switchWrites(WorkflowRunner r, Map<String, String> p) throws Exception {
    boolean force = Boolean.parseBoolean(p.getOrDefault("force", "false"));
    Duration timeout =
        p.containsKey("timeout_ms")
            ? Duration.ofMillis(positive(p.get("timeout_ms"), "timeout_ms"))
            : r.spec().catchUpTimeout();
    if (Boolean.parseBoolean(p.getOrDefault("dry_run", "false"))) {
      List<String> plan = r.switchWritesPlan(force);
      return new Result(
          Outcome.DONE,
          "dry run: the switch would\n  " + String.join("\n  ", plan),
          Map.of("dry_run", true, "steps", plan));
    }
    long t0 = System.nanoTime();
    r.switchWrites(force, timeout);
    return new Result(
        Outcome.DONE,
        "workflow "
            + r.spec().name()
            + ": writes served by "
            + r.workflow().targets()
            + " (switched in "
            + (System.nanoTime() - t0) / 1_000_000
            + " ms)");
  }

  private static Result diff(HostedWorkflow h) throws Exception {
    h.refuseBeforeCopyDone("diff");
    List<DiffReport> reports = h.runner.diff();
    Map<String, Object> data = WorkflowViews.diff(reports);
    boolean clean = (boolean) data.get("clean");
    return new Result(
        Outcome.DONE,
        "workflow "
            + h.runner.spec().name()
            + ": diff "
            + (clean ? "clean" : "found differences")
            + "\n"
            + String.join("\n", reports.stream().map(DiffReport::toTable).toList()),
        data);
  }

  /**
   * Repairs every target, then diffs again; data {@code {clean, repaired: <diff json of what was
   * found and fixed>, verified: <diff json of the diff after it>}}, {@code clean} being the second
   * diff's.
   */
  private static Result repair(HostedWorkflow h) throws Exception {
    h.refuseBeforeCopyDone("repair");
    List<Differ.RepairResult> results = h.runner.repair();
    List<DiffReport> repaired = results.stream().map(Differ.RepairResult::repaired).toList();
    List<DiffReport> verified = results.stream().map(Differ.RepairResult::verified).toList();
    long fixed =
        repaired.stream().flatMap(r -> r.tables().stream()).mapToLong(TableDiff::repaired).sum();
    Map<String, Object> data = WorkflowViews.repair(repaired, verified, fixed);
    boolean clean = (boolean) data.get("clean");
    return new Result(
        Outcome.DONE,
        "workflow "
            + h.runner.spec().name()
            + ": repair wrote or deleted "
            + fixed
            + (fixed == 1 ? " row" : " rows")
            + " on the targets; the diff after it is "
            + (clean ? "clean" : "not clean")
            + "\nfound and repaired:\n"
            + String.join("\n", repaired.stream().map(DiffReport::toTable).toList())
            + "\nafter the repair:\n"
            + String.join("\n", verified.stream().map(DiffReport::toTable).toList()),
        data);
  }

  private static long positive(String v, String key) {
    try {
      long n = Long.parseLong(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(key + " must be a positive number, got " + v);
  }
}
