package io.reshard.daemon;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The actions {@link WorkflowService} performs, each with its wire name: the {@code ACTION} of
 * {@code POST /workflows/NAME/actions/ACTION}. Parameters (query string) per action are described
 * in docs/daemon.md.
 */
public enum WorkflowAction {
  /** Creates the workflow and starts its copy. */
  CREATE("create"),
  /** Diffs the targets against the source ({@code repair=true}: repairs them, then diffs again). */
  DIFF("diff"),
  /** Reads served by the targets. */
  SWITCH_READS("switch-reads"),
  /** Writes served by the targets (the cutover). */
  SWITCH_WRITES("switch-writes"),
  /** Writes and reads back on the sources. */
  REVERSE_TRAFFIC("reverse-traffic"),
  /** Retires the sources. */
  COMPLETE("complete"),
  /** Cancels the workflow and empties the targets. */
  CANCEL("cancel"),
  /** Starts again the streams stopped in error. */
  RESUME("resume");

  private final String wireName;

  WorkflowAction(String wireName) {
    this.wireName = wireName;
  }

  /** The name in the request path, e.g. {@code switch-writes}. */
  public String wireName() {
    return wireName;
  }

  /** Every wire name, in declaration order (for messages: {@code [create, diff, ...]}). */
  public static List<String> wireNames() {
    return Arrays.stream(values()).map(WorkflowAction::wireName).toList();
  }

  /** The action named {@code wireName} on the wire; empty for an unknown name. */
  public static Optional<WorkflowAction> fromWire(String wireName) {
    return Arrays.stream(values()).filter(a -> a.wireName.equals(wireName)).findFirst();
  }

  @Override
  public String toString() {
    return wireName;
  }
}
