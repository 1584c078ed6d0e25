package io.reshard.daemon;

import io.reshard.cdc.CaptureFencedException;
import io.reshard.cdc.CaptureSkip;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.PositionLostException;
import io.reshard.cdc.UnsupportedChangeException;
import io.reshard.core.position.CapturePosition;
import io.reshard.daemon.WorkflowActions.Outcome;
import io.reshard.daemon.WorkflowActions.Result;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowState;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The way on after a capture of a workflow's source stopped for good, for {@code workflow status},
 * {@code /health} and {@code resume}'s refusal ({@link #wayOn}), and the one way on that the daemon
 * performs itself: {@code resume --skip-capture-stop} ({@link #skip}), which starts a capture
 * stopped on a change it cannot publish again past it and records, on every workflow reading the
 * shard, that its targets miss changes until a diff is clean again (docs/workflow.md, "Stops and
 * their ways on").
 *
 * <p>Which way applies follows from the stop: a change capture cannot publish ({@link
 * UnsupportedChangeException}) is passed over with the skip (or, for a row too large, kept by
 * raising the topic's limit and restarting the daemon); a binlog position the server no longer has
 * ({@link PositionLostException}) needs the workflow cancelled and created again; a capture fenced
 * by another process needs that process stopped. Thread-safe; the caller of {@link #skip} holds the
 * workflow's action lock.
 */
final class CaptureStops {
  /** Finds the daemon's capture service of a shard, configured or started for a workflow. */
  @FunctionalInterface
  interface Lookup {
    /** The capture service of {@code keyspace/shard}, if this daemon runs one. */
    Optional<CaptureService> find(String keyspace, String shard);
  }

  /** How long a skip waits for the capture to store its new position (it starts a new engine). */
  static final Duration SKIP_WAIT = Duration.ofSeconds(60);

  /** The states in which a workflow's forward streams read its sources. */
  private static final Set<WorkflowState> READS_SOURCES =
      EnumSet.of(
          WorkflowState.CREATED,
          WorkflowState.COPYING,
          WorkflowState.RUNNING,
          WorkflowState.READS_SWITCHED,
          WorkflowState.SWITCHING_WRITES);

  /** The states in which a workflow's reverse streams read its targets. */
  private static final Set<WorkflowState> READS_TARGETS =
      EnumSet.of(WorkflowState.WRITES_SWITCHED, WorkflowState.REVERSING);

  private final Lookup captures;

  CaptureStops(Lookup captures) {
    this.captures = captures;
  }

  /**
   * The captures {@code w}'s streams read now (its sources' before the write switch, its targets'
   * after it), each {@code {shard, state, detail}}, for {@code workflow status}: a capture that
   * retries (its server or the broker away) holds the streams back as surely as one that stopped.
   */
  List<Map<String, Object>> captures(Workflow w) {
    List<String> shards =
        READS_SOURCES.contains(w.state())
            ? w.sources()
            : READS_TARGETS.contains(w.state()) ? w.targets() : List.of();
    List<Map<String, Object>> out = new ArrayList<>();
    for (String shard : shards) {
      captures
          .find(w.keyspace(), shard)
          .ifPresent(
              c -> {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("shard", shard);
                m.put("state", c.state().name());
                m.put("detail", c.detail());
                out.add(m);
              });
    }
    return out;
  }

  /**
   * What the operator should do next about a stopped source capture of {@code w} (naming the exact
   * command), or about the changes its streams missed after a skip; empty if neither applies.
   */
  Optional<String> wayOn(Workflow w) {
    if (w == null) {
      return Optional.empty();
    }
    if (READS_SOURCES.contains(w.state())) {
      for (String shard : w.sources()) {
        Optional<CdcException> f =
            captures.find(w.keyspace(), shard).flatMap(CaptureService::failure);
        if (f.isPresent()) {
          return Optional.of(wayOn(w.name(), shard, f.get()));
        }
      }
    }
    if (w.captureGap() != null) {
      return Optional.of(
          "the targets miss changes the streams never received ("
              + w.captureGap()
              + "): run `reshard workflow diff "
              + w.name()
              + " --repair` until it is clean before switching traffic");
    }
    return Optional.empty();
  }

  /** The way on for a capture of {@code shard} stopped by {@code f}, for workflow {@code name}. */
  static String wayOn(String name, String shard, CdcException f) {
    String stopped = "the capture of shard " + shard + " stopped for good; ";
    if (f instanceof UnsupportedChangeException) {
      String keep =
          f.getMessage().contains("max.message.bytes")
              ? "raise the limit the message names and restart the daemon (nothing is lost), or "
              : "";
      return stopped
          + "the way on: "
          + keep
          + "fix what made the change impossible to publish (the stop's message names the"
          + " setting or the change), then run `reshard workflow resume "
          + name
          + " --skip-capture-stop`: capture goes on from the source's position then, and `reshard"
          + " workflow diff "
          + name
          + " --repair` must repair the changes it skipped before traffic switches (both with"
          + " the --cluster or --config you give every workflow command); or cancel the"
          + " workflow and create it again";
    }
    if (f instanceof PositionLostException) {
      return stopped
          + "the way on: the source no longer has the binlog from the stored position; cancel the"
          + " workflow (`reshard workflow cancel "
          + name
          + "`) and create it again: the copy starts over";
    }
    if (f instanceof CaptureFencedException) {
      return stopped
          + "the way on: another capture process of the shard fenced this one; stop it, then"
          + " restart the daemon";
    }
    return stopped + "the way on: do what its message says, then restart the daemon";
  }

  /**
   * {@code resume --skip-capture-stop} on {@code h}: refused (nothing changed) unless the
   * workflow's streams read its sources and a source's capture stopped on a change it cannot
   * publish. Records the gap on {@code h} and on every other hosted workflow whose forward streams
   * read that shard, then starts the capture past the stop, and waits until it has stored its new
   * position.
   *
   * @param hosted every workflow this daemon hosts (those other than {@code h} reading the shard
   *     are locked while their record changes; one that another action holds answers {@code
   *     RETRY_LATER})
   */
  Result skip(HostedWorkflow h, Collection<HostedWorkflow> hosted) throws InterruptedException {
    Workflow w = h.runner.workflow();
    String name = w.name();
    if (!READS_SOURCES.contains(w.state())) {
      return refused(
          "workflow "
              + name
              + " is "
              + w.state().inWords()
              + ": its streams no longer read its sources, so there is no capture stop to skip");
    }
    String shard = null;
    CaptureService service = null;
    for (String s : w.sources()) {
      Optional<CaptureService> c = captures.find(w.keyspace(), s);
      if (c.isPresent() && c.get().failure().orElse(null) instanceof UnsupportedChangeException) {
        shard = s;
        service = c.get();
        break;
      }
    }
    if (service == null) {
      return refused(
          "workflow "
              + name
              + ": no capture of its sources "
              + w.sources()
              + " has stopped on a change it cannot publish, so there is nothing to skip"
              + wayOn(w).map(x -> " (" + x + ")").orElse(""));
    }
    List<HostedWorkflow> readers = new ArrayList<>();
    for (HostedWorkflow o : hosted) {
      Workflow ow = o.runner.workflow();
      if (o == h || ow == null || !ow.keyspace().equals(w.keyspace())) {
        continue;
      }
      if (READS_TARGETS.contains(ow.state()) && ow.targets().contains(shard)) {
        return refused(
            "workflow "
                + name
                + ": the capture of shard "
                + shard
                + " also feeds the reverse streams of workflow "
                + ow.name()
                + ", which no diff checks; skipping would lose changes on their way back."
                + " Complete or reverse "
                + ow.name()
                + " first");
      }
      if (READS_SOURCES.contains(ow.state()) && ow.sources().contains(shard)) {
        readers.add(o);
      }
    }
    List<HostedWorkflow> locked = new ArrayList<>();
    try {
      for (HostedWorkflow o : readers) {
        if (!o.lock.tryLock()) {
          return new Result(
              Outcome.RETRY_LATER,
              "another action is running on workflow "
                  + o.name()
                  + ", which reads shard "
                  + shard
                  + " too; try again when it has finished");
        }
        locked.add(o);
      }
      return skip(h, readers, shard, service);
    } finally {
      locked.forEach(o -> o.lock.unlock());
    }
  }

  private Result skip(
      HostedWorkflow h, List<HostedWorkflow> readers, String shard, CaptureService service)
      throws InterruptedException {
    CapturePosition at = service.storedPosition().orElse(null);
    if (at == null) {
      return refused(
          "workflow "
              + h.name()
              + ": the capture of shard "
              + shard
              + " does not know the position it stopped at; restart the daemon (capture stops"
              + " again on the same change), then run the skip again");
    }
    String reason = service.failure().map(Throwable::getMessage).orElse("?");
    String gap =
        "shard "
            + shard
            + ": changes after "
            + at.gtids()
            + " were skipped at "
            + Instant.now()
            + " because capture could not publish them: "
            + reason;
    // first the records (a crash between the two asks for a repair that finds nothing), then
    // the capture
    h.runner.recordCaptureGap(gap);
    for (HostedWorkflow o : readers) {
      o.runner.recordCaptureGap(gap);
    }
    CaptureSkip skip = service.skipStoppedChange();
    Optional<CapturePosition> to = awaitPast(service, skip);
    String repair = h.runner.repairCommand();
    List<String> also = readers.stream().map(HostedWorkflow::name).toList();
    String others = also.isEmpty() ? "" : " (and on " + also + ", which read the shard too)";
    if (to.isEmpty()) {
      String why =
          service.failure().map(f -> "it stopped again: " + f.getMessage()).orElse("it is late");
      return new Result(
          Outcome.DONE,
          "workflow "
              + h.name()
              + ": the capture of shard "
              + shard
              + " was started past the change it stopped on ("
              + skip.stoppedAt().gtids()
              + ") but has not stored a new position within "
              + SKIP_WAIT.toSeconds()
              + " s: "
              + why
              + ". The missed changes are recorded"
              + others
              + "; once the capture runs, run `"
              + repair
              + "`");
    }
    return new Result(
        Outcome.DONE,
        "workflow "
            + h.name()
            + ": the capture of shard "
            + shard
            + " skipped the changes after "
            + skip.stoppedAt().gtids()
            + " up to "
            + to.get().gtids()
            + " (a gap record in its change topic says so) and captures on from there. The"
            + " targets miss those changes"
            + others
            + ": run `"
            + repair
            + "` until it is clean; until then neither traffic switch runs");
  }

  /**
   * Waits until the capture has stored a position other than the one it stopped at; empty if it
   * stops again or {@link #SKIP_WAIT} passes first.
   */
  private static Optional<CapturePosition> awaitPast(CaptureService service, CaptureSkip skip)
      throws InterruptedException {
    long deadline = System.nanoTime() + SKIP_WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      Optional<CapturePosition> p = service.committedPosition();
      if (p.isPresent()
          && p.get().gtids().covers(skip.stoppedAt().gtids())
          && !skip.appliesTo(p.get())) {
        return p;
      }
      if (service.state() == ServiceState.FAILED) {
        return Optional.empty();
      }
      Thread.sleep(50);
    }
    return Optional.empty();
  }

  private static Result refused(String message) {
    return new Result(Outcome.REFUSED, message);
  }
}
