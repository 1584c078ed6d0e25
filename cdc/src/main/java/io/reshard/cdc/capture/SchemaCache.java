package io.reshard.cdc.capture;

import io.reshard.cdc.CdcException;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Turns the {@link BinlogTable} of a rows event into the {@link CapturedTable} capture publishes.
 * The binlog gives names, types, charsets, labels and the primary key (TABLE_MAP with {@code
 * binlog_row_metadata = FULL}); it does not say which columns are generated, so this class reads
 * that from {@code information_schema} once per table and again after each DDL on it. When capture
 * runs behind a later DDL, the flags come from the newer definition; columns are matched by name.
 *
 * <p>Used by the engine thread only; not thread-safe.
 */
final class SchemaCache {
  /** Bound on cached TABLE_MAP objects; a server reuses table ids, so this rarely fills. */
  private static final int MAX_TABLES = 4096;

  private final Connection jdbc;
  private final RecordEncoder encoder;
  private final Map<BinlogTable, CapturedTable> byMap = new IdentityHashMap<>();
  private final Map<String, Set<String>> generatedByTable = new HashMap<>();

  SchemaCache(Connection jdbc, RecordEncoder encoder) {
    this.jdbc = jdbc;
    this.encoder = encoder;
  }

  CapturedTable resolve(BinlogTable table) {
    CapturedTable known = byMap.get(table);
    if (known != null) {
      return known;
    }
    if (byMap.size() >= MAX_TABLES) {
      byMap.clear();
    }
    TableSchema binlog = table.schema();
    Set<String> generated = generated(binlog.database(), binlog.table());
    List<ColumnDef> columns = new ArrayList<>();
    for (ColumnDef c : binlog.columns()) {
      columns.add(generated.contains(c.name()) ? c.withGenerated(true) : c);
    }
    TableSchema schema =
        new TableSchema(binlog.database(), binlog.table(), columns, binlog.primaryKey());
    int[] pk = binlog.primaryKey().stream().mapToInt(schema::indexOf).toArray();
    CapturedTable captured = new CapturedTable(schema, encoder.schemaJson(schema), pk);
    byMap.put(table, captured);
    return captured;
  }

  /** Forgets what is known of a table after a DDL on it. */
  void invalidate(String database, String table) {
    generatedByTable.remove(database + "." + table);
    byMap
        .entrySet()
        .removeIf(e -> e.getKey().schema().qualifiedName().equals(database + "." + table));
  }

  /** The table's definition now, for a schema-change record; empty if it does not exist. */
  Optional<TableSchema> current(String database, String table) {
    try {
      Optional<TableSchema> schema = TableSchemaReader.read(jdbc, database, table);
      schema.ifPresent(SchemaCache::refuseUnrepresentable);
      return schema;
    } catch (SQLException e) {
      throw new CdcException.Retriable(
          "cannot read the definition of " + database + "." + table + ": " + e.getMessage(), e);
    }
  }

  /** Capture decodes or refuses: a column of a type no kind describes is refused (DESIGN 4.4). */
  private static void refuseUnrepresentable(TableSchema schema) {
    for (ColumnDef c : schema.columns()) {
      if (c.kind() == ColumnKind.OTHER) {
        throw new IllegalArgumentException(
            "column " + c.name() + " has type " + c.type() + ", which cdc cannot represent");
      }
    }
  }

  private Set<String> generated(String database, String table) {
    return generatedByTable.computeIfAbsent(
        database + "." + table,
        k -> {
          Set<String> names = new HashSet<>();
          current(database, table)
              .ifPresent(
                  s ->
                      s.columns().stream()
                          .filter(ColumnDef::generated)
                          .forEach(c -> names.add(c.name())));
          return names;
        });
  }
}
