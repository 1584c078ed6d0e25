package io.reshard.daemon;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.CaptureListener;
import io.reshard.cdc.CaptureSkip;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.UnsupportedChangeException;
import io.reshard.core.position.CapturePosition;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one source shard's {@link CaptureEngine} running inside the daemon, on a supervisor thread
 * of its own ({@code supervise-capture-<keyspace>-<shard>}).
 *
 * <p>The supervisor starts an engine; when the engine cannot start because the source or Kafka is
 * not reachable, or ends with a failure that is transient at its root (the engine gives up on a
 * transient failure after its own {@code retry.timeout.ms}), it starts a new engine after a pause
 * that begins at {@code restart.backoff.initial.ms} and doubles up to {@code
 * restart.backoff.max.ms} (reset once an engine has started). A fatal failure — a refused
 * precondition, a lost binlog position, another capture process fencing this one, a change that
 * cannot be captured faithfully — leaves the service {@code FAILED} with the engine's message: an
 * operator must act, and restarting would not help (or would fight the other process).
 *
 * <p>A capture stopped on a change it cannot publish ({@link UnsupportedChangeException}) can be
 * started again past it, once, with {@link #skipStoppedChange()} (a {@link CaptureSkip}).
 *
 * <p>States: {@code NEW}, {@code STARTING}, {@code RUNNING}, {@code RETRYING}, {@code FAILED},
 * {@code STOPPED}. Thread-safe.
 */
public final class CaptureService implements DaemonService {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureService.class);

  /** Waits between restarts; returns early when {@code stop} is counted down. */
  @FunctionalInterface
  public interface Pause {
    /** The real pause: waits on {@code stop} for {@code duration}. */
    Pause SYSTEM = (duration, stop) -> stop.await(duration.toMillis(), TimeUnit.MILLISECONDS);

    /**
     * Waits {@code duration}, or less if {@code stop} reaches zero.
     *
     * @throws InterruptedException if interrupted
     */
    void pause(Duration duration, CountDownLatch stop) throws InterruptedException;
  }

  private final SourceShard shard;
  private final CaptureConfig config;
  private final BiFunction<CaptureConfig, CaptureListener, CaptureEngine> engines;
  private final CaptureMetrics metrics;
  private final Duration initialBackoff;
  private final Duration maxBackoff;
  private final Duration stopTimeout;
  private final Pause pause;
  private final CountDownLatch stopRequest = new CountDownLatch(1);
  private volatile ServiceState state = ServiceState.NEW;
  private volatile String detail;
  private volatile CdcException failure;
  private volatile CaptureSkip skip;
  private volatile CaptureEngine engine;

  /** When the engine last started a session or committed, {@link System#nanoTime()}; 0: never. */
  private volatile long lastProgress;

  private Thread supervisor;

  /**
   * @param shard the source shard
   * @param config its capture configuration
   * @param engines makes an engine for a config and a listener (the real one: {@code (c, l) -> new
   *     CaptureEngine(c, l, Clock.systemUTC())})
   * @param metrics the shard's meters; also the engine's listener
   * @param initialBackoff the first pause before a restart
   * @param maxBackoff the longest pause
   * @param stopTimeout how long {@link #stop()} waits for the engine and the supervisor
   * @param pause how pauses are taken (tests pass one that does not sleep)
   */
  public CaptureService(
      SourceShard shard,
      CaptureConfig config,
      BiFunction<CaptureConfig, CaptureListener, CaptureEngine> engines,
      CaptureMetrics metrics,
      Duration initialBackoff,
      Duration maxBackoff,
      Duration stopTimeout,
      Pause pause) {
    this.shard = shard;
    this.config = config;
    this.engines = engines;
    this.metrics = metrics;
    this.initialBackoff = initialBackoff;
    this.maxBackoff = maxBackoff;
    this.stopTimeout = stopTimeout;
    this.pause = pause;
  }

  @Override
  public String name() {
    return "capture/" + shard.id();
  }

  /** The shard this service captures. */
  public SourceShard shard() {
    return shard;
  }

  /** The position the current engine has committed to Kafka; empty while none has. */
  public Optional<CapturePosition> committedPosition() {
    CaptureEngine e = engine;
    return e == null ? Optional.empty() : e.committedPosition();
  }

  /**
   * The position the current engine knows to be stored in the offsets topic ({@link
   * CaptureEngine#storedPosition()}); after a stop, the one just before the change it stopped on.
   */
  public Optional<CapturePosition> storedPosition() {
    CaptureEngine e = engine;
    return e == null ? Optional.empty() : e.storedPosition();
  }

  /** The error that left this service {@code FAILED}; empty in any other state. */
  public Optional<CdcException> failure() {
    CdcException f = failure;
    return state == ServiceState.FAILED ? Optional.ofNullable(f) : Optional.empty();
  }

  /**
   * Starts capture again past the change it stopped on, once ({@link CaptureSkip}): the new engine
   * stores the source's current position in place of the one it stopped at, with a gap record in
   * the same Kafka transaction, and captures on from there. Every later engine of this service
   * carries the same skip, which applies only while that stopped position is still stored.
   *
   * @return the skip: the position capture stopped at and why
   * @throws IllegalStateException if the service has not stopped on a change it cannot publish, or
   *     the position it stopped at is not known; nothing was started
   */
  public synchronized CaptureSkip skipStoppedChange() {
    CdcException f = failure().orElse(null);
    if (!(f instanceof UnsupportedChangeException) || stopRequested()) {
      throw new IllegalStateException(
          name()
              + " has not stopped on a change it cannot publish (it is "
              + state
              + (f == null ? "" : ": " + f.getMessage())
              + "); there is nothing to skip");
    }
    CaptureEngine e = engine;
    CapturePosition at = e == null ? null : e.storedPosition().orElse(null);
    if (at == null) {
      throw new IllegalStateException(
          name() + " does not know the position it stopped at; restart the daemon, then skip");
    }
    CaptureSkip s = new CaptureSkip(at, f.getMessage());
    skip = s;
    LOG.warn("{}: starting capture again past the change it stopped on, from {}", name(), at);
    state = ServiceState.STARTING;
    detail = null;
    failure = null;
    supervisor =
        new Thread(this::supervise, "supervise-capture-" + shard.keyspace() + "-" + shard.shard());
    supervisor.setDaemon(true);
    supervisor.start();
    return s;
  }

  /** Starts the supervisor thread; the first engine starts there. */
  @Override
  public synchronized void start() {
    if (supervisor != null) {
      throw new IllegalStateException(name() + " was already started");
    }
    state = ServiceState.STARTING;
    supervisor =
        new Thread(this::supervise, "supervise-capture-" + shard.keyspace() + "-" + shard.shard());
    supervisor.setDaemon(true);
    supervisor.start();
  }

  /**
   * Starts capture again if it failed for good: for a workflow that has just made a refused
   * precondition true (its create step made the keyspace database on a target server whose capture
   * the configuration lists). Does nothing in any other state.
   */
  public synchronized void restartIfFailed() {
    if (state != ServiceState.FAILED || stopRequested()) {
      return;
    }
    LOG.info("{}: starting capture again at a workflow's request", name());
    state = ServiceState.STARTING;
    detail = null;
    failure = null;
    supervisor =
        new Thread(this::supervise, "supervise-capture-" + shard.keyspace() + "-" + shard.shard());
    supervisor.setDaemon(true);
    supervisor.start();
  }

  @Override
  public void stop() {
    stopRequest.countDown();
    CaptureEngine e = engine;
    if (e != null) {
      e.stop();
    }
    Thread t;
    synchronized (this) {
      t = supervisor;
    }
    try {
      if (e != null && !e.awaitTermination(stopTimeout)) {
        LOG.warn("{}: the capture engine did not stop within {}", name(), stopTimeout);
      }
      if (t != null) {
        t.join(stopTimeout.toMillis());
      }
    } catch (InterruptedException x) {
      Thread.currentThread().interrupt();
    }
    if (state != ServiceState.FAILED) {
      state = ServiceState.STOPPED;
    }
  }

  @Override
  public ServiceState state() {
    return stall().isPresent() ? ServiceState.RETRYING : state;
  }

  @Override
  public String detail() {
    Optional<String> stalled = stall();
    if (stalled.isPresent()) {
      return stalled.get();
    }
    CaptureEngine e = engine;
    if (detail == null && e != null) {
      return e.committedPosition().map(p -> "committed " + p).orElse(null);
    }
    return detail;
  }

  /**
   * Why a capture that says it runs is in fact stuck: it commits at least every heartbeat, even on
   * an idle source, so no commit for {@link #stalledAfter} means it cannot publish (the broker is
   * away, and the producer waits on it) or cannot read. Empty otherwise.
   */
  private Optional<String> stall() {
    long since = lastProgress;
    if (state != ServiceState.RUNNING || since == 0) {
      return Optional.empty();
    }
    return stalled(System.nanoTime() - since, config.heartbeatInterval());
  }

  /** At least 20 s, and at least four heartbeats, without a commit. */
  static Duration stalledAfter(Duration heartbeat) {
    Duration four = heartbeat.multipliedBy(4);
    return four.compareTo(Duration.ofSeconds(20)) > 0 ? four : Duration.ofSeconds(20);
  }

  /**
   * The detail of a capture that has not committed for {@code idleNanos}, if it counts as stuck.
   */
  static Optional<String> stalled(long idleNanos, Duration heartbeat) {
    if (idleNanos < stalledAfter(heartbeat).toNanos()) {
      return Optional.empty();
    }
    return Optional.of(
        "no commit to Kafka for "
            + Duration.ofNanos(idleNanos).toSeconds()
            + " s, though it commits at least every "
            + heartbeat.toMillis()
            + " ms: the broker (or the source) is not answering, or one very large transaction is"
            + " being published; it goes on by itself once they answer");
  }

  private void supervise() {
    Duration backoff = initialBackoff;
    boolean first = true;
    while (!stopRequested()) {
      if (!first) {
        metrics.restarted();
      }
      first = false;
      Outcome outcome = runOneEngine();
      if (stopRequested()) {
        break;
      }
      CdcException f = outcome.failure();
      if (f != null && !transientAtRoot(f)) {
        failure = f;
        state = ServiceState.FAILED;
        detail = f.getMessage();
        LOG.error("{}: capture failed and needs an operator: {}", name(), f.getMessage());
        return;
      }
      if (outcome.started()) {
        backoff = initialBackoff; // it had started: this failure is a new one
      }
      state = ServiceState.RETRYING;
      detail = f == null ? "the engine stopped by itself" : f.getMessage();
      LOG.warn("{}: restarting capture in {} ms: {}", name(), backoff.toMillis(), detail);
      try {
        pause.pause(backoff, stopRequest);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      backoff =
          backoff.multipliedBy(2).compareTo(maxBackoff) > 0 ? maxBackoff : backoff.multipliedBy(2);
    }
  }

  /**
   * How one engine ended.
   *
   * @param started whether it got past its start (preflight and start position)
   * @param failure what ended it or kept it from starting; null if it was stopped
   */
  private record Outcome(boolean started, CdcException failure) {}

  /** Starts one engine and waits until it ends. */
  private Outcome runOneEngine() {
    CaptureEngine e;
    try {
      e = engines.apply(config, new Watching());
      engine = e;
      CaptureSkip s = skip;
      if (s != null) {
        e.skipStoppedChange(s);
      }
      e.start();
    } catch (CdcException x) {
      return new Outcome(false, x);
    } catch (RuntimeException x) {
      return new Outcome(
          false, new CdcException(name() + ": capture could not start: " + x, false, x));
    }
    if (stopRequested()) {
      e.stop(); // stop() may have run before the engine was visible to it
    }
    state = ServiceState.RUNNING;
    detail = null;
    LOG.info("{}: capturing {} into {}", name(), config.describe(), config.changeTopic());
    try {
      while (!e.awaitTermination(Duration.ofSeconds(1))) {
        // the engine runs; stop() stops it and this loop ends
      }
    } catch (InterruptedException x) {
      Thread.currentThread().interrupt();
      e.stop();
      return new Outcome(true, null);
    }
    return new Outcome(true, e.failure().orElse(null));
  }

  /**
   * The engine's listener: passes everything on to the meters, and shows the engine's own retries
   * in the service's state ({@code RETRYING}, naming the failure, from a retry until the next
   * session starts or commits), so that {@code /health} is not {@code up} while capture cannot
   * reach its source or Kafka.
   */
  private final class Watching implements CaptureListener {
    @Override
    public void onSessionStarted(CapturePosition from, boolean stored) {
      metrics.onSessionStarted(from, stored);
      lastProgress = System.nanoTime();
      running();
    }

    @Override
    public void beforeCommit(CapturePosition position, int rows) {
      metrics.beforeCommit(position, rows);
    }

    @Override
    public void afterCommit(CapturePosition position, int rows) {
      metrics.afterCommit(position, rows);
      lastProgress = System.nanoTime();
      running();
    }

    @Override
    public void onRetry(CdcException error, Duration backoff) {
      metrics.onRetry(error, backoff);
      state = ServiceState.RETRYING;
      detail = "retrying in " + backoff.toMillis() + " ms: " + error.getMessage();
    }

    @Override
    public void onStopped(CdcException failure) {
      metrics.onStopped(failure);
    }

    private void running() {
      if (state == ServiceState.RETRYING) {
        state = ServiceState.RUNNING;
        detail = null;
      }
    }
  }

  /**
   * True if the failure, or the failure it wraps, is one that passes by itself (a source or Kafka
   * not reachable): the engine marks giving up after its retry timeout as fatal for itself, but the
   * daemon keeps trying at its own slower pace.
   */
  static boolean transientAtRoot(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof CdcException c && c.retriable()) {
        return true;
      }
    }
    return false;
  }

  private boolean stopRequested() {
    return stopRequest.getCount() == 0;
  }
}
