package io.reshard.differ;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.core.state.DiffStateTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A diff's progress on one target, in the differ's own terms (counts and samples as a {@link
 * TableDiff}), stored in {@code _reshard.diff_state} through core's {@link DiffStateTable}, the one
 * writer of that table. Stateless and thread-safe; every method runs in the caller's transaction.
 */
public final class DiffProgress {
  private static final ObjectMapper JSON = new ObjectMapper();

  private DiffProgress() {}

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
    DiffStateTable.create(c);
  }

  /** The stored progress of one table of a workflow, if any. */
  public static Optional<State> read(Connection c, String workflow, String table)
      throws SQLException {
    return DiffStateTable.read(c, workflow, table)
        .map(
            r ->
                new State(
                    new TableDiff(
                        table,
                        r.compared(),
                        r.matching(),
                        r.mismatched(),
                        r.extraSource(),
                        r.extraTarget(),
                        r.repaired(),
                        samples(table, r.samplesJson())),
                    r.lastKeyJson(),
                    r.sourcePosition(),
                    r.done()));
  }

  /** Saves one table's progress (insert or overwrite). */
  public static void save(Connection c, String workflow, State s) throws SQLException {
    TableDiff t = s.counts();
    DiffStateTable.save(
        c,
        workflow,
        new DiffStateTable.Row(
            t.table(),
            s.lastKeyJson(),
            t.compared(),
            t.matching(),
            t.mismatched(),
            t.extraSource(),
            t.extraTarget(),
            t.repaired(),
            samplesJson(t.samples()),
            s.sourcePosition(),
            s.done()));
  }

  /** Deletes a workflow's diff progress (a diff that starts over). */
  public static int delete(Connection c, String workflow) throws SQLException {
    return DiffStateTable.delete(c, workflow);
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
