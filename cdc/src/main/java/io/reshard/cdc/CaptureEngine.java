package io.reshard.cdc;

import io.reshard.cdc.capture.CaptureSession;
import io.reshard.core.position.CapturePosition;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Captures one source shard's binlog into its Kafka change topic, exactly once and resumable, on a
 * thread of its own ({@code capture-<keyspace>-<shard>}).
 *
 * <p>{@link #start()} runs the preflight checks on the caller's thread and refuses (nothing
 * started) if the source is not fit; then the engine thread runs sessions ({@link
 * io.reshard.cdc.capture.CaptureSession}): each reads the stored position from Kafka and streams
 * from it. A retriable failure (source or Kafka unreachable, connection lost) ends the session and
 * a new one starts after a backoff of 1 s doubling to 30 s; when {@code retry.timeout.ms} passes
 * without a commit, or the failure is not retriable (position lost, fenced by another capture of
 * the shard, a change that cannot be captured), the engine stops in {@link State#FAILED} with
 * {@link #failure()} set.
 *
 * <p>{@link #stop()} aborts the open Kafka transaction (its records never become visible; the next
 * start resumes from the last commit) and returns at once; {@link #awaitTermination} waits.
 *
 * <p>Thread-safe.
 */
public final class CaptureEngine implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureEngine.class);
  private static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  /** The engine's lifecycle: NEW, then RUNNING, then STOPPED (on request) or FAILED. */
  public enum State {
    /** Created, not started. */
    NEW,
    /** Started: sessions run (or wait to retry). */
    RUNNING,
    /** Stopped on request. */
    STOPPED,
    /** Stopped by an error that retrying cannot fix; see {@link #failure()}. */
    FAILED
  }

  private final CaptureConfig config;
  private final CaptureListener listener;
  private final Clock clock;
  private final CountDownLatch stopRequest = new CountDownLatch(1);
  private final CountDownLatch terminated = new CountDownLatch(1);
  private volatile State state = State.NEW;
  private volatile CdcException failure;
  private volatile CapturePosition committed;
  private volatile CapturePosition stored;
  private volatile CaptureSkip skip;
  private volatile long lastProgressNanos;
  private CapturePosition initial;

  /** An engine with no listener and the system clock. */
  public CaptureEngine(CaptureConfig config) {
    this(config, CaptureListener.NONE, Clock.systemUTC());
  }

  /**
   * @param listener callbacks on the engine thread
   * @param clock the time written into records' {@code ts_ms}
   */
  public CaptureEngine(CaptureConfig config, CaptureListener listener, Clock clock) {
    this.config = config;
    this.listener = listener;
    this.clock = clock;
  }

  /**
   * Checks the source and starts capturing. When no position is stored for the shard, {@code
   * start.position} is resolved here, so with {@code current} every change committed after this
   * method returns is captured.
   *
   * @throws CaptureRefusedException if a precondition does not hold (nothing was started)
   * @throws CdcException.Retriable if the source cannot be reached (nothing was started)
   * @throws IllegalStateException if already started
   */
  public synchronized void start() {
    if (state != State.NEW) {
      throw new IllegalStateException("capture of " + config.describe() + " is " + state);
    }
    initial = CaptureSession.preflight(config);
    state = State.RUNNING;
    lastProgressNanos = System.nanoTime();
    Thread t = new Thread(this::run, "capture-" + config.keyspace() + "-" + config.shard());
    t.start();
  }

  /**
   * Arms a one-shot skip past a stop ({@link CaptureSkip}): the first session that finds {@code
   * skip.stoppedAt()} stored stores the source's current position instead, with a {@link
   * RecordKind#GAP} record in the same Kafka transaction. Call it before {@link #start()}.
   *
   * @throws IllegalStateException if already started
   */
  public synchronized void skipStoppedChange(CaptureSkip skip) {
    if (state != State.NEW) {
      throw new IllegalStateException("capture of " + config.describe() + " is " + state);
    }
    this.skip = java.util.Objects.requireNonNull(skip);
  }

  /** Asks the engine to stop; returns at once. Idempotent. */
  public void stop() {
    stopRequest.countDown();
  }

  /** Waits until the engine thread has ended; true if it did within {@code timeout}. */
  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return state == State.NEW || terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops and waits up to 30 s. */
  @Override
  public void close() throws InterruptedException {
    stop();
    awaitTermination(Duration.ofSeconds(30));
  }

  /** The current state. */
  public State state() {
    return state;
  }

  /** The error that stopped the engine, if it is FAILED. */
  public Optional<CdcException> failure() {
    return Optional.ofNullable(failure);
  }

  /**
   * The position known to be stored in the offsets topic: the last one this engine committed, or
   * else the one its last session started from (read from the offsets topic). After a stop on an
   * unsupported change, the position just before that change: what a {@link CaptureSkip} is made
   * for.
   */
  public Optional<CapturePosition> storedPosition() {
    return Optional.ofNullable(stored);
  }

  /** The last position this engine committed, if any. */
  public Optional<CapturePosition> committedPosition() {
    return Optional.ofNullable(committed);
  }

  private void run() {
    CdcException error = null;
    try {
      runSessions();
    } catch (CdcException e) {
      error = e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      error = new CdcException("capture of " + config.describe() + " failed: " + e, false, e);
    }
    failure = error;
    state = error == null ? State.STOPPED : State.FAILED;
    if (error != null) {
      LOG.error("{}: capture stopped: {}", config.describe(), error.getMessage());
    }
    try {
      listener.onStopped(error);
    } finally {
      terminated.countDown();
    }
  }

  private void runSessions() throws InterruptedException {
    Duration backoff = FIRST_BACKOFF;
    CaptureListener tracking = new Tracking();
    while (!stopRequested()) {
      long sessionStart = System.nanoTime();
      try {
        CaptureSession.run(config, initial, skip, tracking, clock, this::stopRequested);
      } catch (CdcException e) {
        if (!e.retriable() || stopRequested()) {
          throw e;
        }
        if (lastProgressNanos > sessionStart) {
          backoff = FIRST_BACKOFF; // the session had committed: this failure is a new one
        }
        long idleNanos = System.nanoTime() - lastProgressNanos;
        if (idleNanos > config.retryTimeout().toNanos()) {
          throw new CdcException(
              "capture of "
                  + config.describe()
                  + " made no progress for "
                  + TimeUnit.NANOSECONDS.toSeconds(idleNanos)
                  + " s (retry.timeout.ms "
                  + config.retryTimeout().toMillis()
                  + "): "
                  + e.getMessage(),
              false,
              e);
        }
        LOG.warn(
            "{}: retrying in {} ms: {}", config.describe(), backoff.toMillis(), e.getMessage());
        listener.onRetry(e, backoff);
        stopRequest.await(backoff.toMillis(), TimeUnit.MILLISECONDS);
        backoff =
            backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0
                ? MAX_BACKOFF
                : backoff.multipliedBy(2);
      }
    }
  }

  private boolean stopRequested() {
    return stopRequest.getCount() == 0;
  }

  /** Passes callbacks on and records progress. */
  private final class Tracking implements CaptureListener {
    @Override
    public void onSessionStarted(CapturePosition from, boolean fromStore) {
      if (fromStore) {
        stored = from;
      }
      listener.onSessionStarted(from, fromStore);
    }

    @Override
    public void beforeCommit(CapturePosition position, int rows) {
      listener.beforeCommit(position, rows);
    }

    @Override
    public void afterCommit(CapturePosition position, int rows) {
      committed = position;
      stored = position;
      lastProgressNanos = System.nanoTime();
      listener.afterCommit(position, rows);
    }
  }
}
