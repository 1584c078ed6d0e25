package io.reshard.bench.chaos;

import io.reshard.router.ShardMap;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Drives one lifecycle of a split through its steps ({@link #run}, which reads as the runbook)
 * while the application writes and reads, and injects the plan's fault into each step that has one:
 * the step's action runs on a thread of its own; the fault lands after its delay (or at once if the
 * step ended sooner); then the driver waits for the system to heal by itself ({@link HealWatch})
 * and, if it does not within the bound, helps it on as an operator would (a daemon restart, then
 * {@code workflow resume}), recording every help.
 */
final class LifecycleDriver {
  /** Lifecycle step bodies. */
  interface StepBody {
    void run(StepContext ctx) throws Exception;
  }

  /** A step could not be finished even with help: the lifecycle is abandoned. */
  static final class StepFailedException extends Exception {
    StepFailedException(String message) {
      super(message);
    }
  }

  private final ChaosEnv env;
  private final ChaosKeyspace ks;
  private final FaultPlan plan;
  private final List<FaultRecord> faults;
  private final LifecycleResult result;
  private final LifecycleApplication app;
  private final StepActions actions;
  private final ExecutorService stepThread =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "chaos-step");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param faults where the record of every fault of this lifecycle is added, in order
   */
  LifecycleDriver(ChaosEnv env, ChaosKeyspace ks, FaultPlan plan, List<FaultRecord> faults) {
    this.env = env;
    this.ks = ks;
    this.plan = plan;
    this.faults = faults;
    this.result = new LifecycleResult(ks);
    this.app = new LifecycleApplication(env, ks);
    this.actions = new StepActions(env, ks, result, this::watch);
  }

  /** Runs the lifecycle to its end (or until a step fails for good) and checks the end state. */
  LifecycleResult run() throws Exception {
    env.log()
        .accept(
            "lifecycle "
                + ks.lifecycle()
                + ": keyspace "
                + ks.name()
                + ", split "
                + ks.source()
                + " into "
                + ks.targets());
    try {
      app.load();
      step(LifecycleStep.INIT, actions::init);
      app.start();
      step(LifecycleStep.CREATE, actions::create);
      step(LifecycleStep.COPY, actions::awaitCopy);
      step(LifecycleStep.DIFF, actions::diff);
      step(LifecycleStep.SWITCH_READS, ctx -> actions.act(ctx, "switch-reads", "READS_SWITCHED"));
      step(LifecycleStep.SWITCH_WRITES, actions::switchWrites);
      step(LifecycleStep.REVERSE, ctx -> actions.act(ctx, "reverse-traffic", "RUNNING"));
      step(LifecycleStep.DIFF_AGAIN, actions::diff);
      step(LifecycleStep.SWITCH_WRITES_AGAIN, actions::switchWrites);
      step(LifecycleStep.COMPLETE, ctx -> actions.act(ctx, "complete", "COMPLETED"));
      result.completed();
    } catch (StepFailedException e) {
      abandon(e.getMessage());
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      abandon("the run could not go on: " + e); // recorded; the next lifecycle starts afresh
    } finally {
      stepThread.shutdownNow();
      try {
        app.finish(result);
      } catch (InterruptedException e) {
        throw e;
      } catch (Exception e) {
        abandon("the end checks could not run: " + e);
      }
    }
    return result;
  }

  private void abandon(String why) {
    env.log().accept("lifecycle " + ks.lifecycle() + " abandoned: " + why);
    result.abandoned(why);
  }

  private void step(LifecycleStep step, StepBody body) throws Exception {
    Optional<FaultPlan.PlannedFault> planned = plan.at(ks.lifecycle(), step);
    FaultRecord fault = planned.map(FaultRecord::new).orElse(null);
    if (fault != null) {
      faults.add(fault);
    }
    StepContext ctx = new StepContext(step, fault, result);
    env.log().accept("lifecycle " + ks.lifecycle() + ": " + step.label());
    Future<Void> running =
        stepThread.submit(
            () -> {
              body.run(ctx);
              return null;
            });
    if (fault != null) {
      inject(ctx, fault, running);
      ctx.settled();
    }
    Duration bound = env.options().healTimeout().multipliedBy(4).plusMinutes(5);
    try {
      running.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof StepFailedException f) {
        throw f;
      }
      throw new StepFailedException(step.label() + " failed: " + e.getCause());
    } catch (TimeoutException e) {
      running.cancel(true);
      throw new StepFailedException(
          step.label() + " did not end within " + bound.toSeconds() + " s");
    }
  }

  /** Injects the step's fault after its delay, then waits for healing, helping if need be. */
  private void inject(StepContext ctx, FaultRecord fault, Future<Void> running) throws Exception {
    FaultPlan.PlannedFault f = fault.planned;
    long due = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(f.delayMillis());
    while (!running.isDone() && System.nanoTime() - due < 0) {
      Thread.sleep(5);
    }
    String state = actions.workflowState();
    boolean inStep =
        !running.isDone()
            && (ctx.step != LifecycleStep.COPY || Set.of("CREATED", "COPYING").contains(state));
    long logFrom = DaemonLog.end(env.daemon().logFile());
    long t0 = System.nanoTime();
    long over;
    try {
      over = env.injector().inject(f, ks);
    } catch (Exception e) {
      env.log().accept("fault #" + f.index() + " could not be injected: " + e);
      fault.failedToInject(e.toString());
      return;
    }
    fault.injected(
        FaultInjector.process(f.target(), ks),
        state,
        inStep,
        env.sinceStartMillis(t0),
        (over - t0) / 1_000_000);
    HealWatch.Result healed = watch(ctx).await(over, env.options().healTimeout());
    fault.healed(healed);
    if (healed.healed()) {
      env.log().accept("fault #" + f.index() + " healed in " + healed.millis() + " ms");
      return;
    }
    env.log()
        .accept(
            "fault #"
                + f.index()
                + " NOT healed after "
                + healed.millis()
                + " ms: "
                + healed.unmet());
    fault.daemonLog(DaemonLog.warningsSince(env.daemon().logFile(), logFrom));
    helpUntilHealed(ctx, fault, healed.unmet());
  }

  /** An operator's help, in order: restart the daemon; then {@code workflow resume}. */
  private void helpUntilHealed(StepContext ctx, FaultRecord fault, String unmet) throws Exception {
    ctx.help(
        "restarted the daemon: not healed after "
            + env.options().healTimeout().toSeconds()
            + " s ("
            + unmet
            + ")");
    env.daemon().restart("help: fault #" + fault.planned.index() + " did not heal");
    HealWatch.Result after = watch(ctx).await(System.nanoTime(), env.options().healTimeout());
    if (!after.healed() && actions.created()) {
      AdminEndpoint.Answer a = env.admin().act(ks.workflow(), "resume", java.util.Map.of());
      ctx.help("workflow resume (" + after.unmet() + "): " + a.outcome() + " " + a.message());
      after = watch(ctx).await(System.nanoTime(), env.options().healTimeout());
    }
    if (after.healed()) {
      fault.healedAfterHelp();
      env.log().accept("fault #" + fault.planned.index() + " healed after help");
    } else {
      ctx.help("still not healed after help: " + after.unmet());
    }
  }

  /** A heal watch over this lifecycle, for the step {@code ctx}. */
  HealWatch watch(StepContext ctx) {
    return new HealWatch(
        env.admin(),
        () -> actions.created() ? Optional.of(ks.workflow()) : Optional.empty(),
        ctx::answered,
        app::traffic,
        () -> {
          ShardMap m = app.newestMap();
          return m;
        },
        env.options().lagBound().toMillis());
  }
}
