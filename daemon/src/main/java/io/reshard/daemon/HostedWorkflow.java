package io.reshard.daemon;

import io.reshard.copier.CopierConfig;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowState;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A workflow the daemon hosts: its {@link WorkflowRunner}, the lock that lets one action at a time
 * run on it, and the thread its copy runs on, with what became of the last copy. A copy that ended
 * on a failure trying again can heal (a server or the broker that went away) is started again by
 * the {@link StreamController} ({@link #restartCopyIfRetriable}); one that ended on a data error
 * waits for the operator's {@code resume} ({@link #restartFailedCopy}). Either way the copy goes on
 * from the targets' {@code copy_state}, so nothing is copied twice and nothing is skipped.
 * Thread-safe.
 */
final class HostedWorkflow {
  private static final Logger LOG = LoggerFactory.getLogger(HostedWorkflow.class);

  /** How long stopping a copy waits for its thread to end. */
  private static final long COPY_STOP_WAIT_MS = 30_000;

  final WorkflowRunner runner;
  final ReentrantLock lock = new ReentrantLock();
  private volatile Thread copy;
  private volatile Throwable copyFailure;
  private volatile WorkflowEngine engine;
  private volatile CopierConfig copierConfig;
  private volatile String recordedError;

  HostedWorkflow(WorkflowRunner runner) {
    this.runner = runner;
  }

  /** The workflow's name. */
  String name() {
    return runner.spec().name();
  }

  /** Why the last copy failed, or null while it runs, once it is done, or before it starts. */
  String copyError() {
    Throwable f = copyFailure;
    return f == null ? null : String.valueOf(f.getMessage());
  }

  /**
   * True if the copy stopped on a failure that trying again can heal, so the daemon starts it again
   * by itself; false while it runs, once it is done, or when it waits for {@code resume}.
   */
  boolean copyHeals() {
    // read as copyError() reads it: the failure is known before the copy's thread has ended, and
    // a reader that saw the error with "does not heal" in that moment gave up on a copy that healed
    Throwable f = copyFailure;
    return f != null && retriable(f);
  }

  /**
   * Runs (or continues) the copy on a thread of its own; a failure is recorded on the workflow
   * through {@code engine} and kept for {@link #copyProblem}.
   */
  void startCopy(WorkflowEngine engine, CopierConfig config) {
    this.engine = engine;
    this.copierConfig = config;
    copyFailure = null;
    Thread t = new Thread(this::runCopy, "copy-" + name());
    t.setDaemon(true);
    copy = t;
    t.start();
  }

  private void runCopy() {
    try {
      runner.copy(copierConfig);
      LOG.info("workflow {}: copy done", name());
    } catch (InterruptedException e) {
      LOG.info("workflow {}: copy interrupted", name());
    } catch (Exception e) {
      copyFailure = e;
      if (retriable(e)) {
        // tried again every few seconds while a server is down: one line each, no stack trace
        LOG.warn("workflow {}: copy stopped, to be started again: {}", name(), e.toString());
      } else {
        LOG.error("workflow {}: copy failed: {}", name(), e.toString(), e);
      }
      recordCopyFailure(e);
    }
  }

  /**
   * Stores the failure on the workflow's record, unless the same one is stored already (a copy
   * tried again while its source is down fails the same way every few seconds); the store may be
   * what failed, so not for sure.
   */
  private void recordCopyFailure(Exception e) {
    String error = "copy failed: " + e.getMessage();
    if (error.equals(recordedError)) {
      return;
    }
    try {
      runner.recordError(error);
      recordedError = error;
    } catch (RuntimeException storeDown) {
      LOG.warn(
          "workflow {}: the copy's failure could not be stored either: {}",
          name(),
          storeDown.toString());
    }
  }

  /** True while the workflow's copy is not done: it is {@code CREATED} or {@code COPYING}. */
  private boolean copying() {
    Workflow w = runner.workflow();
    return w != null && (w.state() == WorkflowState.CREATED || w.state() == WorkflowState.COPYING);
  }

  /** The failure that ended the copy, if it ended on one and the copy is still not done. */
  private Optional<Throwable> stoppedCopy() {
    Thread t = copy;
    Throwable f = copyFailure;
    return f != null && (t == null || !t.isAlive()) && copying()
        ? Optional.of(f)
        : Optional.empty();
  }

  /** True if the copy stopped on a failure that trying again can heal. */
  private static boolean retriable(Throwable f) {
    return ErrorClassifier.classify(f) == ErrorClassifier.Failure.RETRIABLE;
  }

  /**
   * Starts the copy again, from {@code copy_state}, if it ended on a failure that trying again can
   * heal (a lost connection, a broker that did not answer). The caller holds {@link #lock}.
   *
   * @return true if it was started again
   */
  boolean restartCopyIfRetriable() {
    Optional<Throwable> f = stoppedCopy();
    if (f.isEmpty() || !retriable(f.get())) {
      return false;
    }
    LOG.warn(
        "workflow {}: the copy had stopped ({}); starting it again from where it was",
        name(),
        f.get().getMessage());
    startCopy(engine, copierConfig);
    return true;
  }

  /**
   * Starts the copy again, from {@code copy_state}, after any failure: the operator's {@code
   * resume}, once the cause (a row the copy cannot place, say) is fixed. The caller holds {@link
   * #lock}.
   *
   * @return true if it was started again (false if it runs, is done, or never failed)
   */
  boolean restartFailedCopy() {
    if (stoppedCopy().isEmpty()) {
      return false;
    }
    LOG.info("workflow {}: the copy starts again from where it stopped", name());
    startCopy(engine, copierConfig);
    return true;
  }

  /**
   * Why the copy is not running though it is not done, and what happens next, for health and
   * status; empty while it runs or once it is done.
   */
  Optional<String> copyProblem() {
    return stoppedCopy()
        .map(
            f ->
                retriable(f)
                    ? "the copy stopped and starts again within "
                        + StreamController.EVERY.toSeconds()
                        + " s: "
                        + f.getMessage()
                    : "the copy stopped: "
                        + f.getMessage()
                        + "; fix the cause, then run `reshard workflow resume "
                        + name()
                        + "`");
  }

  /** Interrupts the copy, if it runs, and waits for its thread to end. */
  void stopCopy() {
    Thread t = copy;
    if (t != null && t.isAlive()) {
      t.interrupt();
      try {
        t.join(COPY_STOP_WAIT_MS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Refuses {@code step} (a diff, a repair) while the copy is not done. */
  void refuseBeforeCopyDone(String step) {
    WorkflowState s = runner.workflow().state();
    if (s == WorkflowState.CREATED || s == WorkflowState.COPYING) {
      throw new SwitchRefusedException(
          s.refusal(
              step,
              name(),
              "a "
                  + step
                  + " runs once the copy is done"
                  + copyProblem().map(p -> " (" + p + ")").orElse("")));
    }
  }
}
