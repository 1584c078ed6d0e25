package io.reshard.switcher;

import io.reshard.router.ReshardException;

/** A switch or other step was refused because a precondition does not hold; nothing changed. */
public class SwitchRefusedException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the workflow, the step and every reason it was refused
   */
  public SwitchRefusedException(String message) {
    super(message);
  }
}
