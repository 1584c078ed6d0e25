package io.reshard.cdc;

import io.reshard.core.position.CapturePosition;
import java.io.FileInputStream;
import java.io.InputStream;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * A capture process for kill tests: {@code CaptureChild <config.properties> <pauseBeforeCommitMs>}
 * runs a {@link CaptureEngine} until killed, printing {@code STARTED}, {@code SENT <rows> <pos>}
 * before each commit (then pausing, so a kill lands between send and commit) and {@code COMMITTED
 * <rows> <pos>} after it.
 */
public final class CaptureChild {
  private CaptureChild() {}

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (InputStream in = new FileInputStream(args[0])) {
      p.load(in);
    }
    long pauseMillis = Long.parseLong(args[1]);
    Map<String, String> m = new HashMap<>();
    p.forEach((k, v) -> m.put((String) k, (String) v));
    CaptureListener printer =
        new CaptureListener() {
          @Override
          public void beforeCommit(CapturePosition position, int rows) {
            System.out.println("SENT " + rows + " " + position);
            System.out.flush();
            try {
              Thread.sleep(pauseMillis);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }

          @Override
          public void afterCommit(CapturePosition position, int rows) {
            System.out.println("COMMITTED " + rows + " " + position);
            System.out.flush();
          }
        };
    CaptureEngine engine = new CaptureEngine(CaptureConfig.from(m), printer, Clock.systemUTC());
    engine.start();
    System.out.println("STARTED");
    System.out.flush();
    engine.awaitTermination(java.time.Duration.ofDays(1));
    System.out.println(
        "ENDED " + engine.state() + " " + engine.failure().map(Throwable::getMessage).orElse(""));
  }
}
