package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.core.position.GtidPosition;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** {@code reshard cdc tail} prints what capture published, as a read_committed consumer sees it. */
@ExtendWith(LocalClusterExtension.class)
class CdcTailIT {

  @Test
  void tailPrintsTheShardsRowChangesAndTransactionsAsJsonLines(TestCluster cluster)
      throws Exception {
    ClusterDescriptor.Server db1 = cluster.shards().get(0);
    cluster.execute(db1, "CREATE TABLE notes (id INT PRIMARY KEY, body VARCHAR(20)) ENGINE=InnoDB");
    Map<String, String> m =
        CaptureConfig.forServer(
            db1.host(),
            db1.port(),
            db1.user(),
            "",
            7201,
            cluster.database(),
            "-40",
            cluster.bootstrap(),
            cluster.topicPrefix());
    m.put("heartbeat.interval.ms", "500");
    try (CaptureEngine capture = new CaptureEngine(CaptureConfig.from(m))) {
      capture.start();
      cluster.execute(
          db1,
          "INSERT INTO notes VALUES (1, 'one'), (2, 'two')",
          "UPDATE notes SET body = 'uno' WHERE id = 1",
          "DELETE FROM notes WHERE id = 2");
      GtidPosition end;
      try (Connection c = cluster.connect(db1);
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT @@gtid_binlog_pos")) {
        rs.next();
        end = GtidPosition.parse(rs.getString(1));
      }
      long deadline = System.nanoTime() + 60_000_000_000L;
      while (!capture.committedPosition().map(p -> p.gtids().covers(end)).orElse(false)) {
        assertTrue(System.nanoTime() < deadline, "capture did not reach " + end);
        Thread.sleep(50);
      }
      // capture keeps running, and writes a heartbeat every 500 ms: they must not keep the tail
      // from going idle, nor be printed without --heartbeats
      ReshardLauncherIT.Run r =
          ReshardLauncherIT.reshard(
              "cdc",
              "tail",
              "--cluster",
              cluster.dir().toString(),
              "--keyspace",
              cluster.database(),
              "--shard=-40",
              "--topic-prefix",
              cluster.topicPrefix(),
              "--from-beginning",
              "--idle-timeout",
              "3");
      assertEquals(0, r.exit(), r.err());
      ObjectMapper json = new ObjectMapper();
      List<String> ops = new ArrayList<>();
      int begins = 0;
      int ends = 0;
      for (String line : r.out().lines().toList()) {
        JsonNode v = json.readTree(line);
        if (v.has("op") && "notes".equals(v.path("source").path("table").asText())) {
          ops.add(
              v.get("op").asText()
                  + ":"
                  + (v.get("after").isNull() ? v.get("before") : v.get("after")).get("id").asInt());
          assertEquals(cluster.database(), v.get("source").get("db").asText());
          assertTrue(v.get("source").get("gtid").asText().startsWith("1-1-"), line);
        } else if ("BEGIN".equals(v.path("status").asText())) {
          begins++;
        } else if ("END".equals(v.path("status").asText())) {
          ends++;
        }
      }
      assertEquals(List.of("c:1", "c:2", "u:1", "d:2"), ops, r.out());
      assertTrue(begins >= 3 && begins == ends, "BEGIN " + begins + ", END " + ends);
      assertEquals(
          0,
          r.out().lines().filter(l -> l.contains("\"position\":{")).count(),
          "no heartbeat without --heartbeats: " + r.out());

      // the reader of its pipe exits: so does the tail, at its next record (a heartbeat here)
      String cmd =
          String.join(
              " ",
              ReshardLauncherIT.REPO.resolve("reshard").toString(),
              "cdc tail --cluster",
              cluster.dir().toString(),
              "--keyspace",
              cluster.database(),
              "--shard=-40 --topic-prefix",
              cluster.topicPrefix(),
              "--from-beginning --heartbeats | head -n 2");
      java.nio.file.Path out = java.nio.file.Files.createTempFile("tail-head", ".txt");
      Process p =
          new ProcessBuilder("sh", "-c", cmd)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .directory(ReshardLauncherIT.REPO.toFile())
              .start();
      boolean ended = p.waitFor(2, TimeUnit.MINUTES);
      if (!ended) {
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
      }
      String piped = java.nio.file.Files.readString(out, StandardCharsets.UTF_8);
      java.nio.file.Files.delete(out);
      assertTrue(ended, "the tail went on after head exited: " + piped);
      assertEquals(0, p.exitValue(), piped);
      assertEquals(2, piped.lines().filter(l -> l.startsWith("{")).count(), piped);
    }
  }

