package io.reshard.cdc;

import java.util.List;

/**
 * A capture configuration is invalid. The message lists every problem found, one per line, each
 * naming the key, the value and what is allowed. Nothing was started. Maps to the CLI's exit code 2
 * (usage error).
 */
public class CaptureConfigException extends CdcException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * @param problems every problem found; not empty
   */
  public CaptureConfigException(List<String> problems) {
    super("invalid capture configuration:\n  - " + String.join("\n  - ", problems), false, null);
    this.problems = List.copyOf(problems);
  }

  /** Every problem found, in key order. */
  public List<String> problems() {
    return problems;
  }
}
