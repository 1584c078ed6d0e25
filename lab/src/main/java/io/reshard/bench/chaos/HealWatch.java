package io.reshard.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Decides whether the system has healed after a fault, from the outside only, and how long that
 * took. Healed means all of, at one observation:
 *
 * <ol>
 *   <li>the daemon's {@code /health} answers {@code up} (no service failing or retrying);
 *   <li>the lifecycle's workflow, once created and until it is finished, is hosted by the daemon,
 *       has no copy error, no stream in {@code ERROR}, and every running stream lags at most the
 *       bound;
 *   <li>while it copies, the copy has moved on since the fault (rows copied changed, or the copy
 *       ended);
 *   <li>the action of the step in progress, if one was issued, has answered;
 *   <li>every shard that owns writes in the keyspace's newest map has acknowledged a write that
 *       began after the fault was over.
 * </ol>
 *
 * Observed every {@link #POLL}; not thread-safe (one waiter at a time).
 */
final class HealWatch {
  /** How often the system is looked at while waiting for it to heal. */
  static final Duration POLL = Duration.ofMillis(250);

  private static final Set<String> COPYING = Set.of("CREATED", "COPYING");
  private static final Set<String> FINISHED = Set.of("COMPLETED", "CANCELLED");

  /** Where the application's acknowledged writes committed, and when they began. */
  interface WriteAcks {
    /**
     * When a write that committed on {@code shard} last began ({@link System#nanoTime()}), or 0.
     */
    long lastAckNanos(String shard);
  }

  /**
   * What one wait found.
   *
   * @param healed whether every condition held before the timeout
   * @param millis from the end of the fault until healed, or the time waited
   * @param unmet the condition that did not hold at the last observation (empty if healed)
   */
  record Result(boolean healed, long millis, String unmet) {}

  private final AdminEndpoint admin;
  private final Supplier<Optional<String>> workflow;
  private final BooleanSupplier actionAnswered;
  private final Supplier<WriteAcks> traffic;
  private final Supplier<ShardMap> newestMap;
  private final long lagBoundMillis;

  /**
   * @param workflow the workflow of the lifecycle, once created
   * @param actionAnswered true unless the step's action is waiting for its answer
   * @param traffic the application, or null before it runs
   * @param newestMap the keyspace's newest shard map, or null before there is one
   * @param lagBoundMillis the largest lag of a running stream that counts as healed
   */
  HealWatch(
      AdminEndpoint admin,
      Supplier<Optional<String>> workflow,
      BooleanSupplier actionAnswered,
      Supplier<WriteAcks> traffic,
      Supplier<ShardMap> newestMap,
      long lagBoundMillis) {
    this.admin = admin;
    this.workflow = workflow;
    this.actionAnswered = actionAnswered;
    this.traffic = traffic;
    this.newestMap = newestMap;
    this.lagBoundMillis = lagBoundMillis;
  }

  /**
   * Waits until the system has healed, at most {@code timeout}.
   *
   * @param sinceNanos when the fault was over ({@link System#nanoTime()}): writes must begin after
   */
  Result await(long sinceNanos, Duration timeout) throws InterruptedException {
    long deadline = sinceNanos + timeout.toNanos();
    long[] copyBaseline = {-1};
    String unmet = "not observed yet";
    while (true) {
      Optional<String> why = unmet(sinceNanos, copyBaseline);
      long now = System.nanoTime();
      if (why.isEmpty()) {
        return new Result(true, Math.max(0, (now - sinceNanos) / 1_000_000), "");
      }
      unmet = why.get();
      if (now - deadline > 0) {
        return new Result(false, (now - sinceNanos) / 1_000_000, unmet);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** The first condition that does not hold now, or empty if all do. */
  Optional<String> unmet(long sinceNanos, long[] copyBaseline) throws InterruptedException {
    Optional<AdminEndpoint.Answer> health = admin.get("/health");
    if (health.isEmpty() || health.get().status() != 200) {
      return Optional.of("the daemon's /health does not answer");
    }
    if (!"up".equals(health.get().body().path("status").asText())) {
      return Optional.of("/health is " + degraded(health.get().body()));
    }
    Optional<String> name = workflow.get();
    if (name.isPresent()) {
      Optional<String> w = unmetWorkflow(name.get(), copyBaseline);
      if (w.isPresent()) {
        return w;
      }
    }
    if (!actionAnswered.getAsBoolean()) {
      return Optional.of("the step's action has not answered yet");
    }
    return unmetWrites(sinceNanos);
  }

  private Optional<String> unmetWorkflow(String name, long[] copyBaseline)
      throws InterruptedException {
    Optional<AdminEndpoint.Answer> a = admin.get("/workflows/" + name);
    if (a.isEmpty() || a.get().status() != 200) {
      return Optional.of(
          "workflow "
              + name
              + " cannot be read"
              + a.map(x -> " (" + x.status() + " " + x.message() + ")").orElse(""));
    }
    JsonNode w = a.get().body();
    String state = w.path("state").asText();
    if (FINISHED.contains(state)) {
      return Optional.empty();
    }
    if (!w.path("hosted").asBoolean(false)) {
      return Optional.of(
          "workflow " + name + " (" + state + ") is not taken up: " + w.path("last_error"));
    }
    if (w.hasNonNull("copy_error")) {
      return Optional.of(
          "workflow " + name + " (" + state + "): copy failed: " + w.get("copy_error").asText());
    }
    for (JsonNode s : w.path("streams")) {
      String into = s.path("direction").asText() + " stream into " + s.path("target").asText();
      if ("ERROR".equals(s.path("state").asText())) {
        return Optional.of(into + " is in ERROR: " + s.path("last_error").asText());
      }
      long lag = s.path("lag_ms").asLong();
      if ("RUNNING".equals(s.path("state").asText()) && lag > lagBoundMillis) {
        return Optional.of(into + " lags " + lag + " ms (bound " + lagBoundMillis + ")");
      }
    }
    if (COPYING.contains(state)) {
      long rows = w.path("copy").path("rows_copied").asLong(-1);
      if (copyBaseline[0] < 0) {
        copyBaseline[0] = rows;
      }
      if (rows < 0 || rows == copyBaseline[0]) {
        return Optional.of(
            "workflow "
                + name
                + " is "
                + state
                + " and its copy has not moved (rows copied "
                + rows
                + ")");
      }
    }
    return Optional.empty();
  }

  private Optional<String> unmetWrites(long sinceNanos) {
    WriteAcks t = traffic.get();
    ShardMap map = newestMap.get();
    if (t == null || map == null) {
      return Optional.empty();
    }
    List<String> silent = new ArrayList<>();
    for (Shard s : map.shards()) {
      if (s.servesWrites() && t.lastAckNanos(s.name()) - sinceNanos <= 0) {
        silent.add(s.name());
      }
    }
    return silent.isEmpty()
        ? Optional.empty()
        : Optional.of("no write acknowledged on " + silent + " since the fault");
  }

  private static String degraded(JsonNode health) {
    List<String> parts = new ArrayList<>();
    for (JsonNode s : health.path("services")) {
      if (!"RUNNING".equals(s.path("state").asText())) {
        parts.add(
            s.path("name").asText()
                + " "
                + s.path("state").asText()
                + (s.hasNonNull("detail") ? ": " + s.get("detail").asText() : ""));
      }
    }
    return health.path("status").asText() + " " + parts;
  }
}
