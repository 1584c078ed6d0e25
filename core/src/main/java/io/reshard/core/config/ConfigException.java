package io.reshard.core.config;

import io.reshard.router.ReshardException;
import java.util.List;

/**
 * A configuration is invalid. The message lists every problem found, one per line, each naming the
 * key, the value (never a secret's) and what is allowed. Nothing was started.
 */
public class ConfigException extends ReshardException {
  private static final long serialVersionUID = 1L;

  private final List<String> problems;

  /**
   * @param problems every problem found; not empty
   */
  public ConfigException(List<String> problems) {
    this("configuration", problems);
  }

  /**
   * @param what what is invalid, e.g. {@code "daemon configuration"}, for the message
   * @param problems every problem found; not empty
   */
  protected ConfigException(String what, List<String> problems) {
    super(
        "invalid "
            + what
            + " ("
            + problems.size()
            + (problems.size() == 1 ? " problem" : " problems")
            + "):\n  - "
            + String.join("\n  - ", problems));
    this.problems = List.copyOf(problems);
  }

  /** Every problem found. */
  public List<String> problems() {
    return problems;
  }
}
