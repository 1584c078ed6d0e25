package io.reshard.switcher;

import io.reshard.router.ReshardException;

/**
 * A workflow was asked to move to a state its current state does not lead to. Nothing changed. The
 * message names the workflow and both states, then says what the workflow is doing and what the
 * operator can run next ({@link WorkflowState#inWords}, {@link WorkflowState#nextInWords}).
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
            + " cannot change from "
            + from
            + " to "
            + to
            + ": it is "
            + from.inWords()
            + "; next: "
            + from.nextInWords());
  }
}
