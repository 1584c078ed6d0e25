package io.reshard.cluster;

/**
 * A local cluster could not be started, inspected or stopped. The message names the process, the
 * port or the file concerned and what the operator should do; where a server died, it carries the
 * tail of that server's log.
 *
 * <p>Thrown by every public operation of {@link LocalCluster}. Unchecked, because callers (the CLI,
 * the test extension) can only report it.
 */
public class ClusterException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What kind of problem it is, so the CLI can pick an exit code. */
  public enum Kind {
    /** A program the cluster needs is not installed. */
    MISSING_PROGRAM,
    /** A port the cluster needs is taken. */
    PORT_IN_USE,
    /** The directory holds no cluster, or one of another shape. */
    NO_CLUSTER,
    /** A process failed to start, died, or did not become ready in time. */
    START_FAILED,
    /** Anything else: I/O errors, a process that would not stop. */
    OTHER
  }

  private final Kind kind;

  /**
   * @param kind what kind of problem it is
   * @param message what went wrong and what to do
   */
  public ClusterException(Kind kind, String message) {
    super(message);
    this.kind = kind;
  }

  /**
   * @param kind what kind of problem it is
   * @param message what went wrong and what to do
   * @param cause the underlying failure
   */
  public ClusterException(Kind kind, String message, Throwable cause) {
    super(message, cause);
    this.kind = kind;
  }

  /** Returns what kind of problem it is. */
  public Kind kind() {
    return kind;
  }
}
