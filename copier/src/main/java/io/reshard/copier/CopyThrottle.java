package io.reshard.copier;

import java.util.List;
import java.util.Optional;

/**
 * Decides, before every chunk, whether the copy should pause so the source and the appliers keep up
 * with the application's own load. The copier asks again after {@link
 * CopierConfig#throttleRecheck()} until the answer is empty.
 *
 * <p>Implementations must be thread-safe: tables are copied in parallel and each asks.
 */
@FunctionalInterface
public interface CopyThrottle {

  /**
   * Returns why the copy should pause now, e.g. {@code "Threads_running 41 > 32 on the source"}, or
   * empty if it may go on.
   */
  Optional<String> pauseReason();

  /** A throttle that never pauses. */
  static CopyThrottle none() {
    return Optional::empty;
  }

  /** A throttle that pauses when any of {@code throttles} says so, giving the first reason. */
  static CopyThrottle anyOf(CopyThrottle... throttles) {
    List<CopyThrottle> all = List.of(throttles);
    return () -> {
      for (CopyThrottle t : all) {
        Optional<String> reason = t.pauseReason();
        if (reason.isPresent()) {
          return reason;
        }
      }
      return Optional.empty();
    };
  }
}
