package io.reshard.router;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds a table's primary vindex column and lookup vindexes in a vschema.
 *
 * <p>A lookup table maps its {@code from} column to its {@code to} column. When {@code to} is named
 * {@code keyspace_id} (Vitess's convention) it holds the row's keyspace id as bytes; otherwise it
 * holds the row's primary vindex value, from which the keyspace id is computed. Only single-column
 * lookups route queries here.
 */
final class Lookups {
  private Lookups() {}

  /** The first column of the table's primary (first) column vindex. */
  static String primaryColumn(VSchema vschema, String table) {
    return requireTable(vschema, table)
        .primaryVindex()
        .orElseThrow(
            () -> new IllegalArgumentException("table " + table + " has no primary vindex"))
        .column();
  }

  /** The lookup vindexes of {@code table}, in vschema order (the primary vindex excluded). */
  static List<LookupVindexSpec> specs(VSchema vschema, String table) {
    List<LookupVindexSpec> specs = new ArrayList<>();
    List<ColumnVindex> cvs = requireTable(vschema, table).columnVindexes();
    for (ColumnVindex cv : cvs.subList(1, cvs.size())) {
      VindexDefinition def = vschema.vindexes().get(cv.vindexName());
      if (def != null && def.type().isLookup()) {
        specs.add(def.lookup());
      }
    }
    return specs;
  }

  /** The lookup vindex of {@code table} on {@code column}. */
  static LookupVindexSpec spec(VSchema vschema, String table, String column) {
    for (ColumnVindex cv : requireTable(vschema, table).columnVindexes()) {
      VindexDefinition def = vschema.vindexes().get(cv.vindexName());
      if (cv.column().equals(column) && def != null && def.type().isLookup()) {
        LookupVindexSpec spec = def.lookup();
        if (spec.fromColumns().size() != 1) {
          throw new IllegalArgumentException(
              "lookup vindex "
                  + spec.name()
                  + " has "
                  + spec.fromColumns().size()
                  + " from-columns; only single-column lookups route queries");
        }
        return spec;
      }
    }
    throw new IllegalArgumentException(
        "table " + table + " has no lookup vindex on column " + column);
  }

  /** The lookup table's name without a keyspace qualifier. */
  static String tableName(LookupVindexSpec spec) {
    String t = spec.table();
    int dot = t.lastIndexOf('.');
    return dot < 0 ? t : t.substring(dot + 1);
  }

  /**
   * What the lookup row's {@code to} column holds for a row whose primary vindex value is {@code
   * key}.
   */
  static Object toValue(LookupVindexSpec spec, ShardMap map, String table, Object key) {
    if ("keyspace_id".equalsIgnoreCase(spec.toColumn())) {
      return map.vschema().primaryVindex(table).functional().keyspaceId(key).bytes();
    }
    return key;
  }

  private static VSchemaTable requireTable(VSchema vschema, String table) {
    return vschema
        .table(table)
        .orElseThrow(() -> new IllegalArgumentException("the vschema has no table " + table));
  }
}
