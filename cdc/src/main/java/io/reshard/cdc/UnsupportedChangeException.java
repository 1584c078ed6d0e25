package io.reshard.cdc;

/**
 * The binlog holds a change that capture cannot publish faithfully, so it stopped before publishing
 * anything of that transaction's remainder: a row image that is not full, DML logged as a
 * statement, an XA transaction, a row larger than the change topic accepts, or a column type it
 * cannot decode. The message names the table, the GTID and the setting to change. Not retriable:
 * the same event would fail again; fix the cause and restart capture.
 */
public class UnsupportedChangeException extends CdcException {
  private static final long serialVersionUID = 1L;

  /**
   * @param message names table, GTID and the fix
   */
  public UnsupportedChangeException(String message) {
    super(message, false, null);
  }
}
