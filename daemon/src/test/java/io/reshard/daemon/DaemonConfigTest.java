package io.reshard.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.ApplyConfig;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.copier.CopierConfig;
import io.reshard.differ.DifferConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DaemonConfigTest {
  private static final String TOKEN = "0123456789abcdef-admin-token";
  private static final String PASSWORD = "hunter2-db-password";

  @TempDir Path tmp;

  private Path yaml(String text) throws Exception {
    Path f = Files.createTempFile(tmp, "daemon", ".yaml");
    Files.writeString(f, text);
    return f;
  }

  private static DaemonConfigBuilder builder(Map<String, String> env) {
    return new DaemonConfigBuilder(env::get);
  }

  @Test
  void aShardsFlavorPicksItsCaptureDriverAndItsServerFlavor() throws Exception {
    Path f =
        yaml(
            """
            kafka.bootstrap.servers: k:1
            shards:
              - {keyspace: ks, shard: '-80', host: h1, user: u, server.id: 1, flavor: mysql}
              - {keyspace: ks, shard: '80-', host: h2, user: u, server.id: 2}
            """);
    DaemonConfig c = DaemonConfig.load(f, List.of());
    assertEquals("mysql", c.shards().get(0).flavor());
    assertEquals("mariadb", c.shards().get(1).flavor(), "the default");
    assertEquals(
        io.reshard.core.position.GtidPosition.Flavor.MYSQL,
        c.captureConfig(c.shards().get(0)).sourceFlavor());
    ServerDirectory servers = ServerDirectory.forConfig(c);
    assertEquals(
        io.reshard.core.position.GtidPosition.Flavor.MYSQL,
        servers.server("h1:3306", "-80").flavorOrDefault());
    assertEquals(
        io.reshard.core.position.GtidPosition.Flavor.MARIADB,
        servers.server("h2:3306", "80-").flavorOrDefault());

    Path bad =
        yaml(
            """
            kafka.bootstrap.servers: k:1
            shards:
              - {keyspace: ks, shard: '-', host: h1, user: u, server.id: 1, flavor: oracle}
            """);
    DaemonConfigException e =
        assertThrows(DaemonConfigException.class, () -> DaemonConfig.load(bad, List.of()));
    assertTrue(
        e.getMessage().contains("shards.0.flavor = 'oracle': must be one of [mariadb, mysql]"),
        e.getMessage());
  }

  @Test
  void everyKeyHasItsDefaultAndOnlyTheBrokerIsRequired() {
    DaemonConfig c = DaemonConfig.builder().set("kafka.bootstrap.servers", "k:9092").validate();
    assertEquals("k:9092", c.bootstrapServers());
    assertEquals("reshard", c.topicPrefix());
    assertEquals("127.0.0.1", c.adminBind());
    assertEquals(15000, c.adminPort());
    assertTrue(c.adminToken().isEmpty());
    assertEquals("reshard.workflows", c.workflowsTopic());
    assertEquals("reshard.shardmaps", c.shardmapsTopic());
    assertEquals(1000, c.restartBackoffInitial().toMillis());
    assertEquals(60000, c.restartBackoffMax().toMillis());
    assertEquals(List.of(), c.shards());

    DaemonConfigException e =
        assertThrows(DaemonConfigException.class, () -> DaemonConfig.builder().validate());
    assertEquals(1, e.problems().size(), e.getMessage());
    assertTrue(e.problems().get(0).startsWith("kafka.bootstrap.servers: required"));
  }

  @Test
  void yamlNestedAndDottedKeysMeanTheSameAndShardsAreAList() throws Exception {
    Path f =
        yaml(
            """
            kafka:
              bootstrap.servers: 127.0.0.1:9092
            admin.port: 0
            admin:
              token: %s
            capture.heartbeat.interval.ms: 500
            shards:
              - keyspace: commerce
                shard: -80              # unquoted: YAML reads an integer; still the shard -80
                host: 127.0.0.1
                port: 13306
                user: reshard
                password: %s
                server.id: 7001
              - {keyspace: commerce, shard: '80-', host: 127.0.0.1, port: 13307, user: reshard,
                 server: {id: 7002}, start.position: earliest}
            """
                .formatted(TOKEN, PASSWORD));
    DaemonConfig c = DaemonConfig.load(f, List.of());
    assertEquals("127.0.0.1:9092", c.bootstrapServers());
    assertEquals(0, c.adminPort());
    assertTrue(c.adminToken().matches(TOKEN));
    assertEquals(2, c.shards().size());
    SourceShard s0 = c.shards().get(0);
    assertEquals("commerce/-80", s0.id());
    assertEquals(13306, s0.port());
    assertEquals(PASSWORD, s0.password().reveal());
    assertEquals(7001, s0.serverId());
    assertEquals("current", s0.startPosition());
    SourceShard s1 = c.shards().get(1);
    assertEquals(7002, s1.serverId());
    assertEquals("earliest", s1.startPosition());
    assertTrue(s1.password().isEmpty());
    assertEquals(Map.of("heartbeat.interval.ms", "500"), c.captureSettings());

    var capture = c.captureConfig(s0);
    assertEquals("commerce/-80@127.0.0.1:13306", capture.describe());
    assertEquals("reshard.commerce.-80", capture.changeTopic());
    assertEquals(PASSWORD, capture.sourcePassword());
    assertEquals(500, capture.heartbeatInterval().toMillis());
  }

  @Test
  void overridesReplaceTheSameKeysLaterOnesWinning() throws Exception {
    Path f =
        yaml(
            "kafka.bootstrap.servers: a:1\nadmin: {port: 15001}\n"
                + "shards: [{keyspace: ks, shard: '-', host: h, user: u, server.id: 9}]\n");
    DaemonConfig c =
        DaemonConfig.load(
            f,
            List.of(
                "admin.port=15002",
                "admin.port=0",
                "topic.prefix=other",
                "shards.0.host=h2",
                "shards.1.keyspace=ks2",
                "shards.1.shard=-",
                "shards.1.host=h3",
                "shards.1.user=u",
                "shards.1.server.id=10"));
    assertEquals(0, c.adminPort());
    assertEquals("other", c.topicPrefix());
    assertEquals("a:1", c.bootstrapServers(), "keys not overridden keep the file's value");
    assertEquals("h2", c.shards().get(0).host());
    assertEquals("ks2/-", c.shards().get(1).id());
  }

  @Test
  void everyProblemIsReportedAtOnce() throws Exception {
    Path f =
        yaml(
            """
            kafka.bootstrap.servers: 127.0.0.1:9092
            admin: {port: 99999, token: tooShortToken1}
            admin.bind: "not a host"
            bogus: 1
            port: 3306
            capture.heartbeat.interval.ms: 5
            capture.source.host: x
            capture.no.such.key: 1
            restart.backoff.initial.ms: 5000
            restart.backoff.max.ms: 1000
            tags: [a, b]
            shards:
              - {keyspace: ks, shard: '-80', host: h, user: u, server.id: 1}
              - {keyspace: ks, shard: '-80', host: h, user: u, server.id: 1}
              - {keyspace: ks, shard: 'zz', host: h, user: u, colour: red}
              - {keyspace: ks, shard: '80-', host: h, user: u, server.id: 2,
                 start.position: 'not-a-gtid'}
            """);
    DaemonConfigException e =
        assertThrows(
            DaemonConfigException.class,
            () -> DaemonConfig.load(f, List.of("shards.7.host=x", "no-equals-sign")));
    List<String> p = e.problems();
    String all = String.join("\n", p);
    List<String> expected =
        List.of(
            "admin.port = '99999': must be between 0 and 65535",
            "admin.token: must be empty (mutating calls off) or at least 16 characters",
            "admin.bind = 'not a host': is not a host name or address",
            "bogus: unknown key",
            "port: unknown key (a shard's key: write shards.N.port)",
            "capture.heartbeat.interval.ms = '5': must be between 100 and 3600000",
            "capture.source.host: set per shard",
            "capture.no.such.key: unknown capture key",
            "restart.backoff.initial.ms must not exceed restart.backoff.max.ms",
            "tags: a list is not allowed here",
            "shards.2.shard = 'zz': is not a shard name",
            "shards.2.server.id: required",
            "shards.2.colour: unknown shard key",
            "shards.7: shards are numbered from 0 without gaps",
            "--set no-equals-sign: expected key=value",
            "shards: ks/-80 is listed 2 times",
            "shards: server.id 1 is used by [ks/-80, ks/-80]");
    List<String> missing = new ArrayList<>();
    for (String x : expected) {
      if (p.stream().noneMatch(line -> line.startsWith(x))) {
        missing.add(x);
      }
    }
    assertEquals(List.of(), missing, all);
    assertTrue(
        p.stream().anyMatch(l -> l.startsWith("shards.3.capture: start.position = 'not-a-gtid'")),
        "capture's own checks apply to each shard: " + all);
    assertTrue(
        e.getMessage().startsWith("invalid daemon configuration (" + p.size() + " problems)"));
    assertFalse(all.contains("tooShortToken1"), "a secret's value is never echoed: " + all);
  }

  @Test
  void aMissingOrBrokenFileIsAProblemLikeAnyOther() throws Exception {
    DaemonConfigException e =
        assertThrows(
            DaemonConfigException.class,
            () -> DaemonConfig.load(tmp.resolve("absent.yaml"), List.of("admin.port=x")));
    assertEquals(3, e.problems().size(), e.getMessage());
    assertTrue(e.problems().get(0).endsWith("absent.yaml: no such file"));
    Path broken = yaml("admin: [unclosed\n");
    e = assertThrows(DaemonConfigException.class, () -> DaemonConfig.load(broken, List.of()));
    assertTrue(e.problems().get(0).contains("not readable YAML"), e.getMessage());
    Path scalar = yaml("just text\n");
    e = assertThrows(DaemonConfigException.class, () -> DaemonConfig.load(scalar, List.of()));
    assertTrue(e.problems().get(0).contains("must be a YAML mapping"), e.getMessage());
  }

  @Test
  void secretsAreHiddenInToStringDescribeAndProblems() {
    DaemonConfig c =
        DaemonConfig.builder()
            .set("kafka.bootstrap.servers", "k:1")
            .set("admin.token", TOKEN)
            .set("shards.0.keyspace", "ks")
            .set("shards.0.shard", "-")
            .set("shards.0.host", "h")
            .set("shards.0.user", "u")
            .set("shards.0.password", PASSWORD)
            .set("shards.0.server.id", "5")
            .validate();
    String s = c.toString() + "\n" + String.join("\n", c.describe()) + "\n" + c.shards();
    assertFalse(s.contains(TOKEN), s);
    assertFalse(s.contains(PASSWORD), s);
    assertTrue(s.contains("admin.token = [hidden]"), s);
    assertTrue(s.contains("password=[hidden]"), s);
    assertEquals("[hidden]", c.shards().get(0).password().toString());
    assertThrows(IllegalArgumentException.class, () -> c.get("admin.token"));
    assertEquals("[not set]", Secret.empty().toString());
  }

  @Test
  void aSecretMayComeFromTheEnvironmentOrAFile() throws Exception {
    Path file = tmp.resolve("pw");
    Files.writeString(file, PASSWORD + "\n");
    DaemonConfig c =
        builder(Map.of("TOKEN_VAR", TOKEN))
            .set("kafka.bootstrap.servers", "k:1")
            .set("admin.token", "${env:TOKEN_VAR}")
            .set("shards.0.keyspace", "ks")
            .set("shards.0.shard", "-")
            .set("shards.0.host", "h")
            .set("shards.0.user", "u")
            .set("shards.0.password", "${file:" + file + "}")
            .set("shards.0.server.id", "5")
            .validate();
    assertTrue(c.adminToken().matches(TOKEN));
    assertEquals(PASSWORD, c.shards().get(0).password().reveal(), "the line break is dropped");

    DaemonConfigException e =
        assertThrows(
            DaemonConfigException.class,
            () ->
                builder(Map.of())
                    .set("kafka.bootstrap.servers", "k:1")
                    .set("admin.token", "${env:NOPE}")
                    .validate());
    assertEquals(List.of("admin.token: the environment variable NOPE is not set"), e.problems());
  }

  @Test
  void theConfigurationIsFrozen() {
    DaemonConfig c =
        DaemonConfig.builder()
            .set("kafka.bootstrap.servers", "k:1")
            .set("capture.batch.max.rows", "10")
            .set("shards.0.keyspace", "ks")
            .set("shards.0.shard", "-")
            .set("shards.0.host", "h")
            .set("shards.0.user", "u")
            .set("shards.0.server.id", "5")
            .validate();
    assertThrows(UnsupportedOperationException.class, () -> c.shards().clear());
    assertThrows(UnsupportedOperationException.class, () -> c.captureSettings().clear());
  }

  @Test
  void aLocalClusterGivesOneSourceShardPerShardServer() {
    ClusterDescriptor d =
        new ClusterDescriptor(
            List.of(
                server("db1", "shard", 23306, 1),
                server("db2", "shard", 23307, 2),
                server("db3", "spare", 23308, 3)),
            new ClusterDescriptor.Broker("127.0.0.1:29092", 29092, 29093, 0));
    DaemonConfig c =
        DaemonConfig.forCluster(d, "commerce", List.of("-80", "80-"), List.of("topic.prefix=t"));
    assertEquals("127.0.0.1:29092", c.bootstrapServers());
    assertEquals(0, c.adminPort(), "any free port: the daemon records the one it got");
    assertEquals("t", c.topicPrefix());
    assertEquals(2, c.shards().size(), "spares are not captured");
    assertEquals(
        new SourceShard(
            "commerce", "80-", "127.0.0.1", 23307, "root", Secret.empty(), 4_200_002L, "current"),
        c.shards().get(1));
    assertEquals(
        List.of("commerce/-80", "commerce/80-"),
        DaemonConfig.forCluster(d, "commerce", null, List.of()).shards().stream()
            .map(SourceShard::id)
            .toList(),
        "no names: the even split");

    DaemonConfigException e =
        assertThrows(
            DaemonConfigException.class,
            () ->
                DaemonConfig.forCluster(d, "commerce", List.of("-40", "40-80", "80-"), List.of()));
    assertTrue(
        e.problems()
            .get(0)
            .startsWith("the cluster has 2 shard servers (db1, db2) but 3 shard names"),
        e.getMessage());
  }

  @Test
  void theReferenceTableNamesEveryKey() {
    String doc = DaemonConfig.documentation();
    DaemonConfig.KEYS.forEach(k -> assertTrue(doc.contains("`" + k.name() + "`"), k.name()));
    DaemonConfig.SHARD_KEYS.forEach(
        k -> assertTrue(doc.contains("`shards[]." + k.name() + "`"), k.name()));
  }

  @Test
  void theDocsPageHoldsTheGeneratedTable() throws Exception {
    String page = Files.readString(Path.of("..", "docs", "daemon.md"));
    int start = page.indexOf("<!-- keys:start -->\n") + "<!-- keys:start -->\n".length();
    int end = page.indexOf("<!-- keys:end -->");
    assertEquals(
        DaemonConfig.documentation(),
        page.substring(start, end),
        "regenerate the table in docs/daemon.md from DaemonConfig.documentation()");
    start = page.indexOf("<!-- stage-keys:start -->\n");
    end = page.indexOf("<!-- stage-keys:end -->");
    assertTrue(start >= 0 && end > start, "docs/daemon.md has the stage-keys markers");
    assertEquals(
        DaemonConfig.stageDocumentation(),
        page.substring(start + "<!-- stage-keys:start -->\n".length(), end),
        "regenerate the stage-keys table in docs/daemon.md from"
            + " DaemonConfig.stageDocumentation()");
  }

  @Test
  void theStageTableNamesEveryCopyDiffAndApplyKey() {
    String doc = DaemonConfig.stageDocumentation();
    List<String> names =
        DaemonConfig.STAGE_DEFS.stream()
            .flatMap(d -> d.keys().stream())
            .map(k -> k.name())
            .toList();
    names.forEach(n -> assertTrue(doc.contains("| `" + n + "` |"), n));
    assertTrue(names.contains("copy.chunk.rows"), names.toString());
    assertTrue(names.contains("diff.catch.up.timeout.ms"), names.toString());
    assertTrue(names.contains("apply.max.rows.per.commit"), names.toString());
    names.forEach(
        n ->
            assertTrue(
                DaemonConfig.KEYS.stream().noneMatch(k -> k.name().equals(n)),
                n + " is declared once"));
  }

  @Test
  void copyDiffAndApplyKeysInTheYamlAndOverridesReachTheirStages() throws Exception {
    DaemonConfig plain = DaemonConfig.builder().set("kafka.bootstrap.servers", "k:1").validate();
    assertEquals(CopierConfig.defaults(), plain.copierConfig());
    assertEquals(DifferConfig.defaults(), plain.differConfig());
    assertEquals(ApplyConfig.Settings.defaults(), plain.applySettings());

    Path f =
        yaml(
            """
            kafka.bootstrap.servers: k:1
            copy:
              chunk.rows: 5000
              throttle.recheck.ms: 250
            copy.coverage.timeout.ms: 60000
            diff.chunk.rows: 7000
            apply: {max.rows.per.commit: 300}
            """);
    DaemonConfig c =
        DaemonConfig.load(f, List.of("copy.max.chunk.attempts=9", "apply.poll.timeout.ms=50"));
    CopierConfig copy = c.copierConfig();
    assertEquals(5000, copy.initialChunkRows());
    assertEquals(Duration.ofMillis(250), copy.throttleRecheck());
    assertEquals(Duration.ofMinutes(1), copy.coverageTimeout());
    assertEquals(9, copy.maxChunkAttempts());
    assertEquals(CopierConfig.defaults().maxChunkRows(), copy.maxChunkRows());
    assertEquals(7000, c.differConfig().chunkRows());
    assertEquals(new ApplyConfig.Settings(300, Duration.ofMillis(50)), c.applySettings());
    assertEquals("5000", c.get("copy.chunk.rows"));
    assertTrue(c.describe().contains("copy.chunk.rows = 5000"), c.describe().toString());
    assertTrue(c.describe().contains("apply.poll.timeout.ms = 50"), c.describe().toString());
  }

  @Test
  void badCopyDiffAndApplyValuesAreReportedWithEveryOtherProblem() throws Exception {
    Path f =
        yaml(
            """
            kafka.bootstrap.servers: k:1
            admin.port: 99999
            bogus: 1
            copy.chunk.rows: 0
            copy.chunk.size: 5000
            diff.server.flavor: oracle
            apply.poll.timeout.ms: soon
            shards:
              - {keyspace: ks, shard: 'zz', host: h, user: u, server.id: 1}
            """);
    DaemonConfigException e =
        assertThrows(
            DaemonConfigException.class,
            () ->
                DaemonConfig.load(f, List.of("diff.chunk.rows=-5", "apply.max.rows.per.commit=")));
    List<String> p = e.problems();
    List<String> expected =
        List.of(
            "admin.port = '99999': must be between 0 and 65535",
            "copy.chunk.rows = '0': must be between 1 and 10000000",
            "diff.chunk.rows = '-5': must be between 1 and 10000000",
            "diff.server.flavor = 'oracle': must be one of [auto, mariadb, mysql8]",
            "apply.max.rows.per.commit = '': is not an integer",
            "apply.poll.timeout.ms = 'soon': is not an integer",
            "bogus: unknown key",
            "copy.chunk.size: unknown key",
            "shards.0.shard = 'zz': is not a shard name");
    List<String> missing = new ArrayList<>();
    for (String x : expected) {
      if (p.stream().noneMatch(line -> line.startsWith(x))) {
        missing.add(x);
      }
    }
    assertEquals(List.of(), missing, String.join("\n", p));

    DaemonConfigException cross =
        assertThrows(
            DaemonConfigException.class,
            () ->
                DaemonConfig.builder()
                    .set("kafka.bootstrap.servers", "k:1")
                    .set("copy.chunk.rows.min", "500")
                    .set("copy.chunk.rows.max", "400")
                    .set("admin.port", "x")
                    .validate());
    assertEquals(
        List.of(
            "admin.port = 'x': is not an integer",
            "copy.chunk.rows.max (400) must be at least copy.chunk.rows.min (500)"),
        cross.problems());
  }

  private static ClusterDescriptor.Server server(String name, String role, int port, int id) {
    return new ClusterDescriptor.Server(
        name, role, "127.0.0.1", port, "/tmp/" + name + ".sock", "root", id, 0, "/tmp/" + name);
  }
}
