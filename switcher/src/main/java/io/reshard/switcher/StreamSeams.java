package io.reshard.switcher;

import io.reshard.cdc.ApplyEngine;
import io.reshard.cdc.CaptureEngine;
import io.reshard.copier.StreamCoverage;
import io.reshard.copier.StreamCoverageTimeoutException;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.state.StreamsTable;
import io.reshard.differ.StreamControl;
import io.reshard.router.RetriableReshardException;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Wires cdc's parts into the seams the copier and the differ declare (DESIGN 2): the copier waits
 * through {@link StreamCoverage} until capture has published past P0; the differ steers a target's
 * applier through {@link StreamControl} to read the target at exactly the source snapshot's
 * position G. Stateless.
 */
public final class StreamSeams {
  private StreamSeams() {}

  /**
   * Coverage by a capture engine running in this process: returns once the position capture has
   * committed to Kafka covers P0.
   */
  public static StreamCoverage coverage(CaptureEngine capture) {
    return coverage(capture::committedPosition);
  }

  /**
   * Coverage by a capture whose committed position {@code committed} returns (read anew on every
   * call): returns once it covers P0.
   */
  public static StreamCoverage coverage(Supplier<Optional<CapturePosition>> committed) {
    return (p0, timeout) -> {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!committed.get().map(p -> p.gtids().covers(p0)).orElse(false)) {
        if (System.nanoTime() > deadline) {
          throw new StreamCoverageTimeoutException(
              "capture has not published past P0 "
                  + p0
                  + " within "
                  + timeout.toSeconds()
                  + " s; it is at "
                  + committed.get().map(Object::toString).orElse("nothing yet"));
        }
        Thread.sleep(20);
      }
    };
  }

  /** How long one wait on an applier lasts before the capture is checked again. */
  static final Duration CAPTURE_CHECK = Duration.ofMillis(200);

  /**
   * {@link #control(ApplyEngine, String, Duration, Supplier)} for a capture that is not watched:
   * the waits end only when the applier gets there, is in error, or time runs out.
   */
  public static StreamControl control(ApplyEngine applier, String topic, Duration stopTimeout) {
    return control(applier, topic, stopTimeout, Optional::empty);
  }

  /**
   * Control of the applier of one source topic: {@code stop} pauses it at the position it has
   * committed, {@code runTo(G)} lets it apply exactly up to G and pause again, {@code resume} lets
   * it run on.
   *
   * <p>While {@code stop} and {@code runTo} wait, {@code captureStopped} is read every 200 ms; once
   * it names a stopped capture the wait ends at once with a {@link SwitchRefusedException} carrying
   * that message, instead of at the end of its timeout. That is a refusal, not a {@link
   * RetriableReshardException}: a capture stopped for good does not start again by itself, so
   * running the diff again before an operator has fixed it (the capture's message names what to
   * change) and started it again would only fail the same way; the daemon answers a refusal with
   * {@code REFUSED} (HTTP 409, CLI exit 3), a retriable error with {@code RETRY_LATER} (503, exit
   * 6), which tells a caller to simply try again. The wait ends even if the capture had published G
   * before it stopped: its streams cannot go on, so nothing after the diff can either. The caller
   * resumes the applier as after any other failure ({@link StreamControl}: resume comes also after
   * a failure).
   *
   * @param applier the target's applier, reading {@code topic}
   * @param topic the source's change topic
   * @param stopTimeout how long {@code stop} waits at most for the applier to pause
   * @param captureStopped why nothing more reaches {@code topic} (a capture of the source stopped
   *     for good, its message), or empty while it runs or retries; called from the differ's
   *     threads, so it must be thread-safe, and quick
   * @return a control for one diff's thread at a time
   */
  public static StreamControl control(
      ApplyEngine applier,
      String topic,
      Duration stopTimeout,
      Supplier<Optional<String>> captureStopped) {
    return new StreamControl() {
      @Override
      public void stop() throws InterruptedException {
        GtidPosition here = applier.appliedPositions().get(topic);
        applier.stopAt(topic, here);
        if (!awaited(applier, topic, here, stopTimeout, captureStopped)) {
          throw new RetriableReshardException(
              "the applier of "
                  + topic
                  + " did not stop within "
                  + stopTimeout.toSeconds()
                  + " s"
                  + applier.lastError().map(e -> ": " + e).orElse(""));
        }
      }

      @Override
      public void runTo(GtidPosition g, Duration timeout) throws InterruptedException {
        applier.runTo(topic, g);
        if (!awaited(applier, topic, g, timeout, captureStopped)) {
          throw new RetriableReshardException(
              "the applier of "
                  + topic
                  + " did not reach "
                  + g
                  + " within "
                  + timeout.toSeconds()
                  + " s"
                  + applier.lastError().map(e -> ": " + e).orElse("")
                  + "; the diff can be retried");
        }
      }

      @Override
      public void resume() {
        applier.resume();
      }
    };
  }

  /** How {@link #awaitStopped} ended. */
  enum WaitEnd {
    /** The applier stopped at its stop point with the position applied. */
    STOPPED,
    /** Time ran out. */
    TIMED_OUT,
    /** The applier is in error. */
    IN_ERROR,
    /** The capture it reads stopped for good. */
    CAPTURE_STOPPED,
    /** This thread was interrupted; its interrupt flag is left set. */
    INTERRUPTED
  }

  /**
   * Waits until the applier of {@code topic} has stopped at its stop point with {@code position}
   * applied, in waits of {@link #CAPTURE_CHECK}, reading {@code captureStopped} after each.
   *
   * @param deadline {@link System#nanoTime()} at which the wait times out
   * @param captureStopped why the capture the applier reads stopped for good, or empty while it
   *     runs
   */
  static WaitEnd awaitStopped(
      ApplyEngine applier,
      String topic,
      GtidPosition position,
      long deadline,
      Supplier<Optional<String>> captureStopped) {
    while (true) {
      long slice = Math.min(CAPTURE_CHECK.toNanos(), Math.max(0, deadline - System.nanoTime()));
      if (applier.awaitStopped(topic, position, Duration.ofNanos(slice))) {
        return WaitEnd.STOPPED;
      }
      if (Thread.currentThread().isInterrupted()) {
        return WaitEnd.INTERRUPTED;
      }
      if (captureStopped.get().isPresent()) {
        return WaitEnd.CAPTURE_STOPPED;
      }
      if (applier.state() == StreamsTable.State.ERROR) {
        return WaitEnd.IN_ERROR;
      }
      if (deadline - System.nanoTime() <= 0) {
        return WaitEnd.TIMED_OUT;
      }
    }
  }

  /**
   * {@link #awaitStopped} for the diff's controls.
   *
   * @return true once the applier stopped there; false on timeout or once it is in error
   * @throws SwitchRefusedException once {@code captureStopped} names a stopped capture
   * @throws InterruptedException if this thread is interrupted (its flag cleared)
   */
  private static boolean awaited(
      ApplyEngine applier,
      String topic,
      GtidPosition position,
      Duration timeout,
      Supplier<Optional<String>> captureStopped)
      throws InterruptedException {
    WaitEnd end =
        awaitStopped(
            applier, topic, position, System.nanoTime() + timeout.toNanos(), captureStopped);
    if (end == WaitEnd.INTERRUPTED) {
      Thread.interrupted();
      throw new InterruptedException("interrupted waiting for the applier of " + topic);
    }
    if (end == WaitEnd.CAPTURE_STOPPED) {
      endIfCaptureStopped(captureStopped, topic, position);
    }
    return end == WaitEnd.STOPPED;
  }

  private static void endIfCaptureStopped(
      Supplier<Optional<String>> captureStopped, String topic, GtidPosition position) {
    Optional<String> why = captureStopped.get();
    if (why.isPresent()) {
      throw new SwitchRefusedException(
          "the diff stopped waiting for the applier of "
              + topic
              + " to pause at "
              + position
              + ": "
              + why.get()
              + ". The appliers run on; once that capture runs again (do what its message says,"
              + " then start it again), run the diff again");
    }
  }
}
