package io.reshard.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * What each lifecycle step does, the way a careful script of an operator would do it: {@code
 * keyspace init} through the CLI, every other step through the daemon's admin endpoint. The one
 * kind of retry that is not help: an action that answered "retry later" (503), or got no answer
 * because the daemon was down, is sent again (after a lost answer, only if the stored state shows
 * the step not done). Any other answer (refused, aborted) is human help when the action is sent
 * again. Before a write switch the script waits for the streams to catch up, as the switch asks.
 * Thread-safe: one step at a time runs here, on the step thread.
 */
final class StepActions {
  /** How often a step is sent again after answers that are not "retry later". */
  static final int MAX_REISSUES = 3;

  /** The lag under which a write switch is sent (the daemon refuses more than 5 s by default). */
  private static final long SWITCH_LAG_MS = 1000;

  private static final Set<String> COPYING = Set.of("CREATED", "COPYING");

  private final ChaosEnv env;
  private final ChaosKeyspace ks;
  private final LifecycleResult result;
  private final Function<StepContext, HealWatch> watch;
  private volatile boolean created;
  private boolean lastDiffDirty;

  StepActions(
      ChaosEnv env,
      ChaosKeyspace ks,
      LifecycleResult result,
      Function<StepContext, HealWatch> watch) {
    this.env = env;
    this.ks = ks;
    this.result = result;
    this.watch = watch;
  }

  /** True once the workflow's record exists. */
  boolean created() {
    return created;
  }

  /** The workflow's stored state, {@code absent} before create, or {@code unreadable}. */
  String workflowState() throws InterruptedException {
    Optional<AdminEndpoint.Answer> a = env.admin().get("/workflows/" + ks.workflow());
    if (a.isEmpty() || (a.get().status() != 200 && a.get().status() != 404)) {
      return "unreadable";
    }
    return a.get().status() == 404 ? "absent" : a.get().body().path("state").asText();
  }

  /** {@code reshard keyspace init} for the two shards, in a CLI process of its own. */
  void init(StepContext ctx) throws Exception {
    Path vschema = env.options().dir().resolve(ks.name() + ".vschema.json");
    Files.writeString(vschema, ChaosKeyspace.VSCHEMA, StandardCharsets.UTF_8);
    List<String> args =
        List.of(
            "keyspace",
            "init",
            "--cluster",
            env.options().dir().toString(),
            "--keyspace",
            ks.name(),
            "--vschema",
            vschema.toString(),
            "--shards=" + String.join(",", ChaosKeyspace.SHARDS));
    for (int reissues = 0; ; ) {
      ctx.inFlight(true);
      CliChild.Run r = CliChild.run(env.options().dir(), args, Duration.ofMinutes(3));
      ctx.inFlight(false);
      if (r.exit() == 0) {
        return;
      }
      if (hasShardMap()) {
        result.note("keyspace init exited " + r.exit() + " but the map exists: " + r.errorLine());
        return;
      }
      if (r.exit() == 6) {
        Thread.sleep(1000);
        continue;
      }
      reissue(ctx, "keyspace init", "exit " + r.exit() + ": " + r.errorLine(), ++reissues);
    }
  }

  /** {@code workflow create}: the two targets on the two spares. */
  void create(StepContext ctx) throws Exception {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("keyspace", ks.name());
    p.put("source", ks.source());
    p.put("targets", String.join(",", ks.targets()));
    p.put(
        "target_servers",
        String.join(",", ks.targetServers().stream().map(s -> s.name()).toList()));
    act(ctx, "create", p, this::recordExists);
    created = true;
  }

  /**
   * Waits until the copy is done. Without a fault being dealt with, a copy that makes no progress
   * for the heal timeout gets help (a daemon restart), as an operator watching it would give.
   */
  void awaitCopy(StepContext ctx) throws Exception {
    String last = "";
    long lastChange = System.nanoTime();
    int helps = 0;
    while (true) {
      Optional<AdminEndpoint.Answer> a = env.admin().get("/workflows/" + ks.workflow());
      if (a.isPresent() && a.get().status() == 200) {
        JsonNode w = a.get().body();
        String state = w.path("state").asText();
        if (!COPYING.contains(state)) {
          return;
        }
        String now =
            state
                + " "
                + w.path("copy").path("rows_copied").asLong(-1)
                + " "
                + w.path("copy_error");
        if (!now.equals(last)) {
          last = now;
          lastChange = System.nanoTime();
        }
      }
      long settled = ctx.settledNanos();
      long since = Math.max(lastChange, settled);
      if (settled != 0 && System.nanoTime() - since > env.options().healTimeout().toNanos()) {
        if (++helps > MAX_REISSUES) {
          throw new LifecycleDriver.StepFailedException("the copy never finished: " + last);
        }
        ctx.help(
            "restarted the daemon: the copy made no progress for "
                + env.options().healTimeout().toSeconds()
                + " s ("
                + last
                + ")");
        env.daemon().restart("help: the copy made no progress");
        lastChange = System.nanoTime();
      }
      Thread.sleep(500);
    }
  }

