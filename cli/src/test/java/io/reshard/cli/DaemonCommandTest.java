package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code reshard daemon} without running a daemon: configuration, --check, refusals. */
class DaemonCommandTest {
  @TempDir Path tmp;

  private record Run(int exitCode, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = ReshardCli.newCommandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    int code = cli.execute(args);
    return new Run(code, out.toString(), err.toString());
  }

  @Test
  void anInvalidConfigurationIsAUsageErrorListingEveryProblem() throws Exception {
    Path f = tmp.resolve("d.yaml");
    Files.writeString(f, "admin.port: -1\nshards: [{keyspace: ks}]\n");
    Run r = run("daemon", "--config", f.toString(), "--set", "topic.prefix=bad topic");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    for (String key :
        List.of(
            "kafka.bootstrap.servers: required",
            "admin.port = '-1'",
            "topic.prefix = 'bad topic'",
            "shards.0.shard: required",
            "shards.0.host: required")) {
      assertTrue(r.err().contains(key), key + " in:\n" + r.err());
    }
    assertEquals("", r.out());
  }

  @Test
  void checkPrintsTheConfigurationWithFlagsAppliedAndSecretsHidden() throws Exception {
    Path f = tmp.resolve("d.yaml");
    Files.writeString(
        f,
        "kafka.bootstrap.servers: k:9092\nadmin.token: a-token-long-enough-1234\n"
            + "shards: [{keyspace: ks, shard: '-', host: h, user: u, password: pw-1234567,"
            + " server.id: 3}]\n");
    Run r =
        run(
            "daemon",
            "--config",
            f.toString(),
            "--set",
            "admin.port=1",
            "--admin-port",
            "0",
            "--admin-bind=localhost",
            "--check");
    assertEquals(ExitCodes.OK, r.exitCode(), r.err());
    assertTrue(r.out().contains("admin.port = 0\n"), "the flag wins over --set:\n" + r.out());
    assertTrue(r.out().contains("admin.bind = localhost\n"), r.out());
    assertTrue(r.out().contains("admin.token = [hidden]\n"), r.out());
    assertFalse(r.out().contains("a-token-long-enough-1234"), r.out());
    assertFalse(r.out().contains("pw-1234567"), r.out());
  }

  @Test
  void checkWithOutputJsonIsOneDocumentOfEveryKey() throws Exception {
    Path f = tmp.resolve("d.yaml");
    Files.writeString(
        f,
        "kafka.bootstrap.servers: k:9092\nadmin.token: a-token-long-enough-1234\n"
            + "shards: [{keyspace: ks, shard: '-', host: h, user: u, password: pw-1234567,"
            + " server.id: 3}]\n");
    Run r =
        run("daemon", "--config", f.toString(), "--admin-port", "7", "--check", "--output", "json");
    assertEquals(ExitCodes.OK, r.exitCode(), r.err());
    com.fasterxml.jackson.databind.JsonNode doc =
        new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    assertEquals("k:9092", doc.path("kafka.bootstrap.servers").asText(), r.out());
    assertEquals("7", doc.path("admin.port").asText(), r.out());
    assertEquals("[hidden]", doc.path("admin.token").asText(), r.out());
    assertTrue(doc.path("shards.0").asText().contains("host=h"), r.out());
    assertFalse(r.out().contains("a-token-long-enough-1234") || r.out().contains("pw-1234567"));
    assertEquals(1, r.out().strip().lines().count(), "one document: " + r.out());
  }

  @Test
  void aConfigurationProblemWithOutputJsonIsADocument() throws Exception {
    Run r =
        run(
            "daemon",
            "--config",
            tmp.resolve("none.yaml").toString(),
            "--check",
            "--output",
            "json");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.err());
    com.fasterxml.jackson.databind.JsonNode doc =
        OutputJsonTest.failureDocument(new OutputJsonTest.Run(r.exitCode(), r.out(), r.err()));
    assertTrue(doc.get("error").asText().contains("no such file"), doc.toString());
  }

  @Test
  void aClusterGivesTheConfigurationAndAnOwnerOnlyTokenFile() throws Exception {
    ClusterDescriptor d =
        new ClusterDescriptor(
            List.of(
                new ClusterDescriptor.Server(
                    "db1", "shard", "127.0.0.1", 23306, "/tmp/s1", "root", 1, 0, "/tmp/d1"),
                new ClusterDescriptor.Server(
                    "db2", "shard", "127.0.0.1", 23307, "/tmp/s2", "root", 2, 0, "/tmp/d2")),
            new ClusterDescriptor.Broker("127.0.0.1:29092", 29092, 29093, 0));
    d.write(tmp);
    Run r =
        run(
            "daemon",
            "--cluster",
            tmp.toString(),
            "--keyspace",
            "commerce",
            "--shards=-80,80-",
            "--check");
    assertEquals(ExitCodes.OK, r.exitCode(), r.err());
    assertTrue(r.out().contains("kafka.bootstrap.servers = 127.0.0.1:29092\n"), r.out());
    assertTrue(r.out().contains("admin.port = 0\n"), r.out());
    assertTrue(r.out().contains("admin.token = [hidden]\n"), r.out());
    assertTrue(
        r.out()
            .contains(
                "shard=80-, host=127.0.0.1, port=23307, user=root, password=[not set],"
                    + " serverId=4200002"),
        r.out());
    Path token = tmp.resolve("daemon.token");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(token)));
    String t = Files.readString(token).strip();
    assertEquals(64, t.length());
    assertFalse(r.out().contains(t));
    run("daemon", "--cluster", tmp.toString(), "--keyspace", "commerce", "--check");
    assertEquals(t, Files.readString(token).strip(), "an existing token is kept");
  }

  @Test
  void theSourceOptionsMustFitTogether() {
    assertEquals(ExitCodes.USAGE, run("daemon").exitCode());
    assertEquals(
        ExitCodes.USAGE,
        run("daemon", "--config", "x.yaml", "--cluster", tmp.toString()).exitCode());
    Run noKeyspace = run("daemon", "--cluster", tmp.toString(), "--shards=-80,80-");
    assertEquals(ExitCodes.USAGE, noKeyspace.exitCode());
    assertTrue(noKeyspace.err().contains("--shards needs --keyspace"), noKeyspace.err());
    Run r = run("daemon", "--config", "x.yaml", "--background");
    assertEquals(ExitCodes.USAGE, r.exitCode());
    assertTrue(r.err().contains("go with --cluster"), r.err());
  }

  @Test
  void stopWithoutARecordedDaemonSaysSo() {
    new ClusterDescriptor(
            List.of(), new ClusterDescriptor.Broker("127.0.0.1:29092", 29092, 29093, 0))
        .write(tmp);
    Run r = run("daemon", "stop", "--cluster", tmp.toString());
    assertEquals(ExitCodes.OK, r.exitCode(), r.err());
    assertEquals("daemon not recorded for " + tmp + "\n", r.out());
    assertEquals(
        ExitCodes.REFUSED,
        run("daemon", "stop", "--cluster", tmp.resolve("x").toString()).exitCode());
  }
}
