package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.CaptureConfig;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PreflightTest {
  private static final CaptureConfig CONFIG =
      CaptureConfig.from(
          Map.of(
              "source.host",
              "h",
              "source.user",
              "cdc",
              "source.server.id",
              "900",
              "keyspace",
              "ks",
              "shard",
              "-80",
              "kafka.bootstrap.servers",
              "k:9092",
              "topic.prefix",
              "p"));
  private static final List<String> GRANTS =
      List.of("GRANT SELECT, RELOAD, REPLICATION SLAVE, BINLOG MONITOR ON *.* TO `cdc`@`%`");

  private static Preflight.ServerSettings good() {
    return new Preflight.ServerSettings(
        true, "ROW", "FULL", "FULL", false, 1, "10.11.19-MariaDB-log", GRANTS, true);
  }

  @Test
  void aFitSourcePasses() {
    assertEquals(List.of(), Preflight.problems(good(), CONFIG));
  }

  @Test
  void binlogOff() {
    assertOnly(with(false, "ROW", "FULL", "FULL", false, 1, GRANTS), "log_bin = OFF");
  }

  @Test
  void formatNotRow() {
    assertOnly(with(true, "MIXED", "FULL", "FULL", false, 1, GRANTS), "binlog_format is MIXED");
  }

  @Test
  void rowImageNotFull() {
    assertOnly(
        with(true, "ROW", "MINIMAL", "FULL", false, 1, GRANTS), "binlog_row_image is MINIMAL");
  }

  @Test
  void rowMetadataNotFull() {
    assertOnly(with(true, "ROW", "FULL", "MINIMAL", false, 1, GRANTS), "binlog_row_metadata");
  }

  @Test
  void compressedBinlog() {
    assertOnly(with(true, "ROW", "FULL", "FULL", true, 1, GRANTS), "log_bin_compress");
  }

  @Test
  void serverIdClash() {
    assertOnly(with(true, "ROW", "FULL", "FULL", false, 900, GRANTS), "source's own server_id");
  }

  @Test
  void missingReplicationSlave() {
    assertOnly(
        with(true, "ROW", "FULL", "FULL", false, 1, List.of("GRANT SELECT ON *.* TO `cdc`@`%`")),
        "lacks REPLICATION SLAVE");
  }

  @Test
  void missingSelect() {
    assertOnly(
        with(
            true,
            "ROW",
            "FULL",
            "FULL",
            false,
            1,
            List.of("GRANT REPLICATION SLAVE ON *.* TO `cdc`@`%`")),
        "lacks SELECT on ks");
  }

  @Test
  void databaseLevelSelectAndAllPrivilegesCount() {
    List<String> dbLevel =
        List.of(
            "GRANT REPLICATION SLAVE ON *.* TO `cdc`@`%`",
            "GRANT SELECT, INSERT ON `k%`.* TO `cdc`@`%`");
    assertEquals(
        List.of(),
        Preflight.problems(with(true, "ROW", "FULL", "FULL", false, 1, dbLevel), CONFIG));
    List<String> all =
        List.of("GRANT ALL PRIVILEGES ON *.* TO `root`@`localhost` WITH GRANT OPTION");
    assertEquals(
        List.of(), Preflight.problems(with(true, "ROW", "FULL", "FULL", false, 1, all), CONFIG));
  }

  @Test
  void mySqlPartialJsonIsRefusedWithItsFixAndCompressedPayloadsAreRead() {
    Preflight.ServerSettings mysql =
        new Preflight.ServerSettings(
            true, "ROW", "FULL", "FULL", false, 1, "8.0.31", GRANTS, true, true, true);
    List<String> problems = Preflight.problems(mysql, CONFIG);
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(
        problems.get(0).contains("SET GLOBAL binlog_row_value_options = ''"), problems.get(0));
    Preflight.ServerSettings compressed =
        new Preflight.ServerSettings(
            true, "ROW", "FULL", "FULL", false, 1, "8.0.31", GRANTS, true, true, false);
    assertEquals(List.of(), Preflight.problems(compressed, CONFIG));
  }

  @Test
  void everyProblemIsReportedAtOnce() {
    Preflight.ServerSettings bad =
        new Preflight.ServerSettings(
            false,
            "STATEMENT",
            "NOBLOB",
            "NO_LOG",
            true,
            900,
            "10.11.19-MariaDB",
            List.of(),
            false);
    assertEquals(9, Preflight.problems(bad, CONFIG).size());
  }

  @Test
  void grantPatternsFollowLikeRules() {
    assertTrue(Preflight.likeMatches("k\\_%", "k_s"));
    assertTrue(!Preflight.likeMatches("k\\_%", "kxs"));
    assertTrue(Preflight.likeMatches("k_", "ks"));
  }

  private static Preflight.ServerSettings with(
      boolean logBin,
      String format,
      String image,
      String metadata,
      boolean compress,
      long id,
      List<String> grants) {
    return new Preflight.ServerSettings(
        logBin, format, image, metadata, compress, id, "10.11.19-MariaDB-log", grants, true);
  }

  private static void assertOnly(Preflight.ServerSettings s, String expected) {
    List<String> problems = Preflight.problems(s, CONFIG);
    assertEquals(1, problems.size(), problems.toString());
    assertTrue(problems.get(0).contains(expected), problems.get(0));
  }
}
