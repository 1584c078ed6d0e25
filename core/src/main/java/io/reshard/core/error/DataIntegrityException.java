package io.reshard.core.error;

import io.reshard.router.ReshardException;

/**
 * A row could not be carried exactly, or stored progress no longer fits the table: the server
 * reported a warning while storing copied values (a conversion would have changed them), or a
 * stored resume key names other key columns than the table has now. Fatal: the operator must look
 * at the named table before the workflow continues.
 */
public class DataIntegrityException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what was found, naming the table, target and values or warnings
   */
  public DataIntegrityException(String message) {
    super(message);
  }
}
