package io.reshard.cdc;

import io.reshard.core.position.CapturePosition;
import java.util.Objects;

/**
 * A one-shot skip of a capture that stopped on a change it cannot represent ({@link
 * UnsupportedChangeException}): the operator fixed the server setting that made the change
 * unrepresentable (say {@code SET GLOBAL binlog_row_image = FULL}) and accepts that the changes
 * already in the binlog are not captured. Given to {@link CaptureEngine#skipStoppedChange} before
 * it starts, the skip makes the first session that finds {@link #stoppedAt} stored store the
 * source's current GTID position instead, and publish in that same Kafka transaction a {@link
 * RecordKind#GAP} record saying that the changes between the two positions were not captured.
 *
 * <p>Keyed on the stored position it applies to, so it is idempotent: a session that finds any
 * other position stored (the gap is committed already, or capture moved on) skips nothing. A
 * session that fails before its commit leaves {@code stoppedAt} stored, and the next one skips
 * again, to the server's position then. Immutable.
 *
 * @param stoppedAt the position stored when capture stopped, just before the change it could not
 *     publish
 * @param reason why the changes are skipped (the stop's message), written into the gap record
 */
public record CaptureSkip(CapturePosition stoppedAt, String reason) {

  /** Checks the fields. */
  public CaptureSkip {
    Objects.requireNonNull(stoppedAt, "stoppedAt");
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * True if {@code stored} is the position this skip was made for: the same complete transactions
   * and the same rows published of the transaction in progress. Binlog file, offset and time are
   * informational and not compared.
   */
  public boolean appliesTo(CapturePosition stored) {
    return stored != null
        && stored.gtids().equals(stoppedAt.gtids())
        && Objects.equals(stored.transaction(), stoppedAt.transaction())
        && stored.rowsPublished() == stoppedAt.rowsPublished();
  }
}
