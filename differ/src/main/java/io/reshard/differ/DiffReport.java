package io.reshard.differ;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;

/**
 * The result of a diff of one target against its source: per table the counts and sample keys, and
 * the source position G both sides were read at.
 *
 * <p>{@link #toJson()} gives the machine form:
 *
 * <pre>{@code
 * {"workflow": "wf1", "target": "c0-e0", "source_position": "4-4-1200", "clean": false,
 *  "tables": [{"table": "messages", "compared": 100, "matching": 97, "mismatched": 1,
 *              "extra_source": 1, "extra_target": 1, "repaired": 0,
 *              "samples": [{"kind": "mismatched", "key": {"id": "17"}, "columns": ["body"]}]}]}
 * }</pre>
 *
 * and {@link #toTable()} a readable table. Immutable.
 *
 * @param workflow the workflow
 * @param target the target shard's name
 * @param sourcePosition G: the source position of both snapshots (the latest one if the diff was
 *     resumed: earlier tables or chunks were read at earlier positions)
 * @param tables one entry per table, in the spec's order
 */
public record DiffReport(
    String workflow, String target, String sourcePosition, List<TableDiff> tables) {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** Copies the tables. */
  public DiffReport {
    tables = List.copyOf(tables);
  }

  /** True if no table differs. */
  public boolean isClean() {
    return tables.stream().allMatch(TableDiff::isClean);
  }

  /** The table's diff, if the report has it. */
  public TableDiff table(String name) {
    return tables.stream()
        .filter(t -> t.table().equals(name))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no table " + name + " in the report"));
  }

  /** The JSON form (see the class description), indented. */
  public String toJson() {
    ObjectNode root = JSON.createObjectNode();
    root.put("workflow", workflow);
    root.put("target", target);
    root.put("source_position", sourcePosition);
    root.put("clean", isClean());
    ArrayNode list = root.putArray("tables");
    for (TableDiff t : tables) {
      ObjectNode n = list.addObject();
      n.put("table", t.table());
      n.put("compared", t.compared());
      n.put("matching", t.matching());
      n.put("mismatched", t.mismatched());
      n.put("extra_source", t.extraSource());
      n.put("extra_target", t.extraTarget());
      n.put("repaired", t.repaired());
      ArrayNode samples = n.putArray("samples");
      for (DiffSample s : t.samples()) {
        ObjectNode sn = samples.addObject();
        sn.put("kind", s.kind().name().toLowerCase(Locale.ROOT));
        ObjectNode key = sn.putObject("key");
        s.key().forEach(key::put);
        ArrayNode cols = sn.putArray("columns");
        s.columns().forEach(cols::add);
      }
    }
    try {
      return JSON.writeValueAsString(root);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("a tree of strings and numbers always serializes", e);
    }
  }

  /**
   * A readable table, e.g.
   *
   * <pre>
   * diff wf1, target c0-e0, source position 4-4-1200: 3 differences
   * table     compared  matching  mismatched  extra_source  extra_target
   * messages       100        97           1             1             1
   * samples:
   *   messages  mismatched    id=17  columns: body
   * </pre>
   */
  public String toTable() {
    int width = Math.max(5, tables.stream().mapToInt(t -> t.table().length()).max().orElse(5));
    String row = "%-" + width + "s  %10s  %10s  %10s  %12s  %12s%n";
    StringBuilder out = new StringBuilder();
    long differences =
        tables.stream().mapToLong(t -> t.mismatched() + t.extraSource() + t.extraTarget()).sum();
    out.append(
        String.format(
            "diff %s, target %s, source position %s: %s%n",
            workflow,
            target,
            sourcePosition,
            differences == 0 ? "clean" : differences + " differences"));
    out.append(
        String.format(
            row, "table", "compared", "matching", "mismatched", "extra_source", "extra_target"));
    for (TableDiff t : tables) {
      out.append(
          String.format(
              row,
              t.table(),
              t.compared(),
              t.matching(),
              t.mismatched(),
              t.extraSource(),
              t.extraTarget()));
    }
    boolean any = tables.stream().anyMatch(t -> !t.samples().isEmpty());
    if (any) {
      out.append("samples:\n");
      for (TableDiff t : tables) {
        for (DiffSample s : t.samples()) {
          StringBuilder key = new StringBuilder();
          s.key()
              .forEach(
                  (k, v) ->
                      key.append(key.length() == 0 ? "" : ",").append(k).append('=').append(v));
          out.append(
              String.format(
                  "  %-" + width + "s  %-12s  %s%s%n",
                  t.table(),
                  s.kind().name().toLowerCase(Locale.ROOT),
                  key,
                  s.columns().isEmpty() ? "" : "  columns: " + String.join(", ", s.columns())));
        }
      }
    }
    return out.toString();
  }
}
