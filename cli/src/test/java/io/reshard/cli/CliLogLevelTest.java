package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Operator commands print their own output and no INFO log lines (Kafka clients, our own classes);
 * the daemon keeps its INFO log.
 */
class CliLogLevelTest {

  @Test
  void theCliLogsWarningsAndErrorsOnly() throws Exception {
    Properties p = new Properties();
    // the module's own file: testkit's, for the tests, is on the class path too
    try (InputStream in =
        Files.newInputStream(Path.of("src/main/resources/simplelogger.properties"))) {
      p.load(in);
    }
    assertEquals("warn", p.getProperty(ReshardCli.DEFAULT_LOG_LEVEL));
    assertEquals("System.err", p.getProperty("org.slf4j.simpleLogger.logFile"));
  }

  @Test
  void theDaemonLogsAtInfo() {
    assertEquals(
        Optional.of("info"), ReshardCli.logLevel(new String[] {"daemon", "--cluster", "d"}, null));
    assertEquals(
        Optional.of("info"),
        ReshardCli.logLevel(
            new String[] {"daemon", "--config", "c.yaml", "--keyspace", "x"}, null));
  }

  @Test
  void operatorCommandsKeepTheQuietLevel() {
    for (List<String> args :
        List.of(
            List.of("keyspace", "init", "--cluster", "d", "--keyspace", "daemon"),
            List.of("shardmap", "show", "--cluster", "d"),
            List.of("workflow", "status", "daemon"),
            List.of("--help"),
            List.<String>of())) {
      assertEquals(
          Optional.empty(),
          ReshardCli.logLevel(args.toArray(String[]::new), null),
          args.toString());
    }
  }

  @Test
  void aLevelTheJvmWasStartedWithWins() {
    assertEquals(Optional.empty(), ReshardCli.logLevel(new String[] {"daemon"}, "warn"));
  }
}
