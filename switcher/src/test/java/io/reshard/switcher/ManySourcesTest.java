package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.router.VSchema;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The shapes of a workflow of several sources that need no server: streams, keys, refusals. */
class ManySourcesTest {

  @Test
  void eachForwardStreamReadsTheSourcesItsTargetOverlapsAndEachReverseStreamTheTargets()
      throws Exception {
    WorkflowSpec spec = spec("w", List.of("-80", "80-"), List.of("-55", "55-aa", "aa-"));
    try (Streams streams = new Streams(spec, null, null)) {
      assertEquals(List.of("-80"), names(streams.readBy(shard("-55"), true)));
      assertEquals(List.of("-80", "80-"), names(streams.readBy(shard("55-aa"), true)));
      assertEquals(List.of("80-"), names(streams.readBy(shard("aa-"), true)));
      assertEquals(List.of("-55", "55-aa"), names(streams.readBy(shard("-80"), false)));
      assertEquals(List.of("55-aa", "aa-"), names(streams.readBy(shard("80-"), false)));
    }
  }

  @Test
  void aSplitOfEveryShardPairsEachTargetWithItsOwnSourceOnly() throws Exception {
    WorkflowSpec spec = spec("w", List.of("-80", "80-"), List.of("-40", "40-80", "80-c0", "c0-"));
    try (Streams streams = new Streams(spec, null, null)) {
      assertEquals(List.of("-80"), names(streams.readBy(shard("40-80"), true)));
      assertEquals(List.of("80-"), names(streams.readBy(shard("80-c0"), true)));
      assertEquals(List.of("80-c0", "c0-"), names(streams.readBy(shard("80-"), false)));
    }
  }

  @Test
  void progressIsKeptByNameForOneSourceAndByNameAndSourceForSeveral() {
    assertEquals(
        "split", spec("split", List.of("80-"), List.of("80-c0", "c0-")).stateKey(shard("80-")));
    WorkflowSpec merge = spec("merge", List.of("-80", "80-"), List.of("-"));
    assertEquals("merge/-80", merge.stateKey(shard("-80")));
    assertEquals("merge/80-", merge.stateKey(shard("80-")));
  }

  @Test
  void aNameTooLongForTheProgressKeysOfSeveralSourcesIsRefused() {
    String name = "m".repeat(61);
    assertEquals(
        Optional.empty(),
        CreatePhase.stateKeyTooLong(spec(name, List.of("80-"), List.of("80-c0", "c0-"))),
        "one source: the name alone is the key");
    String reason =
        CreatePhase.stateKeyTooLong(spec(name, List.of("-80", "80-"), List.of("-"))).orElseThrow();
    assertTrue(reason.contains("is too long for a workflow of 2 sources"), reason);
    assertTrue(reason.contains(name + "/-80 (65 characters, at most 64)"), reason);
    assertTrue(reason.contains("choose a name of at most 60 characters"), reason);
    assertEquals(
        Optional.empty(),
        CreatePhase.stateKeyTooLong(spec("m".repeat(60), List.of("-80", "80-"), List.of("-"))));
  }

  @Test
  void tableDefinitionsAreComparedWithoutTheirNextAutoIncrementValue() {
    String a =
        "CREATE TABLE `t` (\n  `id` bigint(20) NOT NULL AUTO_INCREMENT,\n  PRIMARY KEY (`id`)\n)"
            + " ENGINE=InnoDB AUTO_INCREMENT=1201 DEFAULT CHARSET=utf8mb4";
    String b = a.replace("AUTO_INCREMENT=1201", "AUTO_INCREMENT=7");
    assertEquals(SourceTables.normalized(a), SourceTables.normalized(b));
    assertTrue(SourceTables.normalized(a).contains("NOT NULL AUTO_INCREMENT,"), "the column's own");
    String c = a.replace("bigint(20)", "int(11)");
    assertTrue(!SourceTables.normalized(a).equals(SourceTables.normalized(c)));
  }

  private static List<String> names(List<ShardServer> servers) {
    return MapChanges.names(servers);
  }

  private static WorkflowSpec spec(String name, List<String> sources, List<String> targets) {
    return new WorkflowSpec(
        name,
        "chat",
        VSchema.parse("{\"sharded\": true, \"vindexes\": {}, \"tables\": {}}"),
        sources.stream().map(ManySourcesTest::shard).toList(),
        targets.stream().map(ManySourcesTest::shard).toList(),
        "localhost:9",
        "reshard",
        "reshard.shardmaps",
        Duration.ofSeconds(1),
        Duration.ofSeconds(1),
        Duration.ofSeconds(1));
  }

  private static ShardServer shard(String name) {
    return new ShardServer(name, "db", "127.0.0.1", 3306, "root", "", 1);
  }

  @Test
  void theNameLengthAdviceCountsTheLongestSource() {
    String reason =
        CreatePhase.stateKeyTooLong(spec("m".repeat(60), List.of("-40", "40-80"), List.of("-80")))
            .orElseThrow();
    assertTrue(reason.contains("/40-80 (66 characters"), reason);
    assertTrue(reason.contains("choose a name of at most 58 characters"), reason);
    assertEquals(
        Optional.empty(),
        CreatePhase.stateKeyTooLong(spec("m".repeat(58), List.of("-40", "40-80"), List.of("-80"))),
        "the advice holds");
  }

  @Test
  void aDifferenceInTableDefinitionsIsNamedByItsFirstLine() {
    String a = "CREATE TABLE `t` (\n  `id` bigint(20) NOT NULL,\n  `v` varchar(64) DEFAULT NULL\n)";
    String b = a.replace("varchar(64)", "varchar(65)");
    assertEquals(
        "on -80 `v` varchar(64) DEFAULT NULL, on 80- `v` varchar(65) DEFAULT NULL",
        SourceTables.firstDifference(a, b, "-80", "80-"));
    assertEquals(
        "on -80 ), on 80- KEY `k` (`v`)",
        SourceTables.firstDifference(
            a, a.replace("NULL\n)", "NULL\n  KEY `k` (`v`)\n)"), "-80", "80-"));
  }
}
