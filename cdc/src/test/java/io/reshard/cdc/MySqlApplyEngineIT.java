package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.Flavor;
import io.reshard.core.position.GtidPosition;
import io.reshard.testkit.TestCluster;
import io.reshard.testkit.UseFlavor;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;

/**
 * {@link ApplyEngineIT} on MySQL 8.0.31: capture of the MySQL cluster's one shard into its change
 * topic and appliers into its two spares, with MySQL GTIDs; the same assertions, checked with plain
 * SQL on the MySQL servers (rows on the target their keyspace id names, moved by key changes, every
 * column kind byte for byte, a stop at a position, a DDL stop, a refused row, a restart without
 * duplicates or gaps).
 */
@UseFlavor(Flavor.MYSQL)
class MySqlApplyEngineIT extends ApplyEngineIT {
  MySqlApplyEngineIT(TestCluster cluster) {
    super(cluster);
  }

  @Override
  @Test
  @Disabled(
      "the applier's meters do not depend on the flavor: ApplyEngineIT checks them on MariaDB,"
          + " and their 12 s stay out of the MySQL run to keep the suite under 30 minutes")
  void lagAndThroughputMetersFollowTheApplier() {}

  /**
   * A signed column after a YEAR (MySQL gives YEAR a signedness bit): once captured as 4294967295
   * for -1, which the target's INT refused (error 1264, out of range), stopping the stream.
   */
  @Test
  void aSignedColumnAfterAYearIsAppliedAsWritten() throws Exception {
    long id =
        applyOneRow("w7", "years (id BIGINT PRIMARY KEY, y YEAR, i INT)", "years", "2024, -1");
    assertEquals(List.of(id + "|2024|-1"), rows(left, "SELECT id, y + 0, i FROM years"));
  }

  /**
   * A DATETIME and a DECIMAL inside a JSON value reach the target as the record's text, MySQL's
   * text form, which the target parses back as a string and a double.
   */
  @Test
  @Disabled(
      "bug: JSON_ARRAY(CAST('2024-02-29 12:34:56.5' AS DATETIME(6)), 1.50), [DATETIME, DECIMAL]"
          + " on the source, is applied as [\"2024-02-29 12:34:56.500000\", 1.5], [STRING, DOUBLE]:"
          + " MySQL's binary JSON written as its text does not parse back to the same document")
  void jsonWithTemporalAndDecimalScalarsIsAppliedAsWritten() throws Exception {
    applyOneRow(
        "w8",
        "jscalars (id BIGINT PRIMARY KEY, j JSON)",
        "jscalars",
        "JSON_ARRAY(CAST('2024-02-29 12:34:56.5' AS DATETIME(6)), 1.50)");
    String sql =
        "SELECT j, JSON_TYPE(JSON_EXTRACT(j, '$[0]')), JSON_TYPE(JSON_EXTRACT(j, '$[1]'))"
            + " FROM jscalars";
    assertEquals(rows(source, sql), rows(left, sql));
  }

  /**
   * Creates {@code definition} on the source and the left target, inserts one row of {@code c0-e0}
   * (its id, then {@code values}) on the source, and waits until applier {@code workflow} applied
   * it; returns the row's id.
   */
  private long applyOneRow(String workflow, String definition, String table, String values)
      throws Exception {
    for (ClusterDescriptor.Server s : List.of(source, left)) {
      exec(s, "CREATE TABLE " + definition + " ENGINE=InnoDB");
    }
    GtidPosition p0 = position(source);
    long id = idsIn("c0-e0", 1)[0];
    try (ApplyEngine l = applier(workflow, left, "c0-e0", p0, 1000)) {
      exec(source, "INSERT INTO " + table + " VALUES (" + id + ", " + values + ")");
      GtidPosition g = position(source);
      assertTrue(l.awaitApplied(topic, g, Duration.ofSeconds(30)), "applied: " + l.lastError());
    }
    return id;
  }
}
