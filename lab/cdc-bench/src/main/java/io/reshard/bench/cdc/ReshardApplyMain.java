package io.reshard.bench.cdc;

import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.ApplyEngine;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.VSchema;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Child JVM: reshard's {@link ApplyEngine} applies a change topic's backlog into one target that
 * covers the whole key range ({@code -}), with the default rows per target commit. The clock runs
 * from {@code start()} until the applied position covers {@code end}.
 *
 * <p>Arguments: jdbcUrl (the target database), user, keyspace, vschema, bootstrap, topic, p0, end,
 * workflow. Reports seconds, cpuSeconds and rowsApplied.
 */
public final class ReshardApplyMain {
  private ReshardApplyMain() {}

  /**
   * Runs one measurement with {@code key=value} arguments (see the class comment) and reports it.
   */
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = ChildJvm.parse(argv);
    String topic = ChildJvm.arg(a, "topic");
    GtidPosition end = GtidPosition.parse(ChildJvm.arg(a, "end"));
    ApplyConfig config =
        new ApplyConfig(
            ChildJvm.arg(a, "workflow"),
            "-",
            ChildJvm.arg(a, "jdbcUrl"),
            ChildJvm.arg(a, "user"),
            "",
            ChildJvm.arg(a, "keyspace"),
            VSchema.parse(ChatBacklog.VSCHEMA),
            ChildJvm.arg(a, "bootstrap"),
            Map.of(topic, GtidPosition.parse(ChildJvm.arg(a, "p0"))),
            ApplyConfig.DEFAULT_MAX_ROWS_PER_COMMIT,
            Duration.ofMillis(100));
    long cpu0 = ChildJvm.cpuNanos();
    long t0 = System.nanoTime();
    try (ApplyEngine engine = new ApplyEngine(config)) {
      engine.start();
      if (!engine.awaitApplied(topic, end, Duration.ofMinutes(30))) {
        throw new IllegalStateException(
            "apply did not reach "
                + end
                + ": "
                + engine.lastError().orElse("timeout")
                + "; applied "
                + engine.rowsApplied());
      }
      long t1 = System.nanoTime();
      long cpu1 = ChildJvm.cpuNanos();
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("seconds", (t1 - t0) / 1e9);
      r.put("cpuSeconds", (cpu1 - cpu0) / 1e9);
      r.put("rowsApplied", engine.rowsApplied());
      ChildJvm.report(r);
    }
    System.exit(0);
  }
}
