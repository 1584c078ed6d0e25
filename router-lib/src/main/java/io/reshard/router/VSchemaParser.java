package io.reshard.router;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Reads a Vitess vschema JSON tree into a {@link VSchema}, collecting every problem before failing;
 * the rules are listed on {@link VSchema}. Keys it does not know are skipped. One instance per
 * document; not thread-safe (it is never shared).
 */
final class VSchemaParser {
  /** Vitess's table types with no column vindex ({@code vschema.proto}, {@code Table.type}). */
  private static final Set<String> TABLE_TYPES_WITHOUT_VINDEX = Set.of("reference", "sequence");

  private final List<String> problems = new ArrayList<>();

  /** Names under "vindexes", valid or not, so a bad vindex is not also reported as undefined. */
  private final Set<String> declaredVindexes = new LinkedHashSet<>();

  private final Map<String, VindexDefinition> vindexes = new LinkedHashMap<>();
  private final Map<String, VSchemaTable> tables = new LinkedHashMap<>();

  private VSchemaParser() {}

  static VSchema parse(JsonNode root) {
    return new VSchemaParser().read(root);
  }

  private VSchema read(JsonNode root) {
    if (!root.isObject()) {
      throw new VSchemaException(
          List.of("the document must be a JSON object, not " + describe(root)), null);
    }
    boolean sharded = readSharded(root.path("sharded"));
    forEachField(root, "vindexes", this::readVindex);
    forEachField(root, "tables", (name, node) -> readTable(name, node, sharded));
    if (!problems.isEmpty()) {
      throw new VSchemaException(problems, null);
    }
    return new VSchema(
        root, sharded, Collections.unmodifiableMap(vindexes), Collections.unmodifiableMap(tables));
  }

