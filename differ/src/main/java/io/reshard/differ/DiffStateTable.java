package io.reshard.differ;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.router.ReshardSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * {@code _reshard.diff_state} on the diffed target: per (workflow, table) how far the diff has
 * come, so that a stopped diff resumes after its last compared key. Saved after every chunk.
 *
 * <p>Columns: {@code workflow}, {@code table_name}, {@code lastpk} (the last key compared, stored
 * as {@link io.reshard.core.rows.RowKey#toJson} writes it; NULL before the first chunk), the counts
 * of {@link TableDiff} ({@code compared}, {@code matching}, {@code mismatched}, {@code
 * extra_source}, {@code extra_target}, {@code repaired}), {@code samples} (JSON), {@code
 * source_position} (G of the snapshot the last chunk was read at), {@code done}, {@code
 * updated_at}.
 *
 * <p>Stateless and thread-safe; every method runs in the caller's transaction.
 */
public final class DiffStateTable {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Creates the table. */
  public static final String CREATE =
      "CREATE TABLE IF NOT EXISTS "
          + ReshardSchema.DATABASE
          + ".diff_state ("
          + " workflow VARBINARY(64) NOT NULL,"
          + " table_name VARBINARY(64) NOT NULL,"
          + " lastpk BLOB NULL,"
          + " compared BIGINT NOT NULL DEFAULT 0,"
          + " matching BIGINT NOT NULL DEFAULT 0,"
          + " mismatched BIGINT NOT NULL DEFAULT 0,"
          + " extra_source BIGINT NOT NULL DEFAULT 0,"
          + " extra_target BIGINT NOT NULL DEFAULT 0,"
          + " repaired BIGINT NOT NULL DEFAULT 0,"
          + " samples LONGBLOB NULL,"
          + " source_position VARBINARY(4096) NULL,"
          + " done TINYINT NOT NULL DEFAULT 0,"
          + " updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)"
          + " ON UPDATE CURRENT_TIMESTAMP(6),"
          + " PRIMARY KEY (workflow, table_name)"
          + ") ENGINE=InnoDB";

  private DiffStateTable() {}

  /**
   * One table's stored diff progress.
   *
   * @param counts the counts and samples so far
   * @param lastKeyJson the last key compared, or empty before the first chunk
   * @param sourcePosition G of the last chunk's snapshot
   * @param done whether the table is fully compared
   */
  public record State(
      TableDiff counts, Optional<String> lastKeyJson, String sourcePosition, boolean done) {}

  /** Creates {@code _reshard} and the table if they do not exist. */
  public static void create(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE IF NOT EXISTS " + ReshardSchema.DATABASE);
      s.execute(CREATE);
    }
  }

  /** The stored progress of one table of a workflow, if any. */
  public static Optional<State> read(Connection c, String workflow, String table)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "SELECT lastpk, compared, matching, mismatched, extra_source, extra_target, repaired,"
                + " samples, source_position, done FROM "
                + ReshardSchema.DATABASE
                + ".diff_state WHERE workflow = ? AND table_name = ?")) {
      ps.setString(1, workflow);
      ps.setString(2, table);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        TableDiff counts =
            new TableDiff(
                table,
                rs.getLong(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getLong(6),
                rs.getLong(7),
                samples(table, rs.getString(8)));
        return Optional.of(
            new State(
                counts, Optional.ofNullable(rs.getString(1)), rs.getString(9), rs.getInt(10) == 1));
      }
    }
  }

  /** Saves one table's progress (insert or overwrite). */
  public static void save(Connection c, String workflow, State s) throws SQLException {
    TableDiff t = s.counts();
    try (PreparedStatement ps =
        c.prepareStatement(
            "REPLACE INTO "
                + ReshardSchema.DATABASE
                + ".diff_state (workflow, table_name, lastpk, compared, matching, mismatched,"
                + " extra_source, extra_target, repaired, samples, source_position, done)"
                + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      ps.setString(1, workflow);
      ps.setString(2, t.table());
      ps.setString(3, s.lastKeyJson().orElse(null));
      ps.setLong(4, t.compared());
      ps.setLong(5, t.matching());
      ps.setLong(6, t.mismatched());
      ps.setLong(7, t.extraSource());
      ps.setLong(8, t.extraTarget());
      ps.setLong(9, t.repaired());
      ps.setString(10, samplesJson(t.samples()));
      ps.setString(11, s.sourcePosition());
      ps.setInt(12, s.done() ? 1 : 0);
      ps.executeUpdate();
    }
  }

  /** Deletes a workflow's diff progress (a diff that starts over). */
  public static int delete(Connection c, String workflow) throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "DELETE FROM " + ReshardSchema.DATABASE + ".diff_state WHERE workflow = ?")) {
      ps.setString(1, workflow);
      return ps.executeUpdate();
    }
  }

  static String samplesJson(List<DiffSample> samples) {
    ArrayNode list = JSON.createArrayNode();
    for (DiffSample s : samples) {
      ObjectNode n = list.addObject();
      n.put("kind", s.kind().name());
      ObjectNode key = n.putObject("key");
      s.key().forEach(key::put);
      ArrayNode cols = n.putArray("columns");
      s.columns().forEach(cols::add);
    }
    return list.toString();
  }

  static List<DiffSample> samples(String table, String json) {
    List<DiffSample> out = new ArrayList<>();
    if (json == null) {
      return out;
    }
    try {
      for (JsonNode n : JSON.readTree(json)) {
        Map<String, String> key = new LinkedHashMap<>();
        n.path("key").fields().forEachRemaining(e -> key.put(e.getKey(), e.getValue().asText()));
        List<String> cols = new ArrayList<>();
        n.path("columns").forEach(x -> cols.add(x.asText()));
        out.add(
            new DiffSample(
                table,
                DiffSample.Kind.valueOf(n.path("kind").asText().toUpperCase(Locale.ROOT)),
                key,
                cols));
      }
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("unreadable samples in _reshard.diff_state: " + json, e);
    }
    return out;
  }
}
