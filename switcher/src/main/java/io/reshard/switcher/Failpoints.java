package io.reshard.switcher;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Named crash points at the workflow's phase boundaries, for crash tests: when the environment
 * variable {@code RESHARD_FAILPOINT} (or the system property {@code reshard.failpoint}) names a
 * point, the process halts there at once with exit code 137, as {@code kill -9} would leave it: no
 * shutdown hook, no {@code finally}, nothing flushed. Off (and free) unless set. Vitess's
 * failpoints and FoundationDB's buggify serve the same purpose.
 *
 * <p>The points: {@code state:S} right after the record moved to state {@code S} was persisted
 * (e.g. {@code state:WRITES_SWITCHED}, which is the journal record), {@code
 * switch:reverse-started}, {@code switch:targets-open} (between the journal and the map publish),
 * {@code switch:published}, {@code reverse:forward-started}, {@code reverse:published}.
 * Thread-safe.
 */
public final class Failpoints {
  private static final Logger LOG = LoggerFactory.getLogger(Failpoints.class);

  /** The exit code of a halt at a failpoint, the one a shell reports for SIGKILL. */
  public static final int EXIT_CODE = 137;

  private static final String ARMED = armed();

  private Failpoints() {}

  /** Halts the process if {@code point} is the armed failpoint; otherwise returns at once. */
  public static void reach(String point) {
    if (ARMED != null && ARMED.equals(point.toLowerCase(Locale.ROOT))) {
      LOG.error("failpoint {} reached: halting as kill -9 would", point);
      Runtime.getRuntime().halt(EXIT_CODE);
    }
  }

  private static String armed() {
    String v = System.getProperty("reshard.failpoint", System.getenv("RESHARD_FAILPOINT"));
    return v == null || v.isBlank() ? null : v.strip().toLowerCase(Locale.ROOT);
  }
}
