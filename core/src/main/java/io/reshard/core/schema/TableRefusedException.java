package io.reshard.core.schema;

import io.reshard.router.ReshardException;

/**
 * A table cannot be moved (DESIGN 6): it does not exist, has no primary key, is not InnoDB, has a
 * cascading foreign key, or a key column the copier cannot order. The message names the table, the
 * reason and what to change. Fatal: nothing has been written when it is raised.
 */
public class TableRefusedException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message the table, the reason and what to do
   */
  public TableRefusedException(String message) {
    super(message);
  }
}
