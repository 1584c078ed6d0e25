package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyRangePartition;
import io.reshard.router.KeyspaceId;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code reshard plan} against the real shard servers of a keyspace with skewed rows: {@code
 * messages} (hash on channel_id, channel 1 holding 1,800 of 6,000 messages) and {@code events}
 * (numeric on user_id 1..3,000, so every keyspace id begins with 00 and the even split puts all of
 * them in its first range). The plan's ranges must cover the keyspace and its busiest share must be
 * below the even split's; every refusal that needs a server is here too.
 */
@ExtendWith(LocalClusterExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PlanCommandIT {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Vindex HASH = Vindex.of(VindexType.fromVitessName("hash"));
  private static final KeyRange LOW = KeyRange.parse("-80"); // shards: -80, 80-
  private static final int MESSAGES = 6000;
  private static final int HOT_MESSAGES = 1800;
  private static final int EVENTS = 3000;
  private static final int ROWS = MESSAGES + EVENTS;
  private static final String VSCHEMA =
      "{\"sharded\": true, \"vindexes\": {\"hash\": {\"type\": \"hash\"},"
          + " \"numeric\": {\"type\": \"numeric\"}}, \"tables\": {"
          + "\"messages\": {\"column_vindexes\": [{\"column\": \"channel_id\", \"name\": \"hash\"}]},"
          + " \"events\": {\"column_vindexes\": [{\"column\": \"user_id\", \"name\": \"numeric\"}]}}}";

  private final TestCluster cluster;
  private final String ks;
  private final String emptyKs;
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  PlanCommandIT(TestCluster cluster) {
    this.cluster = cluster;
    this.ks = cluster.database();
    this.emptyKs = ks + "_empty";
  }

  @BeforeAll
  void loadSkewedRowsAndInitTheKeyspaces(@TempDir Path tmp) throws Exception {
    List<List<String>> messages = List.of(new ArrayList<>(), new ArrayList<>());
    for (int id = 1; id <= MESSAGES; id++) {
      long channel = id <= HOT_MESSAGES ? 1 : 2 + id % 1000;
      messages.get(shardOf(HASH.keyspaceId(channel))).add("(" + id + ", " + channel + ")");
    }
    List<String> events = new ArrayList<>();
    for (int id = 1; id <= EVENTS; id++) {
      events.add("(" + id + ", " + id + ")"); // numeric ksids 00...: all on -80
    }
    List<ClusterDescriptor.Server> shards = cluster.shards();
    for (int i = 0; i < 2; i++) {
      ClusterDescriptor.Server s = shards.get(i);
      cluster.execute(
          s,
          "CREATE TABLE messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL)",
          "CREATE TABLE events (id BIGINT PRIMARY KEY, user_id BIGINT NOT NULL)",
          "INSERT INTO messages VALUES " + String.join(",", messages.get(i)),
          "CREATE DATABASE " + emptyKs,
          "CREATE TABLE " + emptyKs + ".messages (id BIGINT PRIMARY KEY, channel_id BIGINT)",
          "CREATE TABLE " + emptyKs + ".events (id BIGINT PRIMARY KEY, user_id BIGINT)");
    }
    cluster.execute(shards.get(0), "INSERT INTO events VALUES " + String.join(",", events));
    Path vschema = tmp.resolve("vschema.json");
    Files.writeString(vschema, VSCHEMA, StandardCharsets.UTF_8);
    for (String keyspace : List.of(ks, emptyKs)) {
      Run init =
          cli(
              "keyspace",
              "init",
              "--keyspace",
              keyspace,
              "--vschema",
              vschema.toString(),
              "--shards=-80,80-");
      assertEquals(ExitCodes.OK, init.exit(), init.err());
    }
  }

  private static int shardOf(KeyspaceId ksid) {
    return LOW.contains(ksid) ? 0 : 1;
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

  private JsonNode planJson(String... args) throws Exception {
    List<String> all = new ArrayList<>(List.of("plan", "--keyspace", ks, "--output", "json"));
    all.addAll(List.of(args));
    Run r = cli(all.toArray(String[]::new));
    assertEquals(ExitCodes.OK, r.exit(), r.err() + r.out());
    return JSON.readTree(r.out());
  }

  private static List<KeyRange> ranges(JsonNode array) {
    List<KeyRange> out = new ArrayList<>();
    array.forEach(t -> out.add(KeyRange.parse(t.get("range").asText())));
    return out;
  }

  @Test
  void thePlanCoversTheKeyspaceAndItsBusiestShareIsBelowTheEvenSplits() throws Exception {
    JsonNode plan = planJson("--shards", "4");
    assertEquals(ROWS, plan.at("/sample/counted_rows").asLong());
    assertEquals(ROWS, plan.at("/sample/sampled_rows").asLong(), "every row read");
    List<KeyRange> targets = ranges(plan.get("targets"));
    assertEquals(4, targets.size());
    KeyRangePartition.of(targets); // contiguous, no overlap, covering -
    assertEquals(KeyRange.FULL, KeyRange.mergeAll(targets));
    double sum = 0;
    for (JsonNode t : plan.get("targets")) {
      sum += t.get("rows").asDouble();
    }
    assertEquals(ROWS, sum, 1e-6, "every row is in one range");
    double busiest = plan.at("/busiest/share").asDouble();
    double even = plan.at("/even_split/busiest/share").asDouble();
    assertEquals("-40", plan.at("/even_split/busiest/range").asText());
    assertTrue(even > 0.4, "the even split's -40 holds every event: " + even);
    assertTrue(busiest < even, busiest + " vs " + even);
    assertEquals(plan.get("targets_list").asText(), String.join(",", names(targets)));
  }

  @Test
  void textOutputShowsEachRangeTheBusiestShareAndTheTargets() {
    Run r = cli("plan", "--keyspace", ks, "--shards", "4");
    assertEquals(ExitCodes.OK, r.exit(), r.err());
    assertTrue(
        r.out().contains("keyspace " + ks + ": 4 ranges over -, from 9,000 of 9,000 rows"),
        r.out());
    assertTrue(r.out().contains("every row read, at most 100,000 rows per table per shard"));
    assertTrue(r.out().contains("busiest share: "), r.out());
    assertTrue(r.out().contains("the even split into 4 (-40,40-80,80-c0,c0-) on the same sample"));
    assertTrue(r.out().contains("\ntargets: -"), r.out());
  }

  @Test
  void aHotChannelIsNamedWithItsShare() throws Exception {
    JsonNode plan = planJson("--shards", "8");
    JsonNode hot = plan.get("hot_keys");
    assertEquals(1, hot.size(), hot.toString());
    assertEquals(HASH.keyspaceId(1L).hex(), hot.get(0).get("keyspace_id").asText());
    assertEquals("messages.channel_id=1", hot.get(0).get("example").asText());
    assertEquals(0.2, hot.get(0).get("share").asDouble(), 1e-9);
    assertEquals(0.2, plan.at("/busiest/share").asDouble(), 1e-9, "no range does better");
    Run text = cli("plan", "--keyspace", ks, "--shards", "8");
    assertTrue(
        text.out()
            .contains(
                "hot keyspace id "
                    + HASH.keyspaceId(1L)
                    + " (messages.channel_id=1): 1,800 rows, 20.0%, more than an even share"
                    + " (12.5%); no range can split one keyspace id"),
        text.out());
  }

  @Test
  void printTargetsPrintsOnlyTheTargetsList() throws Exception {
    String expected = planJson("--shards", "3").get("targets_list").asText();
    Run r = cli("plan", "--keyspace", ks, "--shards", "3", "--print-targets");
    assertEquals(ExitCodes.OK, r.exit(), r.err());
    assertEquals(expected + "\n", r.out());
    assertTrue(r.err().contains("busiest share: "), r.err());
  }

  @Test
  void aSampleSaysHowMuchItReadAndStillBeatsTheEvenSplit() throws Exception {
    JsonNode plan = planJson("--shards", "4", "--sample", "500");
    assertEquals(ROWS, plan.at("/sample/counted_rows").asLong());
    long sampled = plan.at("/sample/sampled_rows").asLong();
    assertTrue(sampled > 1000 && sampled < 3000, "about 500 per table per shard: " + sampled);
    assertEquals(
        ROWS,
        plan.at("/busiest/rows").asDouble() / plan.at("/busiest/share").asDouble(),
        1,
        "the sample stands for every row");
    assertTrue(
        plan.at("/busiest/share").asDouble() < plan.at("/even_split/busiest/share").asDouble());
    Run text = cli("plan", "--keyspace", ks, "--shards", "4", "--sample", "500");
    assertTrue(text.out().contains("of 9,000 rows (2 tables on 2 shards; sampled, at most 500"));
  }

  @Test
  void aSourcePlansWithinItsShards() throws Exception {
    JsonNode plan = planJson("--shards", "2", "--source=80-");
    assertEquals("80-", plan.get("range").asText());
    List<KeyRange> targets = ranges(plan.get("targets"));
    assertEquals(KeyRange.parse("80-"), KeyRange.mergeAll(targets));
    assertTrue(plan.at("/sample/counted_rows").asLong() < MESSAGES, "only 80-'s messages");
    assertEquals("-", planJson("--shards", "2", "--source=-80,80-").get("range").asText());
  }

  @Test
  void aMaxShareGivesTheFewestRangesWithinIt() throws Exception {
    JsonNode plan = planJson("--max-share", "0.25");
    for (JsonNode t : plan.get("targets")) {
      assertTrue(t.get("share").asDouble() <= 0.25, t.toString());
    }
    int n = plan.get("targets").size();
    assertTrue(n >= 4, "a quarter each at best: " + n);
    double fewer = planJson("--shards", "" + (n - 1)).at("/busiest/share").asDouble();
    assertTrue(fewer > 0.25, "one range fewer cannot stay within 25%: " + fewer);
  }

  @Test
  void aMaxShareBelowTheHotChannelsShareIsRefusedNamingIt() {
    Run r = cli("plan", "--keyspace", ks, "--max-share", "0.15");
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(r.err().contains("(messages.channel_id=1) holds 20.0% of the rows"), r.err());
    assertTrue(r.err().contains("allow a larger share"), r.err());
  }

  @Test
  void anUnknownKeyspaceIsRefused() {
    Run r = cli("plan", "--keyspace", "nosuch", "--shards", "2");
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(r.err().contains("keyspace nosuch has no shard map"), r.err());
    assertTrue(r.err().contains("reshard keyspace init"), r.err());
  }

  @Test
  void aKeyspaceWithoutRowsIsRefused() {
    Run r = cli("plan", "--keyspace", emptyKs, "--shards", "2");
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(r.err().contains("no rows to plan by in - (2 tables read on 2 shards, 0 rows"));
    assertTrue(r.err().contains("load the data first"), r.err());
  }

  @Test
  void aShardWithoutTheKeyspacesDatabaseIsRefusedNamingIt() throws Exception {
    String gone = ks + "_gone";
    Path vschema = dir.resolve("vschema.json");
    Files.writeString(vschema, VSCHEMA, StandardCharsets.UTF_8);
    for (ClusterDescriptor.Server s : cluster.shards()) {
      cluster.execute(
          s,
          "CREATE DATABASE " + gone,
          "CREATE TABLE " + gone + ".messages (id BIGINT PRIMARY KEY, channel_id BIGINT)",
          "CREATE TABLE " + gone + ".events (id BIGINT PRIMARY KEY, user_id BIGINT)");
    }
    Run init =
        cli(
            "keyspace",
            "init",
            "--keyspace",
            gone,
            "--vschema",
            vschema.toString(),
            "--shards=-80,80-");
    assertEquals(ExitCodes.OK, init.exit(), init.err());
    cluster.execute(cluster.shards().get(1), "DROP DATABASE " + gone);
    Run r = cli("plan", "--keyspace", gone, "--shards", "2");
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(
        r.err().contains("the keyspace's database " + gone + " does not exist on shard 80-"),
        r.err());
  }

  @Test
  void moreRangesThanDistinctKeyspaceIdsIsRefused() {
    // 1,001 channels and 3,000 users: 4,001 distinct keyspace ids
    Run r = cli("plan", "--keyspace", ks, "--shards", "5000");
    assertEquals(ExitCodes.REFUSED, r.exit(), r.err());
    assertTrue(r.err().contains("only 4001 distinct keyspace ids in -"), r.err());
  }

  @Test
  void aSourceThatIsNotAShardIsAUsageError() {
    Run r = cli("plan", "--keyspace", ks, "--shards", "2", "--source=-40");
    assertEquals(ExitCodes.USAGE, r.exit(), r.err());
    assertTrue(r.err().contains("--source -40 is not a shard of keyspace " + ks), r.err());
    assertTrue(r.err().contains("its shards are -80,80-"), r.err());
    Run overlap = cli("plan", "--keyspace", ks, "--shards", "2", "--source=-80,-80");
    assertEquals(ExitCodes.USAGE, overlap.exit(), overlap.err());
    assertTrue(overlap.err().contains("they overlap"), overlap.err());
  }

  @Test
  void aTableNotInTheVSchemaIsAUsageError() {
    Run r = cli("plan", "--keyspace", ks, "--shards", "2", "--tables=nosuch");
    assertEquals(ExitCodes.USAGE, r.exit(), r.err());
    assertTrue(r.err().contains("table nosuch is not in the vschema"), r.err());
    JsonNode ok;
    try {
      ok = planJson("--shards", "2", "--tables=events");
    } catch (Exception e) {
      throw new AssertionError(e);
    }
    assertEquals(EVENTS, ok.at("/sample/counted_rows").asLong(), "events only");
  }

  private static List<String> names(List<KeyRange> ranges) {
    return ranges.stream().map(KeyRange::name).toList();
  }
}
