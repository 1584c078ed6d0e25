package io.reshard.switcher;

import io.micrometer.core.instrument.MeterRegistry;
import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.ApplyEngine;
import io.reshard.cdc.ChangeRecords;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.state.StreamsTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The change streams of one workflow, run in this process: capture of every shard it needs (a
 * change topic per shard, workflow-independent), the forward appliers (one per target, reading the
 * topics of the sources whose ranges overlap the target's) and, after the write switch, the reverse
 * appliers (one per source, reading the topics of the targets that overlap it); each applier keeps
 * only the rows of its own range (DESIGN 4.9). There is never a loop: forward and reverse appliers
 * never run at the same time. Not thread-safe: the runner drives it from one thread.
 */
final class Streams implements AutoCloseable {
  private final WorkflowSpec spec;
  private final CaptureRegistry captures;
  private final MeterRegistry meters;
  private final boolean ownsCaptures;
  private final Map<String, ApplyEngine> forward = new LinkedHashMap<>();
  private final Map<String, ApplyEngine> reverse = new LinkedHashMap<>();
  private int forwardGeneration;
  private Map<String, GtidPosition> forwardStart = Map.of();
  private int reverseGeneration;
  private Map<String, GtidPosition> reverseStart = Map.of();
  private ApplyConfig.Settings applySettings = ApplyConfig.Settings.defaults();

  /**
   * @param captures the process's captures; null for a registry of this workflow's own, stopped
   *     with it
   * @param meters where the appliers' lag and throughput meters go, or null for none
   */
  Streams(WorkflowSpec spec, CaptureRegistry captures, MeterRegistry meters) {
    this.meters = meters;
    this.spec = spec;
    this.ownsCaptures = captures == null;
    this.captures = captures == null ? new CaptureRegistry() : captures;
  }

  /** How appliers started from now on commit and poll. */
  void applySettings(ApplyConfig.Settings settings) {
    applySettings = Objects.requireNonNull(settings);
  }

  /** The change topic of {@code shard}. */
  String topic(String shard) {
    return ChangeRecords.changeTopic(spec.topicPrefix(), spec.keyspace(), shard);
  }

  /**
   * Starts capture of {@code s} if it is not running, and waits until it has committed a position
   * covering the server's current one: from then on every change of the shard reaches its topic.
   */
  void ensureCapture(ShardServer s, Duration timeout) throws Exception {
    captures.ensure(s, spec, timeout);
  }

  /** The committed position of the capture of {@code shard}, if it runs. */
  Optional<Supplier<Optional<CapturePosition>>> capture(String shard) {
    return captures.find(spec.keyspace(), shard);
  }

  /**
   * Starts forward appliers of generation {@code generation} into every target, each source applied
   * from {@code start} (or from the position the generation stored in the target, if it ran
   * before).
   */
  void startForward(int generation, Map<String, GtidPosition> start) {
    forwardGeneration = generation;
    forwardStart = Map.copyOf(start);
    for (ShardServer t : spec.targets()) {
      forward.put(t.shard(), applier(streamName(true, generation), t, readBy(t, true), start));
    }
  }

  /** The stored stream name of a generation's forward or reverse appliers. */
  String streamName(boolean forwardDirection, int generation) {
    return spec.name() + (forwardDirection ? "-fwd" : "-rev") + generation;
  }

  /**
   * Starts reverse appliers of {@code generation}: every target's changes since {@code start} back
   * into each source.
   */
  void startReverse(int generation, Map<String, GtidPosition> start) {
    reverseGeneration = generation;
    reverseStart = Map.copyOf(start);
    for (ShardServer s : spec.sources()) {
      reverse.put(s.shard(), applier(streamName(false, generation), s, readBy(s, false), start));
    }
  }

  /**
   * The shards whose topics the forward applier into {@code into} reads (the sources that overlap
   * it), or with {@code forwardDirection} false the reverse applier into source {@code into} (the
   * targets that overlap it): a pair whose ranges do not meet has no row in common.
   */
  List<ShardServer> readBy(ShardServer into, boolean forwardDirection) {
    return forwardDirection ? spec.sourcesOverlapping(into) : spec.targetsOverlapping(into);
  }

  /** The server of the shard an applier of {@code appliers} writes into. */
  private ShardServer into(Map<String, ApplyEngine> appliers, String shard) {
    List<ShardServer> into = appliers == forward ? spec.targets() : spec.sources();
    return into.stream().filter(t -> t.shard().equals(shard)).findFirst().orElseThrow();
  }

  /** The part of {@code byTopic} that the applier into {@code shard} reads. */
  private Map<String, GtidPosition> readPart(
      Map<String, ApplyEngine> appliers, String shard, Map<String, GtidPosition> byTopic) {
    Map<String, GtidPosition> part = new LinkedHashMap<>();
    for (ShardServer f : readBy(into(appliers, shard), appliers == forward)) {
      String topic = topic(f.shard());
      if (byTopic.containsKey(topic)) {
        part.put(topic, byTopic.get(topic));
      }
    }
    return part;
  }

  private ApplyEngine applier(
      String stream, ShardServer into, List<ShardServer> from, Map<String, GtidPosition> start) {
    return applier(stream, into, from, start, Map.of());
  }

  /** An applier started with stop points {@code stops} (topic to position) already set. */
  private ApplyEngine applier(
      String stream,
      ShardServer into,
      List<ShardServer> from,
      Map<String, GtidPosition> start,
      Map<String, GtidPosition> stops) {
    Map<String, GtidPosition> sources = new LinkedHashMap<>();
    for (ShardServer f : from) {
      sources.put(topic(f.shard()), start.get(f.shard()));
    }
    ApplyEngine e =
        new ApplyEngine(
            new ApplyConfig(
                stream,
                into.shard(),
                into.endpoint().urlFor(spec.keyspace()),
                into.user(),
                into.password(),
                spec.keyspace(),
                spec.vschema(),
                spec.bootstrap(),
                sources,
                applySettings.maxRowsPerCommit(),
                applySettings.pollTimeout()),
            meters);
    if (!stops.isEmpty()) {
      e.stopAt(stops);
    }
    e.start();
    return e;
  }

  /**
   * Replaces every applier whose thread ended in error (Kafka or its target could not be reached)
   * by a new one on the same stream, which continues from the position stored in its target. A
   * stream stopped for the operator (a DDL) keeps its thread and is left alone.
   *
   * @return how many were started again
   */
  int restartDead() {
    int n = 0;
    for (ShardServer t : spec.targets()) {
      ApplyEngine a = forward.get(t.shard());
      if (a != null && a.state() == StreamsTable.State.ERROR && !a.isRunning()) {
        a.close();
        forward.put(
            t.shard(),
            applier(streamName(true, forwardGeneration), t, readBy(t, true), forwardStart));
        n++;
      }
    }
    for (ShardServer s : spec.sources()) {
      ApplyEngine a = reverse.get(s.shard());
      if (a != null && a.state() == StreamsTable.State.ERROR && !a.isRunning()) {
        a.close();
        reverse.put(
            s.shard(),
            applier(streamName(false, reverseGeneration), s, readBy(s, false), reverseStart));
        n++;
      }
    }
    return n;
  }

  Map<String, ApplyEngine> forward() {
    return forward;
  }

  Map<String, ApplyEngine> reverse() {
    return reverse;
  }

  /**
   * Sets every applier of {@code appliers} to stop at exactly {@code positions} (which they need
   * not have applied yet) and waits until each has applied them and stopped there: the catch-up and
   * the pause in one wait, woken by the commit that stops each stream. Each applier gets the stop
   * points of the topics it reads; one of several topics (the reverse stream of a split, the
   * forward stream of a merge) holds each topic at its stop point and stops once all are reached.
   * The wait reads the captures of {@code from} between waits of {@link StreamSeams#CAPTURE_CHECK}:
   * once one has stopped for good ({@link #captureFailure}) it ends at once, as on a timeout. On
   * false the stop points stay set; {@link #resume} clears them.
   *
   * @param from the shards whose topics {@code appliers} read
   * @return false if an applier did not stop there within {@code timeout}, is in error, or a
   *     capture of {@code from} stopped for good meanwhile
   */
  boolean runToAndPause(
      Map<String, ApplyEngine> appliers,
      Map<String, GtidPosition> positions,
      Duration timeout,
      List<ShardServer> from) {
    Map<String, GtidPosition> byTopic = new LinkedHashMap<>();
    positions.forEach((shard, p) -> byTopic.put(topic(shard), p));
    Map<String, Map<String, GtidPosition>> parts = new LinkedHashMap<>();
    appliers.forEach(
        (shard, a) -> {
          Map<String, GtidPosition> part = readPart(appliers, shard, byTopic);
          parts.put(shard, part);
          a.stopAt(part); // all at once: the applier must not stop on a part of them
        });
    long deadline = System.nanoTime() + timeout.toNanos();
    for (String shard : List.copyOf(appliers.keySet())) {
      Map<String, GtidPosition> part = parts.get(shard);
      for (Map.Entry<String, GtidPosition> p : part.entrySet()) {
        if (!awaitStoppedOrRestart(appliers, shard, part, p, deadline, from)) {
          return false;
        }
      }
    }
    return true;
  }

  /** How long a wait pauses before it starts a dead applier again: its server may be coming up. */
  static final Duration RESTART_PAUSE = Duration.ofMillis(500);

  /**
   * Waits until the applier into {@code shard} has stopped at {@code stop}. One whose thread ended
   * meanwhile (it lost its target's connection: a server that went away for a moment) is replaced,
   * within the same deadline, by a new applier held at {@code byTopic} from its start, which goes
   * on from the position stored in its target; any other end of the wait ends it.
   *
   * @return true once it stopped there
   */
  private boolean awaitStoppedOrRestart(
      Map<String, ApplyEngine> appliers,
      String shard,
      Map<String, GtidPosition> byTopic,
      Map.Entry<String, GtidPosition> stop,
      long deadline,
      List<ShardServer> from) {
    while (true) {
      ApplyEngine a = appliers.get(shard);
      StreamSeams.WaitEnd end =
          StreamSeams.awaitStopped(
              a, stop.getKey(), stop.getValue(), deadline, () -> captureFailure(from));
      if (end == StreamSeams.WaitEnd.STOPPED) {
        return true;
      }
      if (end != StreamSeams.WaitEnd.IN_ERROR
          || !a.awaitEnded(RESTART_PAUSE)
          || deadline - System.nanoTime() <= RESTART_PAUSE.toNanos()) {
        return false;
      }
      try {
        Thread.sleep(RESTART_PAUSE.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      a.close();
      appliers.put(shard, replacement(appliers, shard, byTopic));
    }
  }

  /** A new applier on the stream of {@code appliers}' applier into {@code shard}, held at stops. */
  private ApplyEngine replacement(
      Map<String, ApplyEngine> appliers, String shard, Map<String, GtidPosition> byTopic) {
    boolean fwd = appliers == forward;
    ShardServer server = into(appliers, shard);
    return fwd
        ? applier(
            streamName(true, forwardGeneration),
            server,
            readBy(server, true),
            forwardStart,
            byTopic)
        : applier(
            streamName(false, reverseGeneration),
            server,
            readBy(server, false),
            reverseStart,
            byTopic);
  }

  /** Lets every applier of {@code appliers} run on: their stop points are cleared. */
  void resume(Map<String, ApplyEngine> appliers) {
    appliers.values().forEach(ApplyEngine::resume);
  }

  /** Stops (freezes) every applier of {@code appliers}: nothing more is applied. */
  void freeze(Map<String, ApplyEngine> appliers) {
    appliers.values().forEach(ApplyEngine::close);
    appliers.clear();
  }

  /**
   * Why nothing more reaches the streams reading {@code from}: the first of those shards whose
   * capture stopped for good, with its error; empty while every capture runs or retries. Safe from
   * any thread (it reads only the thread-safe {@link CaptureRegistry}): the diff's waits call it.
   */
  Optional<String> captureFailure(List<ShardServer> from) {
    for (ShardServer s : from) {
      Optional<String> f = captures.failure(spec.keyspace(), s.shard());
      if (f.isPresent()) {
        return Optional.of(
            "the capture of shard "
                + s.shard()
                + " has stopped, so nothing after it reaches the stream: "
                + f.get());
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses {@code step} while a capture of {@code from} has stopped for good: the step would wait
   * for positions that capture never publishes.
   *
   * @throws SwitchRefusedException naming the capture and its error; nothing has changed
   */
  void refuseIfCaptureStopped(List<ShardServer> from, String step) {
    Optional<String> f = captureFailure(from);
    if (f.isPresent()) {
      throw new SwitchRefusedException(
          "workflow " + spec.name() + ": " + step + " refused: " + f.get());
    }
  }

  /**
   * Each stream's state and positions, forward streams first. A stream whose applier is fine but
   * whose capture has stopped for good shows as {@code ERROR} with the capture's error. Safe from
   * any thread as far as the appliers are.
   */
  List<WorkflowStatus.Stream> status() {
    List<WorkflowStatus.Stream> list = new ArrayList<>();
    forward.forEach(
        (target, a) -> list.add(status("forward", readBy(into(forward, target), true), target, a)));
    reverse.forEach(
        (source, a) ->
            list.add(status("reverse", readBy(into(reverse, source), false), source, a)));
    return list;
  }

  private WorkflowStatus.Stream status(
      String direction, List<ShardServer> from, String into, ApplyEngine a) {
    Map<String, String> positions = new LinkedHashMap<>();
    a.appliedPositions()
        .forEach(
            (topic, p) -> {
              if (p != null) { // null until a new applier has read its stored position
                positions.put(topic, p.toString());
              }
            });
    String state = a.state().name();
    String error = a.lastError().orElse(null);
    Optional<String> failure = captureFailure(from);
    if (error == null && failure.isPresent()) {
      // the applier itself is fine, but nothing more reaches it: report the stream as stopped by
      // its capture, or it would look caught up (its lag counts only what was published)
      state = StreamsTable.State.ERROR.name();
      error = failure.get();
    }
    return new WorkflowStatus.Stream(
        direction, MapChanges.names(from), into, state, positions, a.lagMillis(), error);
  }

  /**
   * Resumes every stream stopped in error whose applier still runs ({@link
   * ApplyEngine#resumeAfterError}); see {@link WorkflowRunner#resumeStreams}.
   *
   * @return the shards whose streams were resumed
   * @throws SwitchRefusedException if the capture of a shard a running stream reads has stopped for
   *     good, after the streams above were resumed (the message lists them)
   */
  List<String> resumeAfterError() {
    List<String> resumed = new ArrayList<>();
    for (Map<String, ApplyEngine> side : List.of(forward, reverse)) {
      side.forEach(
          (shard, a) -> {
            if (a.state() == StreamsTable.State.ERROR && a.isRunning()) {
              a.resumeAfterError();
              resumed.add(shard);
            }
          });
    }
    refuseResumeIfCaptureStopped(resumed);
    return resumed;
  }

  private void refuseResumeIfCaptureStopped(List<String> resumed) {
    Optional<String> stopped =
        forward.isEmpty() ? Optional.empty() : captureFailure(spec.sources());
    if (stopped.isEmpty() && !reverse.isEmpty()) {
      stopped = captureFailure(spec.targets());
    }
    if (stopped.isPresent()) {
      throw new SwitchRefusedException(
          "workflow "
              + spec.name()
              + ": resume refused: "
              + stopped.get()
              + ". resume does not start a capture again: do what the capture's message says,"
              + " then restart the daemon, which starts the capture again"
              + (resumed.isEmpty()
                  ? ""
                  : " (the streams into " + resumed + " stopped in error were resumed)"));
    }
  }

  /** Every applier problem: a source capture that stopped, a stream in error, the largest lag. */
  List<String> problems(Duration maxLag) {
    List<String> problems = new ArrayList<>();
    captureFailure(spec.sources()).ifPresent(problems::add);
    for (Map.Entry<String, ApplyEngine> e : forward.entrySet()) {
      ApplyEngine a = e.getValue();
      if (a.state() == StreamsTable.State.ERROR) {
        problems.add(
            "the stream into " + e.getKey() + " is in error: " + a.lastError().orElse("?"));
      } else if (a.lagMillis() > maxLag.toMillis()) {
        problems.add(
            "the stream into "
                + e.getKey()
                + " lags "
                + a.lagMillis()
                + " ms, more than "
                + maxLag.toMillis()
                + " ms");
      }
    }
    return problems;
  }

  @Override
  public void close() throws InterruptedException {
    freeze(forward);
    freeze(reverse);
    if (ownsCaptures) {
      captures.close();
    }
  }
}
