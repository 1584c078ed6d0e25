package io.reshard.daemon;

import io.reshard.switcher.WorkflowStatus;
import java.time.Duration;
import java.util.Collection;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Supervises the streams and copies of the workflows the daemon hosts: every {@link #EVERY}, on a
 * workflow that no action holds, it starts again (from their stored positions) the appliers that
 * ended because Kafka or a target could not be reached, and the copy if it stopped on a failure
 * that trying again can heal ({@link HostedWorkflow#restartCopyIfRetriable}); it tells health which
 * stream or copy is not running. Capture services supervise their own sessions ({@link
 * CaptureService}).
 *
 * <p>Thread-safe: one supervision thread, started and stopped by the workflow service.
 */
final class StreamController {
  private static final Logger LOG = LoggerFactory.getLogger(StreamController.class);

  /** How often dead streams are looked for: short enough to heal in seconds, cheap when idle. */
  static final Duration EVERY = Duration.ofSeconds(5);

  private final Supplier<Collection<HostedWorkflow>> hosted;
  private final Function<HostedWorkflow, Optional<String>> wayOn;
  private Thread thread;

  /**
   * @param hosted the workflows hosted now, read anew on every round
   * @param wayOn what the operator should do about a workflow's stopped capture, or about the
   *     changes its streams missed ({@link CaptureStops#wayOn})
   */
  StreamController(
      Supplier<Collection<HostedWorkflow>> hosted,
      Function<HostedWorkflow, Optional<String>> wayOn) {
    this.hosted = hosted;
    this.wayOn = wayOn;
  }

  /** Starts the supervision thread. */
  synchronized void start() {
    thread = new Thread(this::supervise, "workflow-streams-supervisor");
    thread.setDaemon(true);
    thread.start();
  }

  /** Stops the supervision thread (does not wait for it). */
  synchronized void stop() {
    if (thread != null) {
      thread.interrupt();
    }
  }

  private void supervise() {
    while (!Thread.currentThread().isInterrupted()) {
      try {
        Thread.sleep(EVERY.toMillis());
      } catch (InterruptedException e) {
        return;
      }
      for (HostedWorkflow h : hosted.get()) {
        if (h.lock.tryLock()) {
          try {
            restartDeadStreams(h);
          } finally {
            h.lock.unlock();
          }
        }
      }
    }
  }

  private static void restartDeadStreams(HostedWorkflow h) {
    h.restartCopyIfRetriable();
    try {
      int n = h.runner.restartDeadStreams();
      if (n > 0) {
        LOG.warn(
            "workflow {}: {} stream(s) had stopped in error; started again from their"
                + " stored positions",
            h.name(),
            n);
      }
    } catch (RuntimeException e) {
      LOG.warn("workflow {}: restarting its streams failed: {}", h.name(), e.toString());
    }
  }

  /**
   * The first hosted stream in error or copy that stopped, described for health (naming the
   * workflow, and what happens next or what to do), or empty if all run.
   */
  Optional<String> problem() {
    for (HostedWorkflow h : hosted.get()) {
      Optional<String> copy = h.copyProblem();
      if (copy.isPresent()) {
        return Optional.of("workflow " + h.name() + ": " + copy.get());
      }
      for (WorkflowStatus.Stream st : h.runner.status().streams()) {
        if ("ERROR".equals(st.state())) {
          return Optional.of(
              "workflow "
                  + h.name()
                  + ": the stream into "
                  + st.target()
                  + " is in error: "
                  + st.lastError()
                  + wayOn.apply(h).map(w -> "; " + w).orElse(""));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * The first hosted workflow whose targets miss changes after a capture skip (a diff with repair
   * must run before traffic switches), described for health; not a failure, so health stays {@code
   * up}. Empty if none.
   */
  Optional<String> notice() {
    for (HostedWorkflow h : hosted.get()) {
      if (h.runner.workflow() != null && h.runner.workflow().captureGap() != null) {
        Optional<String> w = wayOn.apply(h);
        if (w.isPresent()) {
          return Optional.of("workflow " + h.name() + ": " + w.get());
        }
      }
    }
    return Optional.empty();
  }
}
