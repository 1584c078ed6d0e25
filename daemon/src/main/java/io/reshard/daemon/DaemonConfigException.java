package io.reshard.daemon;

import io.reshard.core.config.ConfigException;
import java.util.List;

/**
 * A daemon configuration is invalid. The message lists every problem found, one per line, each
 * naming the key, the value (never a secret's) and what is allowed. Nothing was started. The CLI
 * maps it to exit code 2 (usage error).
 */
public class DaemonConfigException extends ConfigException {
  private static final long serialVersionUID = 1L;

  /**
   * @param problems every problem found; not empty
   */
  public DaemonConfigException(List<String> problems) {
    super("daemon configuration", problems);
  }
}
