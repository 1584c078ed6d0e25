package io.reshard.cdc;

import io.micrometer.core.instrument.MeterRegistry;
import io.reshard.cdc.apply.ApplyLoop;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.state.StreamsTable;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * One applier: reads the change topics of a workflow's source shards ({@code read_committed}) and
 * applies the row changes whose keyspace id lies in one target shard's range to that target (DESIGN
 * 4.5), storing each topic's next offset and applied source position in the target's {@code
 * _reshard.streams} in the same database transaction as the rows. A restart, after any crash,
 * resumes exactly after the last committed change: nothing is applied twice or lost.
 *
 * <p>The stored position advances over every record, applied or not (other ranges, unmoved tables,
 * heartbeats), so {@link #awaitApplied} terminates on an idle or unrelated source and {@link
 * #lagMillis} reads 0 when caught up. A DDL or a truncate on a moved table stops the stream in
 * state {@code ERROR}, naming the statement, with nothing after it applied; {@link
 * #resumeAfterError} continues once the operator has dealt with it.
 *
 * <p>Runs on its own thread; every public method is thread-safe.
 */
public final class ApplyEngine implements AutoCloseable {
  private final ApplyLoop loop;
  private final Thread thread;
  // held here: Micrometer's function meters keep their object only weakly
  private final Progress progress;
  private final MeterRegistry registry;
  private final ApplyConfig config;

  /** Creates the engine without meters; {@link #start} runs it. */
  public ApplyEngine(ApplyConfig config) {
    this(config, null);
  }

  /**
   * Creates the engine; {@link #start} runs it.
   *
   * @param registry where to bind the engine's lag and throughput meters ({@link ApplyMetrics}), or
   *     null for none
   */
  public ApplyEngine(ApplyConfig config, MeterRegistry registry) {
    this.loop = new ApplyLoop(config);
    this.thread = new Thread(loop, "reshard-apply-" + config.workflow() + "-" + config.target());
    this.thread.setDaemon(true);
    this.progress = new Progress(loop);
    this.registry = registry;
    this.config = config;
    if (registry != null) {
      ApplyMetrics.bind(registry, progress, config.workflow(), config.target());
    }
  }

  /** The loop's counters as the meters see them. */
  private record Progress(ApplyLoop loop) implements ApplyMetrics.Source {
    @Override
    public long lagMillis() {
      return loop.lagMillis();
    }

    @Override
    public long rowsCommitted() {
      return loop.rowsCommitted();
    }

    @Override
    public long recordsCommitted() {
      return loop.recordsCommitted();
    }

    @Override
    public long commits() {
      return loop.commits();
    }
  }

  /**
   * True while the engine's thread runs. A stream stopped by a change that needs the operator (a
   * DDL) stays in {@code ERROR} with its thread waiting for a resume; one whose thread ended (Kafka
   * or the target could not be reached at all) is in {@code ERROR} with this false, and only a new
   * engine on the same stream continues it (from its stored position).
   */
  public boolean isRunning() {
    return thread.isAlive();
  }

  /**
   * Waits up to {@code timeout} for the engine's thread to end (an applier that lost its target's
   * connection ends it, see {@link #isRunning}).
   *
   * @return true if it has ended; false if it still runs or this thread was interrupted
   */
  public boolean awaitEnded(Duration timeout) {
    try {
      thread.join(Math.max(1, timeout.toMillis()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    return !thread.isAlive();
  }

  /** Starts applying on the engine's thread. */
  public void start() {
    thread.start();
  }

  /** The state of the stream of {@code topic}, as last committed. */
  public StreamsTable.State state() {
    return loop.state();
  }

  /** Why the stream stopped in error, if it did. */
  public Optional<String> lastError() {
    return loop.lastError();
  }

  /** The applied source position of each source topic (every transaction in it is applied). */
  public Map<String, GtidPosition> appliedPositions() {
    return loop.appliedPositions();
  }

  /**
   * Waits until the stream of {@code topic} has applied every transaction in {@code position}.
   *
   * @return true if it has, false on timeout or if the stream stopped in error
   */
  public boolean awaitApplied(String topic, GtidPosition position, Duration timeout) {
    return loop.awaitApplied(topic, position, timeout);
  }

  /**
   * Runs the stream of {@code topic} to exactly {@code position} and pauses it there: nothing after
   * it is applied until {@link #resume}. Returns at once; use {@link #awaitApplied} to wait.
   */
  public void stopAt(String topic, GtidPosition position) {
    loop.stopAt(topic, position);
  }

  /**
   * As {@link #stopAt(String, GtidPosition)} for several source topics at once (topic to position):
   * the stream stops when it has reached every one of them, holding each topic at its own stop
   * point meanwhile, and never sees only some of them set.
   */
  public void stopAt(Map<String, GtidPosition> positions) {
    loop.stopAt(positions);
  }

  /**
   * Moves the stop point to {@code position} and lets a stopped stream continue to it; it stops
   * again there. Returns at once; use {@link #awaitStopped} to wait.
   */
  public void runTo(String topic, GtidPosition position) {
    loop.runTo(topic, position);
  }

  /**
   * Waits until the stream has stopped at its stop point with every transaction of {@code position}
   * applied.
   *
   * @return false on timeout or if the stream stopped in error
   */
  public boolean awaitStopped(String topic, GtidPosition position, Duration timeout) {
    return loop.awaitStopped(topic, position, timeout);
  }

  /** Resumes a stream paused by {@link #stopAt}. */
  public void resume() {
    loop.resume();
  }

  /**
   * Continues after a stream stopped in error. A stream stopped on a DDL or truncate passes over
   * that statement's record (the operator has applied the same change to the target, or decided to
   * skip it); a stream stopped because the target refused a row retries that row (the operator has
   * fixed the target), so nothing is lost.
   */
  public void resumeAfterError() {
    loop.resumeAfterError();
  }

  /**
   * 0 when every source topic has been applied up to the newest record capture published; else now
   * minus the time capture published the oldest change not yet committed to the target (its Kafka
   * timestamp; when that record is not read yet, the newest applied record's, an upper bound).
   * Milliseconds.
   */
  public long lagMillis() {
    return loop.lagMillis();
  }

  /**
   * Row changes applied so far (in range), and records passed over (out of range, unmoved,
   * markers).
   */
  public long rowsApplied() {
    return loop.rowsApplied();
  }

  /** Target transactions committed so far (each with its rows and the stored positions). */
  public long commits() {
    return loop.commits();
  }

  /**
   * Stops the thread after its current target transaction; what it committed stays. Its meters are
   * removed: a stream that no longer runs has no lag to report.
   */
  @Override
  public void close() {
    if (registry != null) {
      ApplyMetrics.unbind(registry, config.workflow(), config.target());
    }
    loop.stop();
    try {
      thread.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
