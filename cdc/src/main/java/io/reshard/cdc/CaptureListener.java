package io.reshard.cdc;

import io.reshard.core.position.CapturePosition;
import java.time.Duration;

/**
 * Callbacks from a {@link CaptureEngine}, for metrics, logs and tests; every method has a no-op
 * default. {@link #beforeCommit} and {@link #afterCommit} run on the engine's publisher thread, the
 * others on the engine thread; each kind in order. They should return quickly: the engine waits for
 * them. {@link #beforeCommit} lets a test stop at the boundary between sending a batch and
 * committing it (the point where a crash must leave nothing visible); an exception it throws fails
 * the session as the commit's own failure would.
 */
public interface CaptureListener {

  /** A listener that does nothing. */
  CaptureListener NONE = new CaptureListener() {};

  /**
   * A session connected to the binlog.
   *
   * @param from the position it resumes from
   * @param stored true if that position was read from the offsets topic, false if it came from
   *     {@code start.position} (then it is committed at once, before any change)
   */
  default void onSessionStarted(CapturePosition from, boolean stored) {}

  /**
   * A batch was sent and is about to be committed with {@code position}.
   *
   * @param rows the row changes in the batch
   */
  default void beforeCommit(CapturePosition position, int rows) {}

  /** A batch and {@code position} were committed: consumers can now read them. */
  default void afterCommit(CapturePosition position, int rows) {}

  /** A session failed with a retriable error; the engine starts a new one after {@code backoff}. */
  default void onRetry(CdcException error, Duration backoff) {}

  /**
   * The engine stopped: on request ({@code failure} null) or for good after an error.
   *
   * @param failure the error, or null
   */
  default void onStopped(CdcException failure) {}
}
