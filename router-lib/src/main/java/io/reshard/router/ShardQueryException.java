package io.reshard.router;

import java.sql.SQLException;

/**
 * A query or statement failed on a shard. Carries the shard and the MySQL error code; the
 * transaction it belonged to was rolled back.
 */
public class ShardQueryException extends ReshardException {
  private static final long serialVersionUID = 1L;
  private final String shard;
  private final int errorCode;

  /**
   * @param shard the shard's name
   * @param what what was being done
   * @param cause the driver's exception
   */
  public ShardQueryException(String shard, String what, SQLException cause) {
    super(
        what
            + " failed on shard "
            + shard
            + ": "
            + cause.getMessage()
            + " [error "
            + cause.getErrorCode()
            + ", SQLState "
            + cause.getSQLState()
            + "]",
        cause);
    this.shard = shard;
    this.errorCode = cause.getErrorCode();
  }

  public String shard() {
    return shard;
  }

  /** The MySQL/MariaDB error code (e.g. 1213 for a deadlock, 1205 for a lock wait timeout). */
  public int errorCode() {
    return errorCode;
  }
}
