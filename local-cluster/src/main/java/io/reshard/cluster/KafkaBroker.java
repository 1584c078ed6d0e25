package io.reshard.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * The Kafka broker of a local cluster: one JVM in KRaft combined mode (broker and controller),
 * launched from the Kafka jars that Maven resolved for this module (the classpath is a resource
 * written at build time), with the single-broker settings transactions need.
 *
 * <p>Files live under {@code DIR/kafka/}: {@code server.properties}, {@code log4j2.properties},
 * {@code data/}, {@code logs/}, {@code broker.out}. Not thread-safe.
 */
final class KafkaBroker {

  /** Resource holding the broker's classpath, written by the build (see this module's pom). */
  static final String CLASSPATH_RESOURCE = "kafka-broker.classpath";

  /** How long the broker may take to answer an admin request (seen: 4-6 s from launch). */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);

  /** How long a shutdown may take before SIGKILL (seen: 1.5-2.4 s). */
  private static final Duration STOP_GRACE = Duration.ofSeconds(60);

  private final ClusterDescriptor.Broker broker;
  private final Path home;

  KafkaBroker(Path clusterDir, ClusterDescriptor.Broker broker) {
    this.broker = broker;
    this.home = clusterDir.resolve("kafka");
  }

  ClusterDescriptor.Broker descriptor() {
    return broker;
  }

  /** The text that identifies the broker's process in {@code /proc/PID/cmdline}. */
  String marker() {
    return home.resolve("server.properties").toString();
  }

  private Path logFile() {
    return home.resolve("logs").resolve("server.log");
  }

  /** True if the storage directory has been formatted. */
  boolean isFormatted() {
    return Files.exists(home.resolve("data").resolve("meta.properties"));
  }

  /**
   * Writes {@code server.properties} and {@code log4j2.properties}. Every internal topic gets
   * replication factor 1 and min ISR 1, since one broker cannot meet the defaults of 3.
   */
  void writeConfig() throws IOException {
    Files.createDirectories(home.resolve("logs"));
    String host = "127.0.0.1";
    String props =
        """
        # single-node KRaft combined mode: broker and controller in one JVM
        process.roles=broker,controller
        node.id=1
        # dynamic quorum: bootstrap servers plus `format --standalone`, no controller.quorum.voters
        controller.quorum.bootstrap.servers=%1$s:%3$d
        listeners=PLAINTEXT://%1$s:%2$d,CONTROLLER://%1$s:%3$d
        advertised.listeners=PLAINTEXT://%1$s:%2$d
        controller.listener.names=CONTROLLER
        inter.broker.listener.name=PLAINTEXT
        listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
        log.dirs=%4$s
        # one broker: every internal topic has replication factor 1 and min ISR 1
        offsets.topic.replication.factor=1
        offsets.topic.num.partitions=1
        transaction.state.log.replication.factor=1
        transaction.state.log.min.isr=1
        transaction.state.log.num.partitions=1
        share.coordinator.state.topic.replication.factor=1
        share.coordinator.state.topic.min.isr=1
        default.replication.factor=1
        min.insync.replicas=1
        num.partitions=1
        auto.create.topics.enable=false
        group.initial.rebalance.delay.ms=0
        num.network.threads=2
        num.io.threads=4
        num.recovery.threads.per.data.dir=1
        log.retention.hours=24
        log.segment.bytes=67108864
        # a produce request may carry one change of a row with a 64 MiB value (before and after,
        # base64): Kafka's default of 100 MiB refuses it
        socket.request.max.bytes=268435456
        """
            .formatted(host, broker.port(), broker.controllerPort(), home.resolve("data"));
    Files.writeString(home.resolve("server.properties"), props);
    String log4j =
        """
        status = warn
        appender.file.type = File
        appender.file.name = FILE
        appender.file.fileName = %s
        appender.file.layout.type = PatternLayout
        appender.file.layout.pattern = [%%d] %%p %%m (%%c)%%n
        rootLogger.level = info
        rootLogger.appenderRef.file.ref = FILE
        """
            .formatted(logFile());
    Files.writeString(home.resolve("log4j2.properties"), log4j);
  }

  /**
   * Formats the KRaft storage with a fresh cluster id ({@code kafka.tools.StorageTool format
   * --standalone}).
   *
   * @throws ClusterException with the tool's output if it fails
   */
  void format() throws IOException, InterruptedException {
    Path out = home.resolve("format.out");
    Files.deleteIfExists(out);
    List<String> cmd = javaCommand("kafka.tools.StorageTool");
    cmd.addAll(
        List.of(
            "format",
            "-t",
            Uuid.randomUuid().toString(),
            "-c",
            home.resolve("server.properties").toString(),
            "--standalone"));
    Process p = OsProcesses.launch(cmd, home, out);
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      throw new ClusterException(
          ClusterException.Kind.START_FAILED,
          "formatting the Kafka storage in "
              + home.resolve("data")
              + " failed; the disk may be full. Output:\n"
              + OsProcesses.tail(out, 20));
    }
  }

  /**
   * Starts the broker JVM and waits until it answers an admin request.
   *
   * @return the broker's pid
   * @throws ClusterException with the tail of its log if it dies or is not ready in time
   */
  long start() {
    List<String> cmd = javaCommand("kafka.Kafka");
    cmd.add(home.resolve("server.properties").toString());
    Process p = OsProcesses.launch(cmd, home, home.resolve("broker.out"));
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (true) {
      if (!p.isAlive()) {
        throw new ClusterException(
            ClusterException.Kind.START_FAILED,
            "the Kafka broker on port "
                + broker.port()
                + " died at start (exit code "
                + p.exitValue()
                + "). Last lines of its logs:\n"
                + OsProcesses.tail(home.resolve("broker.out"), 10)
                + "\n"
                + OsProcesses.tail(logFile(), 20));
      }
      if (answersAdmin()) {
        return p.pid();
      }
      if (System.nanoTime() > deadline) {
        p.destroyForcibly();
        throw new ClusterException(
            ClusterException.Kind.START_FAILED,
            "the Kafka broker on port "
                + broker.port()
                + " did not become ready within "
                + READY_TIMEOUT.toSeconds()
                + " s. Last lines of "
                + logFile()
                + ":\n"
                + OsProcesses.tail(logFile(), 20));
      }
      OsProcesses.sleep(Duration.ofMillis(200));
    }
  }

  /** True if the broker answers {@code describeCluster} within a few seconds. */
  boolean answersAdmin() {
    if (!OsProcesses.isPortFree(broker.port())) {
      try (Admin admin =
          Admin.create(
              Map.of(
                  AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap(),
                  AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 3000,
                  AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000))) {
        admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
        return true;
      } catch (Exception e) {
        return false;
      }
    }
    return false;
  }

  boolean isRunning() {
    return OsProcesses.isOurs(broker.pid(), marker());
  }

  /**
   * Stops the process (SIGTERM, SIGKILL after {@link #STOP_GRACE}) and returns once it has exited
   * and its pid is gone.
   *
   * @return how it ended, as a line's words: {@code stopped}, {@code was not running}, ...
   */
  String stop() {
    return OsProcesses.stop(broker.pid(), marker(), STOP_GRACE).describe(STOP_GRACE);
  }

  private List<String> javaCommand(String mainClass) {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(
        List.of(
            "-Xms128m",
            // room for a few produce requests of a couple of hundred MiB (a row change with a
            // 64 MiB value); the heap grows there only when such records come
            "-Xmx1g",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-Djava.awt.headless=true",
            "-Dlog4j2.configurationFile=" + home.resolve("log4j2.properties"),
            "-Dkafka.logs.dir=" + home.resolve("logs"),
            "-cp",
            brokerClasspath(),
            mainClass));
    return cmd;
  }

  /**
   * The broker's classpath, from the resource the build wrote.
   *
   * @throws ClusterException if the resource is missing or names a jar that is gone
   */
  static String brokerClasspath() {
    try (InputStream in = KafkaBroker.class.getResourceAsStream(CLASSPATH_RESOURCE)) {
      if (in == null) {
        throw new ClusterException(
            ClusterException.Kind.MISSING_PROGRAM,
            "the Kafka broker classpath resource is missing from the build; rebuild with"
                + " `mvn -DskipTests install`");
      }
      String cp = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
      for (String jar : cp.split(java.io.File.pathSeparator)) {
        if (!Files.exists(Path.of(jar))) {
          throw new ClusterException(
              ClusterException.Kind.MISSING_PROGRAM,
              "the Kafka broker jar "
                  + jar
                  + " is missing (was the Maven repository cleaned?); rebuild with"
                  + " `mvn -DskipTests install`");
        }
      }
      return cp;
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER, "cannot read the Kafka broker classpath", e);
    }
  }
}
