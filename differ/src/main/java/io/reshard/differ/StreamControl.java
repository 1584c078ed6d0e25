package io.reshard.differ;

import io.reshard.core.position.GtidPosition;
import java.time.Duration;

/**
 * Steers the applier of the diffed target, so that the target can be read at exactly the source
 * position the source snapshot was taken at (DESIGN 4.7): stop it, run it to exactly that position,
 * and restart it.
 *
 * <p>The real implementation comes from {@code cdc}, which owns the appliers (the switcher wires it
 * in: {@code io.reshard.switcher.StreamSeams}); the differ only declares what it needs. {@link
 * #none()} stands in on static data.
 *
 * <p>Implementations must be safe to call from the differ's thread; calls come in the order stop,
 * runTo, resume (resume also after a failure).
 */
public interface StreamControl {

  /**
   * Stops the target's applier after the transaction it is applying; returns once it has stopped.
   *
   * @throws io.reshard.router.ReshardException if it does not stop in time, or (as {@link #runTo})
   *     if the implementation knows that nothing more reaches the applier
   */
  void stop() throws InterruptedException;

  /**
   * Applies every source transaction up to and including {@code sourceGtidPosition}, and nothing
   * after it, then stays stopped; returns once the target holds exactly that position.
   *
   * @param sourceGtidPosition G, the source snapshot's position, e.g. {@code 4-4-1200}
   * @param timeout how long to wait at most
   * @throws io.reshard.router.RetriableReshardException if the applier does not reach it in time
   * @throws io.reshard.router.ReshardException (not retriable) as soon as the implementation knows
   *     that the applier cannot reach it: e.g. the source's capture stopped for good, so nothing
   *     after it reaches the stream; the differ then resumes the appliers as after any failure
   */
  void runTo(GtidPosition sourceGtidPosition, Duration timeout) throws InterruptedException;

  /** Restarts the applier from where it stopped. */
  void resume();

  /**
   * Does nothing: correct only when nothing writes to the source and no applier runs (tests on
   * static data, benchmarks). It stands in for cdc's implementation.
   */
  static StreamControl none() {
    return new StreamControl() {
      @Override
      public void stop() {}

      @Override
      public void runTo(GtidPosition sourceGtidPosition, Duration timeout) {}

      @Override
      public void resume() {}
    };
  }
}
