package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowState;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reshard keyspace init} and {@code keyspace set-vschema} as an operator runs them against a
 * local cluster directory: exit codes, the printed reasons, and {@code shardmap history}.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KeyspaceCommandIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String SHARDS =
      "--shards=-80,80-"; // the cli module's cluster has two shards

  private final TestCluster cluster;
  private final String ks;
  @TempDir Path dir;

  /** What one command printed and returned. */
  record Run(int exit, String out, String err) {}

  KeyspaceCommandIT(TestCluster cluster) throws Exception {
    this.cluster = cluster;
    this.ks = cluster.database();
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
              + " body VARCHAR(100)) ENGINE=InnoDB",
          "CREATE TABLE users (id BIGINT PRIMARY KEY, email VARCHAR(64) NOT NULL) ENGINE=InnoDB");
    }
  }

  private Run cli(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    picocli.CommandLine cli = ReshardCli.newCommandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--cluster", cluster.dir().toString()));
    int exit = cli.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  private Path file(String name, String text) throws Exception {
    Path f = dir.resolve(name);
    Files.writeString(f, text, StandardCharsets.UTF_8);
    return f;
  }

  private static String vschema(String messagesColumn, String usersVindex) {
    return "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"},"
        + " \"xxhash\": {\"type\": \"xxhash\"}}, \"tables\": {"
        + "\"messages\": {\"column_vindexes\": [{\"column\": \""
        + messagesColumn
        + "\", \"name\": \"hash\"}]},"
        + " \"users\": {\"column_vindexes\": [{\"column\": \"email\", \"name\": \""
        + usersVindex
        + "\"}]}}}";
  }

  private List<JsonNode> history() throws Exception {
    Run h = cli("shardmap", "history", "--keyspace", ks, "--output", "json");
    assertEquals(0, h.exit(), h.err());
    List<JsonNode> versions = new ArrayList<>();
    JSON.readTree(h.out()).forEach(versions::add);
    return versions;
  }

  @Test
  @Order(1)
  void initRefusesAVSchemaThatDoesNotFitTheTablesWithEveryReason() throws Exception {
    Path bad = file("bad.json", vschema("chan", "hash"));
    Run r = cli("keyspace", "init", "--keyspace", ks, "--vschema", bad.toString(), SHARDS);
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(r.err().contains("keyspace init of " + ks + " refused, for 2 reasons"), r.err());
    assertTrue(r.err().contains("table messages has no column chan"), r.err());
    assertTrue(r.err().contains("cannot map column email of type varchar(64)"), r.err());
    Run show = cli("shardmap", "show", "--keyspace", ks);
    assertEquals(ExitCodes.REFUSED, show.exit(), "no map was published: " + show.out());
  }

  @Test
  @Order(2)
  void setVSchemaReplacesTheVSchemaAndHistoryShowsTheNewVersion() throws Exception {
    Path v1 = file("v1.json", vschema("channel_id", "xxhash"));
    Run init = cli("keyspace", "init", "--keyspace", ks, "--vschema", v1.toString(), SHARDS);
    assertEquals(ExitCodes.OK, init.exit(), init.err());

    String v2Text =
        "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"}}, \"tables\": {"
            + "\"messages\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]},"
            + " \"users\": {\"column_vindexes\": [{\"column\": \"id\", \"name\": \"hash\"}]}}}";
    Path v2 = file("v2.json", v2Text);
    Run set = cli("keyspace", "set-vschema", "--keyspace", ks, "--vschema", v2.toString());
    assertEquals(ExitCodes.OK, set.exit(), set.err());
    assertEquals(
        "keyspace "
            + ks
            + ": shard map version 2 published with the new vschema; shards and epochs"
            + " unchanged\n",
        set.out());

    List<JsonNode> versions = history();
    assertEquals(2, versions.size());
    assertEquals(JSON.readTree(v2Text), versions.get(1).get("vschema"));
    assertEquals(versions.get(0).get("shards"), versions.get(1).get("shards"));

    Run again = cli("keyspace", "set-vschema", "--keyspace", ks, "--vschema", v2.toString());
    assertEquals(ExitCodes.OK, again.exit(), again.err());
    assertTrue(again.out().contains("version 2 has this vschema already"), again.out());
    assertEquals(2, history().size());
  }

  @Test
  @Order(3)
  void setVSchemaIsRefusedWhileAWorkflowMovesTheKeyspace() throws Exception {
    Path v3 = file("v3.json", vschema("channel_id", "xxhash"));
    Workflow w =
        Workflow.create(
            ks + "_split", ks, List.of("80-"), List.of("80-c0", "c0-"), "1-1-1", Instant.now());
    try (KafkaWorkflowStore store =
        KafkaWorkflowStore.open(cluster.bootstrap(), KafkaWorkflowStore.DEFAULT_TOPIC)) {
      store.save(w.transition(WorkflowState.COPYING, Instant.now()));
      Run r = cli("keyspace", "set-vschema", "--keyspace", ks, "--vschema", v3.toString());
      assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
      assertTrue(
          r.err().contains("workflow " + ks + "_split (COPYING) moves keyspace " + ks), r.err());
      assertEquals(2, history().size(), "nothing published");
      store.save(
          w.transition(WorkflowState.COPYING, Instant.now())
              .transition(WorkflowState.CANCELLED, Instant.now()));
    }
  }

  @Test
  @Order(4)
  void setVSchemaRefusesABadVSchemaWithEveryReason() throws Exception {
    Path bad =
        file(
            "bad2.json",
            vschema("chan", "hash").replace("\"sharded\": true", "\"sharded\": false"));
    Run r = cli("keyspace", "set-vschema", "--keyspace", ks, "--vschema", bad.toString());
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(
        r.err().contains("the vschema of keyspace " + ks + " not replaced, for 3 reasons"),
        r.err());
    assertTrue(r.err().contains("the vschema is not sharded"), r.err());
    assertTrue(r.err().contains("table messages has no column chan"), r.err());
    assertTrue(r.err().contains("cannot map column email"), r.err());
    assertEquals(2, history().size(), "nothing published");
  }

  @Test
  @Order(5)
  void anOperatorCommandPrintsItsOwnOutputAndNoInfoLogLines() throws Exception {
    Path v1 = file("v1-again.json", vschema("channel_id", "xxhash"));
    // a JVM of its own, as the launcher runs it: its log configuration is the CLI's, not the tests'
    // (the shard map publisher logs at INFO as it opens and publishes)
    CliProcess.Run r =
        CliProcess.run(
            "keyspace",
            "set-vschema",
            "--keyspace",
            ks,
            "--vschema",
            v1.toString(),
            "--cluster",
            cluster.dir().toString());
    assertEquals(ExitCodes.OK, r.exit(), r.err());
    assertTrue(r.out().contains("shard map version 3 published with the new vschema"), r.out());
    assertTrue(r.err().lines().noneMatch(l -> l.contains(" INFO ")), "no INFO lines: " + r.err());
  }
}
