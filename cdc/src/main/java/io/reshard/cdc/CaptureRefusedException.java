package io.reshard.cdc;

import java.util.List;

/**
 * Capture was refused before anything started: a precondition of the source server or of the
 * configuration does not hold (binlog off or not ROW, row image not FULL, row metadata not FULL, a
 * server id clash, missing privileges, an invalid configuration). Nothing was connected to Kafka or
 * written. The message lists every problem found, one per line, each with the fix.
 *
 * <p>Maps to the CLI's exit code 3 (refused).
 */
public class CaptureRefusedException extends CdcException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * @param subject what was refused, e.g. {@code capture of shard ks/-80 from db1:3306}
   * @param problems every problem found, each a sentence with the fix; not empty
   */
  public CaptureRefusedException(String subject, List<String> problems) {
    super(subject + " refused:\n  - " + String.join("\n  - ", problems), false, null);
    this.problems = List.copyOf(problems);
  }

  /** Every problem found, in the order checked. */
  public List<String> problems() {
    return problems;
  }
}
