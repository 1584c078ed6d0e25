package io.reshard.copier;

import java.time.Duration;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Pauses the copy while the workflow's appliers lag behind the source by more than a limit, so the
 * copy never outruns the change stream it converges with.
 *
 * <p>The lag comes from {@code cdc} (the largest lag of the workflow's appliers, DESIGN 4.5); the
 * copier only declares the supplier it needs. Thread-safe if the supplier is.
 */
public final class ApplierLagThrottle implements CopyThrottle {
  private final Supplier<Duration> maxApplierLag;
  private final Duration limit;

  /**
   * @param maxApplierLag the largest lag among the workflow's appliers, now
   * @param limit pause while the lag is above this
   */
  public ApplierLagThrottle(Supplier<Duration> maxApplierLag, Duration limit) {
    this.maxApplierLag = maxApplierLag;
    this.limit = limit;
  }

  @Override
  public Optional<String> pauseReason() {
    Duration lag = maxApplierLag.get();
    return lag.compareTo(limit) > 0
        ? Optional.of("applier lag " + lag.toMillis() + " ms > " + limit.toMillis() + " ms")
        : Optional.empty();
  }
}
