package io.reshard.router;

import java.util.List;

/**
 * A vschema document cannot be used: it is not JSON, not shaped as a Vitess vschema, uses a vindex
 * type reshard does not support, or refers to a vindex it does not define. The message lists every
 * problem found, each naming the vindex, table or column concerned.
 */
public class VSchemaException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final transient List<String> problems;

  /**
   * @param problems one or more problems, each a sentence naming what it concerns
   * @param cause the parse failure, or {@code null}
   */
  public VSchemaException(List<String> problems, Throwable cause) {
    super("invalid vschema: " + String.join("; ", problems), cause);
    this.problems = List.copyOf(problems);
  }

  /** Returns every problem found, in document order. */
  public List<String> problems() {
    return problems;
  }
}
