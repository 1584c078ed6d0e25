package io.reshard.router;

/**
 * A vindex cannot map a value to a keyspace id: the value is NULL, of a type the vindex does not
 * accept, or out of its range. The row cannot be placed, so the write or the command is refused
 * (DESIGN 6). The message names the vindex type and the value, e.g. {@code vindex hash cannot map
 * "abc": not a decimal integer}.
 */
public class UnmappableValueException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final VindexType vindexType;
  private final String value;

  /**
   * @param vindexType the vindex that was asked
   * @param value a printable form of the value (quoted string, hex bytes, {@code NULL})
   * @param reason why it cannot be mapped and, where useful, what to do
   */
  public UnmappableValueException(VindexType vindexType, String value, String reason) {
    super("vindex " + vindexType + " cannot map " + value + ": " + reason);
    this.vindexType = vindexType;
    this.value = value;
  }

  /** Returns the vindex type that was asked. */
  public VindexType vindexType() {
    return vindexType;
  }

  /** Returns the printable form of the value, as in the message. */
  public String value() {
    return value;
  }
}
