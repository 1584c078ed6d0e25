package io.reshard.copier;

import io.reshard.router.ReshardException;

/**
 * A precondition of the copy or the diff does not hold, so nothing was written (DESIGN 6): a table
 * without a primary key, not InnoDB, with a cascading foreign key, with a key column the pipeline
 * cannot order, missing from the vschema or placed by a lookup vindex; target ranges that overlap
 * or do not cover the source range. The message names the table or ranges and says what to change.
 */
public class CopyRefusedException extends ReshardException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message what does not hold, naming the table or ranges, and what to do
   */
  public CopyRefusedException(String message) {
    super(message);
  }
}
