package io.reshard.switcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How long each step of one write switch (or reverse) took, in the order the steps ran: what the
 * cutover benchmark prints and the phases log. A phase calls {@link #start} just before it fences
 * and {@link #mark} after each step; a step's time runs from the previous mark (or the start) to
 * its own. {@link #fencedWindow} is the time from the start of the fence to the end of the last
 * step, the publish of the new map: while it runs, writes to the moving range wait.
 *
 * <p>Step names used by the phases: {@code fence}, {@code read G}, {@code catch-up}, {@code pause
 * streams}, {@code journal}, {@code reverse positions} (in a reverse, the reverse journal), {@code
 * open targets} ({@code open sources}), {@code publish}; after it, outside the window, {@code
 * after: reverse streams} ({@code after: forward streams}, in a reverse). Steps a phase prepares
 * before the fence (for example connections opened ahead) are not in the window and are named with
 * a {@code prepare} prefix.
 *
 * <p>Times come from {@link System#nanoTime()}. Not thread-safe: the phase's thread writes it; read
 * it after the phase returned.
 */
public final class CutoverSteps {
  private final List<String> names = new ArrayList<>();
  private final List<Long> fromNanos = new ArrayList<>();
  private final List<Long> endNanos = new ArrayList<>();
  private long startNanos;
  private long lastNanos;

  /** Starts the fenced window now: the next {@link #mark} measures from here. */
  void start() {
    startNanos = System.nanoTime();
    lastNanos = startNanos;
  }

  /** Marks the start of a preparation step outside the window; the next mark measures from here. */
  void begin() {
    lastNanos = System.nanoTime();
  }

  /** Records {@code step} as finished now; it began at the previous mark, begin or start. */
  void mark(String step) {
    long now = System.nanoTime();
    names.add(step);
    fromNanos.add(lastNanos == 0 ? now : lastNanos);
    endNanos.add(now);
    lastNanos = now;
  }

  /** Every step's duration, in the order the steps ran (a step run twice is summed). */
  public Map<String, Duration> durations() {
    Map<String, Duration> m = new LinkedHashMap<>();
    for (int i = 0; i < names.size(); i++) {
      m.merge(names.get(i), Duration.ofNanos(endNanos.get(i) - fromNanos.get(i)), Duration::plus);
    }
    return Collections.unmodifiableMap(m);
  }

  /**
   * When {@code step} last finished, as a {@link System#nanoTime()} value; 0 if it did not run. The
   * benchmark compares the end of {@code publish} with the moment a router received the map.
   */
  public long endNanos(String step) {
    for (int i = names.size() - 1; i >= 0; i--) {
      if (names.get(i).equals(step)) {
        return endNanos.get(i);
      }
    }
    return 0;
  }

  /**
   * From the start of the fence to the end of {@code publish} (or of the last step, if none
   * published): how long writes to the moving range could not commit anywhere.
   */
  public Duration fencedWindow() {
    if (startNanos == 0 || endNanos.isEmpty()) {
      return Duration.ZERO;
    }
    long end = endNanos("publish");
    return Duration.ofNanos((end != 0 ? end : endNanos.get(endNanos.size() - 1)) - startNanos);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("fenced window ").append(fencedWindow().toMillis());
    b.append(" ms:");
    durations().forEach((k, v) -> b.append(' ').append(k).append(' ').append(v.toMillis()));
    return b.toString();
  }
}
