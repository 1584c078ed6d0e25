package io.reshard.daemon;

import io.reshard.switcher.WorkflowStore;
import java.util.Map;

/**
 * What {@code POST /workflows/{name}/actions/{action}} does: the admin endpoint checks the bearer
 * token, then hands the request here. The switcher's workflow runners implement it (start, switch
 * reads, switch writes, reverse, complete, cancel); until they do, {@link #unsupported} answers.
 *
 * <p>Implementations are thread-safe: requests arrive on the admin endpoint's threads. They return
 * a refusal as a result; they may also throw {@code IllegalTransitionException} or another {@code
 * ReshardException} (answered 409, or 503 if retriable) or {@link IllegalArgumentException}
 * (answered 400).
 */
public interface WorkflowActions {

  /** How an action ended; the admin endpoint maps it to an HTTP status. */
  enum Outcome {
    /** Done (200). */
    DONE(200),
    /** Accepted; it runs on (202). */
    ACCEPTED(202),
    /** Unknown action name or bad parameters (400). */
    BAD_REQUEST(400),
    /** No such workflow (404). */
    NOT_FOUND(404),
    /** Refused: a precondition does not hold; nothing changed (409). */
    REFUSED(409),
    /** A cutover step was aborted and rolled back: everything is as before (409). */
    ABORTED(409),
    /** A transient condition (another action runs on the workflow, say); try again (503). */
    RETRY_LATER(503),
    /** This daemon cannot do that action yet (501). */
    UNSUPPORTED(501);

    private final int httpStatus;

    Outcome(int httpStatus) {
      this.httpStatus = httpStatus;
    }

    /** The HTTP status the admin endpoint answers with. */
    public int httpStatus() {
      return httpStatus;
    }
  }

  /**
   * The answer to an action.
   *
   * @param outcome how it ended
   * @param message for the operator: what happened, or why not and what to do
   * @param data the action's result as JSON-able maps and lists (a diff's report), or null
   */
  record Result(Outcome outcome, String message, Object data) {
    /** A result without data. */
    public Result(Outcome outcome, String message) {
      this(outcome, message, null);
    }
  }

  /**
   * Performs {@code action} on workflow {@code workflow}.
   *
   * @param params the request's query parameters (e.g. {@code force=true}); never the token
   * @return how it ended
   */
  Result perform(String workflow, String action, Map<String, String> params);

  /**
   * What only the process running {@code workflow} knows, added to its record in {@code GET
   * /workflows[/NAME]}: e.g. {@code copy_done}, {@code max_lag_ms}, {@code streams}, {@code copy}.
   * Empty by default.
   */
  default Map<String, Object> details(String workflow) {
    return Map.of();
  }

  /**
   * The record of {@code workflow} as the process running it last wrote or read it, if this process
   * runs it: what {@code GET /workflows/NAME} answers while the workflows topic cannot be read.
   * Empty by default.
   */
  default java.util.Optional<io.reshard.switcher.Workflow> hostedRecord(String workflow) {
    return java.util.Optional.empty();
  }

  /**
   * The actions of a daemon without workflow runners: {@code NOT_FOUND} for a workflow that {@code
   * store} does not hold, {@code UNSUPPORTED} otherwise.
   */
  static WorkflowActions unsupported(WorkflowStore store) {
    return (workflow, action, params) ->
        store.load(workflow).isEmpty()
            ? new Result(Outcome.NOT_FOUND, "no workflow named " + workflow)
            : new Result(
                Outcome.UNSUPPORTED,
                "this daemon has no workflow runners yet; action " + action + " is not available");
  }
}
