package io.reshard.switcher;

import io.reshard.cdc.ApplyEngine;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.CapturePosition;
import io.reshard.cdc.GtidPosition;
import io.reshard.copier.StreamCoverage;
import io.reshard.copier.StreamCoverageTimeoutException;
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
    return (position, timeout) -> {
      GtidPosition p0 = GtidPosition.parse(position);
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

  /**
   * Control of the applier of one source topic: {@code stop} pauses it at the position it has
   * committed, {@code runTo(G)} lets it apply exactly up to G and pause again, {@code resume} lets
   * it run on.
   */
  public static StreamControl control(ApplyEngine applier, String topic, Duration stopTimeout) {
    return new StreamControl() {
      @Override
      public void stop() {
        GtidPosition here = applier.appliedPositions().get(topic);
        applier.stopAt(topic, here);
        if (!applier.awaitStopped(topic, here, stopTimeout)) {
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
      public void runTo(String sourceGtidPosition, Duration timeout) {
        GtidPosition g = GtidPosition.parse(sourceGtidPosition);
        applier.runTo(topic, g);
        if (!applier.awaitStopped(topic, g, timeout)) {
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
}
