package io.reshard.router;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A lookup vindex as declared in a Vitess vschema: the table that maps the {@code from} column(s)
 * to the ksid column {@code to}. Only the model; reading and writing the table live elsewhere.
 *
 * <p>From Vitess's {@code lookup_internal.go}: params {@code table} (often qualified, {@code
 * keyspace.table}), {@code from} (one column, or several comma-separated), {@code to}; the vindex's
 * {@code owner} is the table whose inserts and deletes maintain the lookup rows. Other params
 * ({@code autocommit}, {@code ignore_nulls}, ...) stay in {@link VindexDefinition#params()}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the vindex's name in the vschema
 * @param type a lookup type ({@link VindexType#isLookup()})
 * @param table the lookup table, as written ({@code customer.customer_email_lookup})
 * @param fromColumns the lookup table's key columns, at least one, in order
 * @param toColumn the lookup table's column holding the ksid
 * @param owner the owning table, if any
 */
public record LookupVindexSpec(
    String name,
    VindexType type,
    String table,
    List<String> fromColumns,
    String toColumn,
    Optional<String> owner) {

  /** The Vitess params that a lookup vindex must have. */
  static final List<String> REQUIRED_PARAMS = List.of("table", "from", "to");

  /**
   * Checks and copies the components.
   *
   * @throws IllegalArgumentException naming the vindex if the type is not a lookup type, or a
   *     table, column or owner name is blank
   */
  public LookupVindexSpec {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(owner, "owner");
    if (!type.isLookup()) {
      throw new IllegalArgumentException(
          "vindex " + name + " has type " + type + ", which is not a lookup type");
    }
    requireNotBlank(name, "table", table);
    requireNotBlank(name, "to", toColumn);
    fromColumns = List.copyOf(fromColumns);
    if (fromColumns.isEmpty()) {
      throw new IllegalArgumentException("lookup vindex " + name + ": param from names no column");
    }
    fromColumns.forEach(c -> requireNotBlank(name, "from", c));
    owner.ifPresent(o -> requireNotBlank(name, "owner", o));
  }

  /**
   * Builds the spec from a vschema vindex's params, as Vitess reads them.
   *
   * @param params must hold {@code table}, {@code from} (comma-separated columns) and {@code to}
   * @throws IllegalArgumentException naming the vindex and every missing or blank param
   */
  public static LookupVindexSpec fromParams(
      String name, VindexType type, Map<String, String> params, Optional<String> owner) {
    List<String> missing =
        REQUIRED_PARAMS.stream()
            .filter(p -> params.get(p) == null || params.get(p).isBlank())
            .toList();
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException(
          "lookup vindex " + name + " (" + type + ") lacks params " + String.join(", ", missing));
    }
    List<String> from =
        Arrays.stream(params.get("from").split(",", -1)).map(String::strip).toList();
    return new LookupVindexSpec(
        name, type, params.get("table").strip(), from, params.get("to").strip(), owner);
  }

  private static void requireNotBlank(String vindex, String what, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(
          "lookup vindex " + vindex + ": " + what + " names no column or table (blank)");
    }
  }
}
