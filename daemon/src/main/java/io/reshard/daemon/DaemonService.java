package io.reshard.daemon;

/**
 * A service the {@link Daemon} hosts: a source shard's capture, the admin endpoint, and the
 * workflow runners the switcher adds. The daemon starts services in the order they were added and
 * stops them in reverse order.
 *
 * <p>Implementations are thread-safe: {@link #state()} and {@link #detail()} are read by the admin
 * endpoint while the service runs.
 */
public interface DaemonService {

  /** A short unique name, e.g. {@code capture/commerce/-80}, {@code admin}. */
  String name();

  /**
   * Starts the service and returns promptly: long-running work runs on the service's own threads,
   * and a service whose dependency is not reachable yet retries there rather than here.
   *
   * @throws RuntimeException if the service cannot start at all (the daemon then stops what it
   *     started and exits)
   */
  void start();

  /** Stops the service and waits, bounded, until its threads have ended. Idempotent. */
  void stop();

  /**
   * The service's state, e.g. {@code RUNNING}, {@code RETRYING}, {@code FAILED}, {@code STOPPED}.
   * {@code FAILED} means an operator must act; the daemon reports itself degraded while any service
   * is FAILED.
   */
  ServiceState state();

  /**
   * More about the state for an operator (the last error, the position reached), or null. Never
   * holds a secret; the admin endpoint also removes any configured secret from it.
   */
  default String detail() {
    return null;
  }
}
