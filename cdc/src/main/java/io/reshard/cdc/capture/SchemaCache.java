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
 * The same definition gives the precision of MariaDB's old-format temporal columns, which the
 * binlog does not carry ({@link #precisions}); there a definition that no longer matches the event
 * is refused, not guessed.
 *
 * <p>Used by the engine thread only; not thread-safe.
 */
final class SchemaCache {
  /** Bound on cached TABLE_MAP objects; a server reuses table ids, so this rarely fills. */
  private static final int MAX_TABLES = 4096;

  private final Connection jdbc;
  private final RecordEncoder encoder;
  private final Map<BinlogTable, CapturedTable> byMap = new IdentityHashMap<>();
  private final Map<String, Optional<TableSchema>> definitions = new HashMap<>();

  SchemaCache(Connection jdbc, RecordEncoder encoder) {
    this.jdbc = jdbc;
    this.encoder = encoder;
  }

  /**
   * The table of a rows event as capture publishes and decodes it.
   *
   * @throws UndecodableTableException if the table has old-format temporal columns whose precision
   *     the table's definition no longer tells (see {@link #precisions})
   */
  CapturedTable resolve(BinlogTable table) {
    CapturedTable known = byMap.get(table);
    if (known != null) {
      return known;
    }
    if (byMap.size() >= MAX_TABLES) {
      byMap.clear();
    }
    TableSchema binlog = table.schema();
    Optional<TableSchema> now = definition(binlog.database(), binlog.table());
    BinlogTable decoding =
        table.precisionPending() ? table.withPrecisions(precisions(table, now)) : table;
    Set<String> generated = new HashSet<>();
    now.ifPresent(
        s ->
            s.columns().stream()
                .filter(ColumnDef::generated)
                .forEach(c -> generated.add(c.name())));
    List<ColumnDef> columns = new ArrayList<>();
    for (ColumnDef c : decoding.schema().columns()) {
      columns.add(generated.contains(c.name()) ? c.withGenerated(true) : c);
    }
    TableSchema schema =
        new TableSchema(binlog.database(), binlog.table(), columns, binlog.primaryKey());
    int[] pk = binlog.primaryKey().stream().mapToInt(schema::indexOf).toArray();
    CapturedTable captured = new CapturedTable(schema, encoder.schemaJson(schema), pk, decoding);
    byMap.put(table, captured);
    return captured;
  }

  /**
   * The precision of each old-format temporal column of {@code table} (MariaDB writes DATETIME(n),
   * TIME(n) and TIMESTAMP(n) of tables in the pre-5.6 format under the old type codes with no
   * metadata, in a layout that depends on n): the column's {@code DATETIME_PRECISION}, once the
   * definition shows the same column, of the same type, still in MariaDB's old format ({@code
   * COLUMN_TYPE} marked {@code /* mariadb-5.3 *}{@code /}). Anything else means the table changed
   * after the event was logged (capture runs behind a DDL), and the precision the event was written
   * with is no longer known: capture refuses rather than guess.
   */
  static int[] precisions(BinlogTable table, Optional<TableSchema> now) {
    int[] out = new int[table.columnCount()];
    for (int i = 0; i < out.length; i++) {
      if (table.metas()[i] != BinlogTypes.FSP_FROM_SCHEMA) {
        continue;
      }
      ColumnDef logged = table.column(i);
      String format = BinlogTypes.temporalName(table.types()[i]) + " in MariaDB's pre-5.6 format";
      String where = "column " + logged.name() + " of " + table.schema().qualifiedName();
      if (now.isEmpty()) {
        throw undecodable(where, format, "the table no longer exists");
      }
      int at = now.get().indexOf(logged.name());
      ColumnDef current = at < 0 ? null : now.get().columns().get(at);
      if (current == null) {
        throw undecodable(where, format, "the table has no such column now");
      }
      if (current.kind() != logged.kind()) {
        throw undecodable(where, format, "the column is " + current.columnType() + " now");
      }
      if (!isOldTemporalFormat(current)) {
        throw undecodable(
            where,
            format,
            "information_schema shows it as "
                + current.columnType()
                + " without MariaDB's /* mariadb-5.3 */ mark: either the table was rebuilt in the"
                + " MySQL 5.6 format (ALTER TABLE ... FORCE) after this change was logged, or the"
                + " server is older than MariaDB 10.5.1, which does not mark the old format (there,"
                + " rewrite the table with ALTER TABLE ... FORCE under mysql56_temporal_format = ON"
                + " before capturing it)");
      }
      out[i] = current.scale();
    }
    return out;
  }

  /**
   * True if {@code information_schema} shows the column in MariaDB's old temporal format: MariaDB
   * marks it {@code datetime(3) /* mariadb-5.3 *}{@code /} in COLUMN_TYPE since 10.5.1
   * (MDEV-19906); earlier servers do not, and their old-format tables are refused.
   */
  static boolean isOldTemporalFormat(ColumnDef column) {
    return column.columnType() != null && column.columnType().contains("mariadb-5.3");
  }

  private static UndecodableTableException undecodable(String where, String format, String why) {
    return new UndecodableTableException(
        where
            + " is "
            + format
            + ", whose binlog cells carry no precision: capture takes it from the table's"
            + " definition, but "
            + why
            + ", so the precision this change was logged with is unknown and its cells cannot be"
            + " decoded exactly. Capture the shard again from a position after that change (the"
            + " workflows reading it must recopy)");
  }

  /** A table whose rows cannot be decoded exactly; the message names column, format and cause. */
  static final class UndecodableTableException extends IllegalStateException {
    UndecodableTableException(String message) {
      super(message);
    }
  }

  /** Forgets what is known of a table after a DDL on it. */
  void invalidate(String database, String table) {
    definitions.remove(database + "." + table);
    byMap
        .entrySet()
        .removeIf(e -> e.getKey().schema().qualifiedName().equals(database + "." + table));
  }

  /**
   * The table's definition now, for a schema-change record; empty if it does not exist.
   *
   * @throws UndecodableTableException if a column has a type cdc cannot represent
   */
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

  /**
   * Capture decodes or refuses: a column of a type no kind describes (MariaDB's INET4, INET6, UUID)
   * is refused (DESIGN 4.4), before anything of the table is published.
   */
  private static void refuseUnrepresentable(TableSchema schema) {
    for (ColumnDef c : schema.columns()) {
      if (c.kind() == ColumnKind.OTHER) {
        throw new UndecodableTableException(
            "column "
                + c.name()
                + " of "
                + schema.qualifiedName()
                + " has type "
                + c.columnType()
                + ", which cdc cannot represent; change it to a type cdc carries (ALTER TABLE "
                + schema.quotedName()
                + " MODIFY "
                + c.quoted()
                + " BINARY(16), CHAR(39) or another string type)");
      }
    }
  }

  /** The table's definition, read once per table and again after each DDL on it. */
  private Optional<TableSchema> definition(String database, String table) {
    String key = database + "." + table;
    Optional<TableSchema> known = definitions.get(key);
    if (known == null) {
      known = current(database, table);
      definitions.put(key, known);
    }
    return known;
  }
}
