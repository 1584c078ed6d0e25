package io.reshard.cdc;

/**
 * The source server no longer has the binlog that the stored capture position points into (it was
 * purged), or never had it (a position from another server, or ahead of this one). Capture cannot
 * continue without losing changes: the workflows that read this shard's change topic must recopy.
 */
public class PositionLostException extends CdcException {
  private static final long serialVersionUID = 1L;

  private final String position;

  /**
   * @param position the GTID position capture asked for
   * @param serverMessage the server's error text
   * @param cause the underlying error
   */
  public PositionLostException(String position, String serverMessage, Throwable cause) {
    super(
        "the source no longer has (or never had) the binlog at GTID position '"
            + position
            + "' ("
            + serverMessage
            + "); changes after it are lost to capture: every workflow reading this shard must"
            + " restart its copy (recopy), and capture must be restarted from a new position",
        false,
        cause);
    this.position = position;
  }

  /** The GTID position that is not on the server. */
  public String position() {
    return position;
  }
}
