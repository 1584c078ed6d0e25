package io.reshard.switcher;

import io.reshard.router.ReshardException;

/**
 * A workflow was asked to move to a state its current state does not lead to. Nothing changed. The
 * message names the workflow, both states and the legal next states.
 */
public class IllegalTransitionException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param workflow the workflow's name
   * @param from its state
   * @param to the state asked for
   */
  public IllegalTransitionException(String workflow, WorkflowState from, WorkflowState to) {
    super(
        "workflow "
            + workflow
            + " cannot go from "
            + from
            + " to "
            + to
            + (from.isTerminal()
                ? ": " + from + " is final"
                : "; from " + from + " it may go to " + from.next()));
  }
}
