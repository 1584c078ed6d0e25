package io.reshard.bench.chaos;

/**
 * One lifecycle step while it runs: its fault (if one is planned), whether its action is waiting
 * for an answer (healing waits for that answer), and whether the fault has been dealt with. Help
 * given during the step goes to its fault, or, without one, to the lifecycle as help the system
 * needed on its own. Thread-safe: the driver and the step's action thread share it.
 */
final class StepContext {
  final LifecycleStep step;
  final FaultRecord fault;
  private final LifecycleResult lifecycle;
  private volatile boolean inFlight;
  private volatile long settledNanos;

  /**
   * @param fault the record of the step's fault, or null
   */
  StepContext(LifecycleStep step, FaultRecord fault, LifecycleResult lifecycle) {
    this.step = step;
    this.fault = fault;
    this.lifecycle = lifecycle;
    this.settledNanos = fault == null ? System.nanoTime() : 0;
  }

  /** Records human help given during this step, and why. */
  void help(String what) {
    if (fault != null) {
      fault.help(step.label() + ": " + what);
    } else {
      lifecycle.helpWithoutFault(step.label() + ": " + what);
    }
  }

  /** The action has been sent and has not answered yet (or has). */
  void inFlight(boolean waiting) {
    inFlight = waiting;
  }

  /** True unless the step's action is waiting for its answer. */
  boolean answered() {
    return !inFlight;
  }

  /** The fault has been injected and waited for (healed, or helped). */
  void settled() {
    settledNanos = System.nanoTime();
  }

  /** When the fault was dealt with ({@link System#nanoTime()}), or 0 while it is not. */
  long settledNanos() {
    return settledNanos;
  }
}
