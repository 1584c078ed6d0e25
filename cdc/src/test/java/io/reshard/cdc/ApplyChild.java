package io.reshard.cdc;

import io.reshard.core.position.GtidPosition;
import io.reshard.router.VSchema;
import java.io.FileInputStream;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * An applier process for kill tests: {@code ApplyChild <config.properties>} runs an {@link
 * ApplyEngine} until killed, printing {@code STARTED} and then {@code APPLIED <rows> <commits>}
 * whenever either count moves (rows counts changes sent in the open target transaction too).
 *
 * <p>Keys: workflow, range, jdbcUrl, user, database, vschema, bootstrap, topic, p0, rowsPerCommit.
 */
public final class ApplyChild {
  private ApplyChild() {}

  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    try (InputStream in = new FileInputStream(args[0])) {
      p.load(in);
    }
    ApplyConfig config =
        new ApplyConfig(
            p.getProperty("workflow"),
            p.getProperty("range"),
            p.getProperty("jdbcUrl"),
            p.getProperty("user"),
            "",
            p.getProperty("database"),
            VSchema.parse(p.getProperty("vschema")),
            p.getProperty("bootstrap"),
            Map.of(p.getProperty("topic"), GtidPosition.parse(p.getProperty("p0"))),
            Integer.parseInt(p.getProperty("rowsPerCommit")),
            Duration.ofMillis(100));
    ApplyEngine engine = new ApplyEngine(config);
    engine.start();
    System.out.println("STARTED");
    System.out.flush();
    long rows = -1;
    long commits = -1;
    while (true) {
      ApplyLoopView v = new ApplyLoopView(engine.rowsApplied(), engine.commits());
      if (v.rows != rows || v.commits != commits) {
        rows = v.rows;
        commits = v.commits;
        System.out.println("APPLIED " + rows + " " + commits);
        System.out.flush();
      }
      Thread.sleep(5);
    }
  }

  private record ApplyLoopView(long rows, long commits) {}
}
