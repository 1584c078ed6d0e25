package io.reshard.router;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One entry of a vschema's {@code "vindexes"}: its name, Vitess type, params and owner, as in
 * {@code {"type": "consistent_lookup_unique", "params": {"table": "t", "from": "c", "to":
 * "keyspace_id"}, "owner": "customer"}}.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the key under {@code "vindexes"}
 * @param type the vindex type
 * @param params the params as strings, in file order (Vitess declares them {@code map<string,
 *     string>}); empty for most functional vindexes
 * @param owner the owning table ({@code "owner"}), if any
 */
public record VindexDefinition(
    String name, VindexType type, Map<String, String> params, Optional<String> owner) {

  /** Copies the params, keeping their order. */
  public VindexDefinition {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(owner, "owner");
    params = Collections.unmodifiableMap(new LinkedHashMap<>(params));
  }

  /**
   * Returns the function this vindex computes.
   *
   * @throws IllegalArgumentException if it is a lookup vindex
   */
  public Vindex functional() {
    return Vindex.of(type);
  }

  /**
   * Returns the lookup table this vindex maps through.
   *
   * @throws IllegalArgumentException if it is a functional vindex, or its params lack {@code
   *     table}, {@code from} or {@code to}
   */
  public LookupVindexSpec lookup() {
    return LookupVindexSpec.fromParams(name, type, params, owner);
  }
}
