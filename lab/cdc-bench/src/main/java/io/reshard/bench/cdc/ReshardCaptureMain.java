package io.reshard.bench.cdc;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cdc.CaptureListener;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Child JVM: reshard's {@link CaptureEngine} captures the backlog from {@code start} (the source's
 * GTID position before the load) into a fresh change topic, with capture's default batching unless
 * system properties {@code reshard.capture.<key>} set other capture keys. The clock runs from
 * {@code start()} (preflight, topic creation, {@code initTransactions} included) until a committed
 * position covers {@code end}, the source's position after the load.
 *
 * <p>Arguments: host, port, user, flavor ({@code mariadb} or {@code mysql}: capture's {@code
 * source.flavor}), serverId, database, bootstrap, topicPrefix, start, end, rows. Reports seconds,
 * cpuSeconds (this JVM over that window), firstCommitSeconds and the final position.
 */
public final class ReshardCaptureMain {
  private static final String CAPTURE_PROPERTY = "reshard.capture.";

  private ReshardCaptureMain() {}

  /**
   * Runs one measurement with {@code key=value} arguments (see the class comment) and reports it.
   */
  public static void main(String[] argv) throws Exception {
    Map<String, String> a = ChildJvm.parse(argv);
    Map<String, String> m = new HashMap<>();
    m.put("source.host", ChildJvm.arg(a, "host"));
    m.put("source.port", ChildJvm.arg(a, "port"));
    m.put("source.user", ChildJvm.arg(a, "user"));
    m.put("source.flavor", ChildJvm.arg(a, "flavor"));
    m.put("source.server.id", ChildJvm.arg(a, "serverId"));
    m.put("keyspace", ChildJvm.arg(a, "database"));
    m.put("shard", "-");
    m.put("kafka.bootstrap.servers", ChildJvm.arg(a, "bootstrap"));
    m.put("topic.prefix", ChildJvm.arg(a, "topicPrefix"));
    m.put("start.position", ChildJvm.arg(a, "start"));
    // -Dreshard.capture.KEY=VALUE (through --child-jvm-opts) sets capture key KEY: for trying
    // other batching than the defaults, e.g. -Dreshard.capture.batch.max.rows=5000
    System.getProperties()
        .stringPropertyNames()
        .forEach(
            k -> {
              if (k.startsWith(CAPTURE_PROPERTY)) {
                m.put(k.substring(CAPTURE_PROPERTY.length()), System.getProperty(k));
              }
            });
    GtidPosition end = GtidPosition.parse(ChildJvm.arg(a, "end"));
    AtomicLong firstCommit = new AtomicLong();
    AtomicReference<CapturePosition> reachedEnd = new AtomicReference<>();
    CountDownLatch done = new CountDownLatch(1);
    // the clock stops when the commit that covers the end returns (the publisher thread calls
    // this); the main thread waits on a latch instead of polling the engine
    CaptureListener listener =
        new CaptureListener() {
          @Override
          public void afterCommit(CapturePosition position, int rows) {
            if (rows > 0) {
              firstCommit.compareAndSet(0, System.nanoTime());
            }
            if (position.gtids().covers(end) && reachedEnd.compareAndSet(null, position)) {
              done.countDown();
            }
          }
        };
    long cpu0 = ChildJvm.cpuNanos();
    long t0 = System.nanoTime();
    CaptureEngine engine = new CaptureEngine(CaptureConfig.from(m), listener, Clock.systemUTC());
    engine.start();
    while (!done.await(100, TimeUnit.MILLISECONDS)) {
      if (engine.state() == CaptureEngine.State.FAILED) {
        throw new IllegalStateException("capture failed", engine.failure().orElse(null));
      }
    }
    long t1 = System.nanoTime();
    CapturePosition reached = reachedEnd.get();
    long cpu1 = ChildJvm.cpuNanos();
    engine.stop();
    engine.awaitTermination(Duration.ofSeconds(30));
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("seconds", (t1 - t0) / 1e9);
    r.put("cpuSeconds", (cpu1 - cpu0) / 1e9);
    r.put("firstCommitSeconds", firstCommit.get() == 0 ? -1 : (firstCommit.get() - t0) / 1e9);
    r.put("cpuTotalSeconds", ChildJvm.cpuNanos() / 1e9);
    r.put("position", reached.gtids().toString().replace(' ', '_'));
    ChildJvm.report(r);
    System.exit(0); // the binlog client's reader thread is not a daemon
  }
}
