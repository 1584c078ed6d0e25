package io.reshard.router;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A keyspace's vschema in Vitess's JSON format: whether it is sharded, its vindexes, and per table
 * its column vindexes, the first being the primary vindex that places the rows.
 *
 * <pre>{@code
 * {"sharded": true,
 *  "vindexes": {"hash": {"type": "hash"},
 *               "email_lookup": {"type": "consistent_lookup_unique",
 *                                "params": {"table": "email_lookup", "from": "email",
 *                                           "to": "keyspace_id"},
 *                                "owner": "customer"}},
 *  "tables": {"customer": {"column_vindexes": [{"column": "customer_id", "name": "hash"},
 *                                              {"column": "email", "name": "email_lookup"}]}}}
 * }</pre>
 *
 * <p>A table's {@code "auto_increment": {"column": "id", "sequence": "chat_seq.messages_seq"}}
 * names the column router-lib fills from a {@link Sequence} ({@link AutoIncrement}); the sequence
 * table is declared {@code {"type": "sequence"}} in the vschema of its own, unsharded keyspace.
 *
 * <p>An existing Vitess vschema file loads unchanged: keys reshard does not use ({@code columns},
 * {@code require_explicit_routing}, ...) are ignored, and kept in {@link #toJson()} so the document
 * round-trips exactly. Loading refuses, listing every problem at once ({@link VSchemaException}): a
 * vindex type not in {@link VindexType} (naming it), a lookup vindex without {@code table}, {@code
 * from} or {@code to}, a column vindex naming an undefined vindex, a table of a sharded keyspace
 * without a column vindex (unless it is a {@code reference} or {@code sequence} table), a primary
 * vindex that is not unique (Vitess's rule), a functional vindex applied to several columns, an
 * {@code auto_increment} without {@code column} or {@code sequence}, with a sequence not named
 * {@code keyspace.table}, or on a reference or sequence table, and a sequence table in a sharded
 * keyspace.
 *
 * <p>Immutable and thread-safe.
 */
public final class VSchema {
  private final JsonNode json;
  private final boolean sharded;
  private final Map<String, VindexDefinition> vindexes;
  private final Map<String, VSchemaTable> tables;

  VSchema(
      JsonNode json,
      boolean sharded,
      Map<String, VindexDefinition> vindexes,
      Map<String, VSchemaTable> tables) {
    this.json = json.deepCopy();
    this.sharded = sharded;
    this.vindexes = vindexes;
    this.tables = tables;
  }

  /**
   * Parses a vschema document.
   *
   * @throws VSchemaException listing every problem, if it is not valid JSON or not a usable vschema
   */
  public static VSchema parse(String json) {
    Objects.requireNonNull(json, "json");
    JsonNode root;
    try {
      root = Json.MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new VSchemaException(List.of("not valid JSON: " + Json.describe(e)), e);
    }
    return fromJson(root == null ? Json.MAPPER.missingNode() : root);
  }

  /**
   * Reads a vschema from a parsed JSON tree (for example the {@code "vschema"} of a shard map).
   *
   * @throws VSchemaException listing every problem
   */
  public static VSchema fromJson(JsonNode root) {
    return VSchemaParser.parse(root);
  }

  /** True if the keyspace is sharded ({@code "sharded": true}); false if the key is absent. */
  public boolean sharded() {
    return sharded;
  }

  /** Returns the vindexes by name, in file order. */
  public Map<String, VindexDefinition> vindexes() {
    return vindexes;
  }

  /** Returns the tables by name, in file order. */
  public Map<String, VSchemaTable> tables() {
    return tables;
  }

  /** Returns the table of this name, if the vschema has it. */
  public Optional<VSchemaTable> table(String name) {
    return Optional.ofNullable(tables.get(name));
  }

  /**
   * Returns the primary vindex of a table: the vindex of its first column vindex.
   *
   * @throws IllegalArgumentException naming the table if the vschema does not have it or it has no
   *     column vindex (a reference or sequence table, or an unsharded keyspace)
   */
  public VindexDefinition primaryVindex(String table) {
    VSchemaTable t =
        table(table)
            .orElseThrow(
                () -> new IllegalArgumentException("the vschema has no table \"" + table + "\""));
    ColumnVindex primary =
        t.primaryVindex()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "table \"" + table + "\" has no column vindex, hence no primary vindex"));
    return vindexes.get(primary.vindexName());
  }

  /** Returns a copy of the document as loaded, unknown keys included. */
  public JsonNode toJson() {
    return json.deepCopy();
  }

  /** True if both documents are equal as JSON trees. */
  @Override
  public boolean equals(Object other) {
    return other instanceof VSchema v && json.equals(v.json);
  }

  @Override
  public int hashCode() {
    return json.hashCode();
  }

  /** Returns a one-line summary: sharded or not, and the vindex and table counts. */
  @Override
  public String toString() {
    return "VSchema{sharded="
        + sharded
        + ", vindexes="
        + vindexes.keySet()
        + ", tables="
        + tables.keySet()
        + "}";
  }
}