  /** {@code workflow diff}: records whether it was clean. */
  void diff(StepContext ctx) throws Exception {
    AdminEndpoint.Answer a = act(ctx, "diff", Map.of(), () -> false);
    JsonNode data = a.body().path("data");
    boolean clean = data.path("clean").asBoolean(false);
    result.diff(ctx.step, clean, data.path("tables"));
    lastDiffDirty = !clean;
    env.log()
        .accept(
            "lifecycle "
                + ks.lifecycle()
                + ": diff "
                + (clean ? "clean" : "NOT clean: " + data.path("tables")));
  }

  /**
   * {@code switch-traffic --writes}, once the streams have caught up; forced after a dirty diff.
   */
  void switchWrites(StepContext ctx) throws Exception {
    awaitCaughtUp();
    Map<String, String> p = lastDiffDirty ? Map.of("force", "true") : Map.of();
    if (lastDiffDirty) {
      result.note(ctx.step.label() + " forced: the diff before it was not clean");
    }
    act(ctx, "switch-writes", p, () -> "WRITES_SWITCHED".equals(workflowState()));
  }

  /** Performs {@code action} until it is done; done also when the state is {@code doneState}. */
  void act(StepContext ctx, String action, String doneState) throws Exception {
    act(ctx, action, Map.of(), () -> doneState.equals(workflowState()));
  }

  /**
   * Sends {@code action} until it is done: again at once after "retry later" or a lost answer (then
   * only if {@code done} says the step did not happen), again as human help after any other answer,
   * at most {@link #MAX_REISSUES} times.
   */
  AdminEndpoint.Answer act(StepContext ctx, String action, Map<String, String> params, Check done)
      throws Exception {
    for (int reissues = 0; ; ) {
      ctx.inFlight(true);
      AdminEndpoint.Answer a = env.admin().act(ks.workflow(), action, params);
      switch (a.outcome()) {
        case DONE -> {
          ctx.inFlight(false);
          return a;
        }
        case RETRY_LATER -> Thread.sleep(1000);
        case DAEMON_DOWN -> {
          awaitDaemon();
          if (done.holds()) {
            ctx.inFlight(false);
            result.note(
                action + ": its answer was lost (" + a.message() + "); the state shows it done");
            return a;
          }
        }
        default -> {
          ctx.inFlight(false);
          if (done.holds()) {
            result.note(
                action
                    + " answered "
                    + a.outcome()
                    + " but the state shows it done: "
                    + a.message());
            return a;
          }
          reissue(ctx, action, a.outcome() + " " + a.message(), ++reissues);
        }
      }
    }
  }

  /** A condition on the stored state; may ask the daemon. */
  interface Check {
    boolean holds() throws Exception;
  }

  private void reissue(StepContext ctx, String action, String answer, int reissues)
      throws Exception {
    if (reissues > MAX_REISSUES) {
      throw new LifecycleDriver.StepFailedException(
          action + " failed " + reissues + " times; last: " + answer);
    }
    env.log()
        .accept(
            "lifecycle "
                + ks.lifecycle()
                + ": "
                + action
                + " answered "
                + answer
                + "; sending it again (help)");
    ctx.help("sent " + action + " again after it answered " + answer);
    watch.apply(ctx).await(System.nanoTime(), env.options().healTimeout());
  }

  private void awaitDaemon() throws InterruptedException {
    long deadline = System.nanoTime() + env.options().healTimeout().toNanos();
    while (env.admin().get("/health").isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(250);
    }
  }

  private void awaitCaughtUp() throws InterruptedException {
    long deadline = System.nanoTime() + env.options().healTimeout().toNanos();
    while (System.nanoTime() < deadline) {
      Optional<AdminEndpoint.Answer> a = env.admin().get("/workflows/" + ks.workflow());
      if (a.isPresent()
          && a.get().body().path("hosted").asBoolean(false)
          && a.get().body().path("max_lag_ms").asLong(Long.MAX_VALUE) < SWITCH_LAG_MS) {
        return;
      }
      Thread.sleep(250);
    }
  }

  /**
   * True once the workflow's record is stored (a create whose answer was lost may have done it).
   */
  private boolean recordExists() throws InterruptedException {
    return !Set.of("absent", "unreadable").contains(workflowState());
  }

  private boolean hasShardMap() {
    try {
      return !ShardMapTopic.history(
              ShardMapTopicConfig.builder()
                  .bootstrapServers(env.cluster().descriptor().kafka().bootstrap())
                  .build(),
              ks.name())
          .isEmpty();
    } catch (RuntimeException e) {
      return false;
    }
  }
}