  @Test
  void tailOnAShardWithoutATopicIsRefused(TestCluster cluster) throws Exception {
    ReshardLauncherIT.Run r =
        ReshardLauncherIT.reshard(
            "cdc",
            "tail",
            "--cluster",
            cluster.dir().toString(),
            "--keyspace",
            cluster.database(),
            "--shard=80-c0",
            "--topic-prefix",
            cluster.topicPrefix() + "-none",
            "--max",
            "1");
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(
        r.err().contains("no keyspace " + cluster.database() + " has change topics under prefix"),
        r.err());
    assertTrue(r.err().contains("no keyspace has any: is capture running?"), r.err());
  }

  @Test
  void tailOfAKeyspaceWithoutTopicsNamesTheKeyspacesThatHaveThem(TestCluster cluster)
      throws Exception {
    String prefix = cluster.topicPrefix() + "-tailks";
    try (org.apache.kafka.clients.admin.Admin admin =
        org.apache.kafka.clients.admin.Admin.create(
            Map.of("bootstrap.servers", cluster.bootstrap()))) {
      admin
          .createTopics(
              List.of(
                  new org.apache.kafka.clients.admin.NewTopic(prefix + ".shop.-80", 1, (short) 1)))
          .all()
          .get();
    }
    ReshardLauncherIT.Run misspelt = tail(cluster, prefix, "--keyspace", "shopp", "--shard=-80");
    assertEquals(3, misspelt.exit(), misspelt.out() + misspelt.err());
    assertTrue(
        misspelt.err().contains("no keyspace shopp has change topics under prefix " + prefix),
        misspelt.err());
    assertTrue(misspelt.err().contains("keyspaces with change topics: shop"), misspelt.err());
    ReshardLauncherIT.Run noShard = tail(cluster, prefix, "--keyspace", "shop", "--shard=80-");
    assertEquals(3, noShard.exit(), noShard.out() + noShard.err());
    assertTrue(
        noShard.err().contains("topic " + prefix + ".shop.80- does not exist; is capture running"),
        noShard.err());
    ReshardLauncherIT.Run noStream = tail(cluster, prefix, "--keyspace", "shop");
    assertEquals(3, noStream.exit(), noStream.out() + noStream.err());
    assertTrue(noStream.err().contains("keyspace.stream.enabled=true"), noStream.err());
  }

  @Test
  void tailWithTheClustersBrokerDownIsRefusedAtOnce(TestCluster cluster) throws Exception {
    // a copy of the descriptor in another directory: none of its processes are this directory's
    java.nio.file.Path copy = java.nio.file.Files.createTempDirectory("tail-down");
    java.nio.file.Files.copy(
        cluster.dir().resolve(ClusterDescriptor.FILE_NAME),
        copy.resolve(ClusterDescriptor.FILE_NAME));
    long start = System.nanoTime();
    ReshardLauncherIT.Run r =
        ReshardLauncherIT.reshard(
            "cdc",
            "tail",
            "--cluster",
            copy.toString(),
            "--keyspace",
            cluster.database(),
            "--max",
            "1");
    long seconds = (System.nanoTime() - start) / 1_000_000_000L;
    assertEquals(3, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("the local cluster's Kafka broker is down"), r.err());
    assertTrue(r.err().contains("reshard cluster up --dir " + copy), r.err());
    assertTrue(seconds < 25, "refused after " + seconds + " s, not at once");
  }

  private static ReshardLauncherIT.Run tail(TestCluster cluster, String prefix, String... args)
      throws Exception {
    List<String> cmd =
        new ArrayList<>(List.of("cdc", "tail", "--cluster", cluster.dir().toString()));
    cmd.addAll(List.of(args));
    cmd.addAll(List.of("--topic-prefix", prefix, "--max", "1"));
    return ReshardLauncherIT.reshard(cmd.toArray(String[]::new));
  }
}