  private boolean readSharded(JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return false; // proto3 default
    }
    if (!node.isBoolean()) {
      problems.add("\"sharded\" must be true or false, not " + describe(node));
      return false;
    }
    return node.booleanValue();
  }

  private void readVindex(String name, JsonNode node) {
    declaredVindexes.add(name);
    if (!node.isObject()) {
      problems.add("vindex " + name + " must be a JSON object, not " + describe(node));
      return;
    }
    JsonNode typeNode = node.path("type");
    if (!typeNode.isTextual()) {
      problems.add("vindex " + name + " has no \"type\"");
      return;
    }
    VindexType type;
    try {
      type = VindexType.fromVitessName(typeNode.textValue());
    } catch (IllegalArgumentException e) {
      problems.add("vindex " + name + ": " + e.getMessage());
      return;
    }
    Map<String, String> params = readParams(name, node.path("params"));
    Optional<String> owner = optionalText("vindex " + name, "owner", node.path("owner"));
    VindexDefinition def = new VindexDefinition(name, type, params, owner);
    if (type.isLookup()) {
      try {
        def.lookup();
      } catch (IllegalArgumentException e) {
        problems.add(e.getMessage());
        return;
      }
    }
    vindexes.put(name, def);
  }

  private Map<String, String> readParams(String vindex, JsonNode node) {
    Map<String, String> params = new LinkedHashMap<>();
    if (node.isMissingNode() || node.isNull()) {
      return params;
    }
    if (!node.isObject()) {
      problems.add("vindex " + vindex + ": \"params\" must be a JSON object");
      return params;
    }
    node.properties()
        .forEach(
            e -> {
              if (e.getValue().isValueNode() && !e.getValue().isNull()) {
                params.put(e.getKey(), e.getValue().asText()); // Vitess: map<string, string>
              } else {
                problems.add(
                    "vindex "
                        + vindex
                        + ": param "
                        + e.getKey()
                        + " must be a string, not "
                        + describe(e.getValue()));
              }
            });
    return params;
  }

  private void readTable(String name, JsonNode node, boolean sharded) {
    if (!node.isObject()) {
      problems.add("table " + name + " must be a JSON object, not " + describe(node));
      return;
    }
    String type = optionalText("table " + name, "type", node.path("type")).orElse("");
    List<ColumnVindex> columnVindexes = new ArrayList<>();
    JsonNode list = node.path("column_vindexes");
    if (!list.isMissingNode() && !list.isNull() && !list.isArray()) {
      problems.add("table " + name + ": \"column_vindexes\" must be a JSON array");
    }
    for (JsonNode entry : list.isArray() ? list : Json.MAPPER.createArrayNode()) {
      readColumnVindex(name, entry).ifPresent(columnVindexes::add);
    }
    Optional<AutoIncrement> autoIncrement =
        readAutoIncrement(name, type, node.path("auto_increment"));
    VSchemaTable table = new VSchemaTable(name, type, columnVindexes, autoIncrement);
    checkPrimaryVindex(table, sharded, list.isArray() && list.size() > columnVindexes.size());
    if (sharded && table.isSequence()) {
      problems.add(
          "table "
              + name
              + " is a sequence table, but this keyspace is sharded: a sequence lives in an"
              + " unsharded keyspace (one shard, -), as in Vitess; declare it in that keyspace's"
              + " vschema and name it keyspace.table in \"auto_increment\"");
    }
    tables.put(name, table);
  }

  /**
   * {@code "auto_increment": {"column": "id", "sequence": "ks_seq.t_seq"}}: both keys, the sequence
   * qualified by its keyspace; not on a reference or sequence table.
   */
  private Optional<AutoIncrement> readAutoIncrement(String table, String type, JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return Optional.empty();
    }
    String where = "table " + table + ": \"auto_increment\"";
    if (!node.isObject()) {
      problems.add(
          where
              + " must be a JSON object {\"column\": ..., \"sequence\": \"keyspace.table\"}, not "
              + describe(node));
      return Optional.empty();
    }
    int before = problems.size();
    Optional<String> column = optionalText(where, "column", node.path("column"));
    Optional<String> sequence = optionalText(where, "sequence", node.path("sequence"));
    if (problems.size() > before) {
      return Optional.empty();
    }
    if (column.isEmpty() || column.get().isBlank()) {
      problems.add(where + " names no \"column\" (the column to fill from the sequence)");
    }
    if (sequence.isEmpty() || sequence.get().isBlank()) {
      problems.add(where + " names no \"sequence\" (the sequence table, as keyspace.table)");
    } else if (AutoIncrement.problem(sequence.get()) != null) {
      problems.add(where + ": " + AutoIncrement.problem(sequence.get()));
    }
    if (TABLE_TYPES_WITHOUT_VINDEX.contains(type)) {
      problems.add(
          where
              + " is not allowed on a "
              + type
              + " table: only a table whose rows are inserted through the router takes ids from a"
              + " sequence");
    }
    if (problems.size() > before) {
      return Optional.empty();
    }
    return Optional.of(new AutoIncrement(column.get(), sequence.get()));
  }

  private Optional<ColumnVindex> readColumnVindex(String table, JsonNode entry) {
    String where = "table " + table + " column_vindexes entry " + entry;
    if (!entry.isObject()) {
      problems.add(where + " must be a JSON object");
      return Optional.empty();
    }
    Optional<String> vindexName = optionalText(where, "name", entry.path("name"));
    List<String> columns = readColumns(where, entry);
    if (vindexName.isEmpty()) {
      problems.add(where + " has no vindex \"name\"");
      return Optional.empty();
    }
    if (columns.isEmpty()) {
      return Optional.empty(); // reported by readColumns
    }
    String where2 = "table " + table + " column " + String.join(",", columns);
    if (!declaredVindexes.contains(vindexName.get())) {
      problems.add(where2 + ": vindex \"" + vindexName.get() + "\" is not defined in \"vindexes\"");
      return Optional.empty();
    }
    VindexDefinition def = vindexes.get(vindexName.get());
    if (def != null && def.type().isFunctional() && columns.size() > 1) {
      problems.add(
          where2 + ": vindex " + def.name() + " (" + def.type() + ") maps a single column");
      return Optional.empty();
    }
    return Optional.of(new ColumnVindex(columns, vindexName.get()));
  }

  /** "column": "c" or "columns": ["a", "b"], exactly one of them. */
  private List<String> readColumns(String where, JsonNode entry) {
    JsonNode one = entry.path("column");
    JsonNode many = entry.path("columns");
    if (!one.isMissingNode() && !many.isMissingNode()) {
      problems.add(where + " has both \"column\" and \"columns\"");
      return List.of();
    }
    if (one.isTextual() && !one.textValue().isBlank()) {
      return List.of(one.textValue());
    }
    List<String> columns = new ArrayList<>();
    if (many.isArray()) {
      for (JsonNode c : many) {
        if (!c.isTextual() || c.textValue().isBlank()) {
          problems.add(where + ": every entry of \"columns\" must be a column name");
          return List.of();
        }
        columns.add(c.textValue());
      }
    }
    if (columns.isEmpty()) {
      problems.add(where + " names no \"column\"");
    }
    return columns;
  }

  /**
   * A table of a sharded keyspace needs a primary vindex, and Vitess requires it to be unique.
   *
   * @param hadBadEntries some column vindexes were already reported, so do not report their absence
   */
  private void checkPrimaryVindex(VSchemaTable table, boolean sharded, boolean hadBadEntries) {
    if (!sharded || TABLE_TYPES_WITHOUT_VINDEX.contains(table.type()) || hadBadEntries) {
      return;
    }
    Optional<ColumnVindex> primary = table.primaryVindex();
    if (primary.isEmpty()) {
      problems.add(
          "table "
              + table.name()
              + " has no column_vindexes: every table of a sharded keyspace needs a primary"
              + " vindex (or \"type\": \"reference\")");
      return;
    }
    VindexDefinition def = vindexes.get(primary.get().vindexName());
    if (def != null && !def.type().isUnique()) {
      problems.add(
          "table "
              + table.name()
              + ": primary vindex "
              + def.name()
              + " ("
              + def.type()
              + ") is not unique; the first column vindex must map a value to one ksid");
    }
  }

  private Optional<String> optionalText(String where, String key, JsonNode node) {
    if (node.isMissingNode() || node.isNull()) {
      return Optional.empty();
    }
    if (!node.isTextual()) {
      problems.add(where + ": \"" + key + "\" must be a string, not " + describe(node));
      return Optional.empty();
    }
    return Optional.of(node.textValue());
  }

  private void forEachField(JsonNode root, String key, FieldReader reader) {
    JsonNode node = root.path(key);
    if (node.isMissingNode() || node.isNull()) {
      return;
    }
    if (!node.isObject()) {
      problems.add("\"" + key + "\" must be a JSON object, not " + describe(node));
      return;
    }
    node.properties().forEach(e -> reader.read(e.getKey(), e.getValue()));
  }

  private static String describe(JsonNode node) {
    return node.isMissingNode()
        ? "nothing"
        : node.getNodeType().name().toLowerCase(Locale.ROOT) + " " + node;
  }

  @FunctionalInterface
  private interface FieldReader {
    void read(String name, JsonNode node);
  }
}
