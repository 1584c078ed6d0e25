package io.reshard.daemon;

/**
 * A snapshot of one hosted service, as {@code GET /health} reports it.
 *
 * @param name the service's name
 * @param state its state (its name on the wire)
 * @param detail more for an operator, or null
 */
public record ServiceStatus(String name, ServiceState state, String detail) {

  /** The current status of {@code service}. */
  public static ServiceStatus of(DaemonService service) {
    return new ServiceStatus(service.name(), service.state(), service.detail());
  }

  /** True if the service stopped for good and needs an operator. */
  public boolean failed() {
    return state == ServiceState.FAILED;
  }

  /**
   * True if the service does not do its work now: failed, or retrying after a failure (a source or
   * the broker that cannot be reached).
   */
  public boolean impaired() {
    return failed() || state == ServiceState.RETRYING;
  }
}
