package io.reshard.router;

import java.util.Arrays;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The vindex types reshard understands, named as in a Vitess vschema's {@code "type"} field ({@code
 * go/vt/vtgate/vindexes}). Any other Vitess type is refused when a vschema is loaded, so a keyspace
 * is never resharded with a function we would compute differently.
 *
 * <p>Functional types map a value to a ksid by computation ({@link Vindex#of}); lookup types map
 * through a table ({@link LookupVindexSpec}).
 */
public enum VindexType {
  /** DES of the 64-bit value with an all-zero key; see {@link Vindex}. */
  HASH("hash", Kind.FUNCTIONAL, true),
  /** xxh64 of the value's bytes, little-endian; see {@link Vindex}. */
  XXHASH("xxhash", Kind.FUNCTIONAL, true),
  /** MD5 of the value's bytes; see {@link Vindex}. */
  BINARY_MD5("binary_md5", Kind.FUNCTIONAL, true),
  /** The 64-bit value itself, big-endian; see {@link Vindex}. */
  NUMERIC("numeric", Kind.FUNCTIONAL, true),
  /** A lookup table mapping a column to one or more ksids. */
  LOOKUP("lookup", Kind.LOOKUP, false),
  /** A lookup table mapping a column to at most one ksid. */
  LOOKUP_UNIQUE("lookup_unique", Kind.LOOKUP, true),
  /** A lookup table written in the same order as the row, mapping to one or more ksids. */
  CONSISTENT_LOOKUP("consistent_lookup", Kind.LOOKUP, false),
  /** A lookup table written in the same order as the row, mapping to at most one ksid. */
  CONSISTENT_LOOKUP_UNIQUE("consistent_lookup_unique", Kind.LOOKUP, true);

  private enum Kind {
    FUNCTIONAL,
    LOOKUP
  }

  private final String vitessName;
  private final Kind kind;
  private final boolean unique;

  VindexType(String vitessName, Kind kind, boolean unique) {
    this.vitessName = vitessName;
    this.kind = kind;
    this.unique = unique;
  }

  /**
   * Returns the type with this Vitess name, e.g. {@code hash} or {@code consistent_lookup_unique}.
   * Case matters, as in Vitess.
   *
   * @throws IllegalArgumentException naming the type and listing the supported ones
   */
  public static VindexType fromVitessName(String name) {
    Objects.requireNonNull(name, "vindex type");
    for (VindexType t : values()) {
      if (t.vitessName.equals(name)) {
        return t;
      }
    }
    throw new IllegalArgumentException(
        "unknown vindex type \"" + name + "\"; supported: " + supportedNames());
  }

  /** Returns the Vitess names of all supported types, comma-separated, for messages and help. */
  public static String supportedNames() {
    return Arrays.stream(values()).map(t -> t.vitessName).collect(Collectors.joining(", "));
  }

  /** Returns the name used in a Vitess vschema, e.g. {@code binary_md5}. */
  public String vitessName() {
    return vitessName;
  }

  /** True if the ksid is computed from the value alone (no lookup table). */
  public boolean isFunctional() {
    return kind == Kind.FUNCTIONAL;
  }

  /** True if the ksid comes from a lookup table. */
  public boolean isLookup() {
    return kind == Kind.LOOKUP;
  }

  /** True if a value maps to at most one ksid; Vitess requires this of a table's primary vindex. */
  public boolean isUnique() {
    return unique;
  }

  /** Returns {@link #vitessName()}. */
  @Override
  public String toString() {
    return vitessName;
  }
}
