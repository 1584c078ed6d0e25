package io.reshard.daemon;

/**
 * The state of a {@link DaemonService}, as {@code GET /health} reports it (the constant's name is
 * the wire text). Not every service passes through every state: the admin endpoint goes {@code NEW
 * -> LISTENING -> STOPPED}; a capture {@code NEW -> STARTING -> RUNNING}, then {@code RETRYING}
 * while its source or Kafka cannot be reached, {@code FAILED} when an operator must act; the
 * workflow runners also pass through {@code STOPPING}.
 */
public enum ServiceState {
  /** Made, not started. */
  NEW,
  /** Started; its first work has not succeeded yet. */
  STARTING,
  /** The admin endpoint accepts requests. */
  LISTENING,
  /** Doing its work. */
  RUNNING,
  /** Not doing its work now and trying again by itself (a source or the broker unreachable). */
  RETRYING,
  /** Stopped for good; an operator must act. The daemon reports itself degraded. */
  FAILED,
  /** Stopping. */
  STOPPING,
  /** Stopped. */
  STOPPED
}
