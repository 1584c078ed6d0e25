package io.reshard.daemon;

import io.reshard.copier.CopierConfig;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowState;
import java.time.Instant;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A workflow the daemon hosts: its {@link WorkflowRunner}, the lock that lets one action at a time
 * run on it, and the thread its copy runs on. Thread-safe.
 */
final class HostedWorkflow {
  private static final Logger LOG = LoggerFactory.getLogger(HostedWorkflow.class);

  /** How long stopping a copy waits for its thread to end. */
  private static final long COPY_STOP_WAIT_MS = 30_000;

  final WorkflowRunner runner;
  final ReentrantLock lock = new ReentrantLock();
  private volatile Thread copy;
  private volatile String copyError;

  HostedWorkflow(WorkflowRunner runner) {
    this.runner = runner;
  }

  /** The workflow's name. */
  String name() {
    return runner.spec().name();
  }

  /** Why the last copy failed, or null. */
  String copyError() {
    return copyError;
  }

  /**
   * Runs (or continues) the copy on a thread of its own; a failure is recorded on the workflow
   * through {@code engine}.
   */
  void startCopy(WorkflowEngine engine, CopierConfig config) {
    Thread t =
        new Thread(
            () -> {
              try {
                runner.copy(config);
                LOG.info("workflow {}: copy done", name());
              } catch (InterruptedException e) {
                LOG.info("workflow {}: copy interrupted", name());
              } catch (Exception e) {
                copyError = e.getMessage();
                LOG.error("workflow {}: copy failed: {}", name(), e.toString(), e);
                Workflow w = runner.workflow();
                engine.update(w.withError("copy failed: " + e.getMessage(), Instant.now()));
              }
            },
            "copy-" + name());
    t.setDaemon(true);
    copy = t;
    t.start();
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
          step
              + " refused for workflow "
              + name()
              + ": it is "
              + s
              + "; a "
              + step
              + " runs once the copy is done");
    }
  }
}
