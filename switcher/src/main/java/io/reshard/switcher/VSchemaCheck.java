package io.reshard.switcher;

import io.reshard.core.placement.ShardingKey;
import io.reshard.core.rows.Sessions;
import io.reshard.core.schema.TableRefusedException;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.schema.TableSchemaReader;
import io.reshard.router.ColumnVindex;
import io.reshard.router.KeyRange;
import io.reshard.router.LookupVindexSpec;
import io.reshard.router.VSchema;
import io.reshard.router.VSchemaTable;
import io.reshard.router.VindexDefinition;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Checks a keyspace's vschema against the tables its servers define (DESIGN 6), for {@code keyspace
 * init}, {@code keyspace set-vschema} and a workflow's create. Reasons go to a {@link
 * RefusalReasons}, so every one is reported at once; nothing is written.
 *
 * <p>The document alone ({@link #document}): the keyspace is sharded; each lookup vindex's table is
 * in this keyspace and a table of the vschema placed by the lookup's {@code from} column
 * (router-lib places a lookup row by applying that table's primary vindex to the {@code from}
 * value), and its owner is a table of the vschema.
 *
 * <p>Each server ({@link #server}), whose tables are read with {@link TableSchemaReader}: every
 * vschema table exists; every column a column vindex names exists; the primary vindex can place
 * rows (functional, on a non-generated column, {@link ShardingKey}) and its type maps the column's
 * type ({@link VindexFit}); every lookup table has its {@code from} and {@code to} columns; and, if
 * asked, no existing row has a NULL or unmappable sharding key ({@link ShardingKeyScan}). Only the
 * primary vindex places rows, so a table's other functional vindexes need only their columns.
 *
 * <p>Not thread-safe: one check per thread.
 */
final class VSchemaCheck {
  private final String keyspace;
  private final VSchema vschema;
  private final RefusalReasons reasons;

  /**
   * @param keyspace the keyspace: the database of that name on each server
   * @param vschema the vschema to check
   * @param reasons where the reasons go
   */
  VSchemaCheck(String keyspace, VSchema vschema, RefusalReasons reasons) {
    this.keyspace = keyspace;
    this.vschema = vschema;
    this.reasons = reasons;
  }

  /** Adds the reasons the vschema document gives by itself. */
  void document() {
    if (!vschema.sharded()) {
      reasons.add(
          "the vschema is not sharded (\"sharded\" is false or missing): reshard places and moves"
              + " the rows of a sharded keyspace only; set \"sharded\": true and give each table a"
              + " primary vindex");
    }
    for (VindexDefinition def : vschema.vindexes().values()) {
      if (def.type().isLookup()) {
        lookupDocument(def.lookup());
      }
    }
  }

  /**
   * Adds the reasons one server gives.
   *
   * @param c a connection to the server (any database; names are qualified)
   * @param where how the reasons name the server, e.g. {@code "source c0-"}
   * @param scanRows whether to read every row's sharding key ({@link ShardingKeyScan})
   * @throws SQLException if the server cannot be read
   */
  void server(Connection c, String where, boolean scanRows) throws SQLException {
    server(c, where, scanRows, null);
  }

  /**
   * As {@link #server(Connection, String, boolean)}; with {@code scanRows}, every row must also lie
   * in {@code range}, the shard the server holds (null: not checked).
   */
  void server(Connection c, String where, boolean scanRows, KeyRange range) throws SQLException {
    for (VSchemaTable t : vschema.tables().values()) {
      Optional<TableSchema> schema = TableSchemaReader.read(c, keyspace, t.name());
      if (schema.isEmpty()) {
        reasons.add(
            "table "
                + t.name()
                + " of the vschema does not exist in database "
                + keyspace
                + ": create it, or take it out of the vschema",
            where);
        continue;
      }
      if (columnsExist(schema.get(), t, where) && t.primaryVindex().isPresent()) {
        placement(c, schema.get(), where, scanRows, range);
      }
    }
    for (VindexDefinition def : vschema.vindexes().values()) {
      if (def.type().isLookup()) {
        lookupTable(c, def.lookup(), where);
      }
    }
  }

  /**
   * Adds the reasons the servers of a keyspace's shards give, each server read in full (its rows
   * too); a server without the keyspace's database gets that reason alone.
   *
   * @throws SQLException if a server cannot be read
   */
  void shards(List<ShardServer> shards) throws SQLException {
    for (ShardServer s : shards) {
      String where = s.shard() + " on " + s.endpointRef();
      try (Connection c = connect(s)) {
        if (!TableSchemaReader.databaseExists(c, keyspace)) {
          reasons.add(
              "the keyspace's database "
                  + keyspace
                  + " does not exist; create it (with its data) first",
              where);
        } else {
          server(c, where, true, KeyRange.parse(s.shard()));
        }
      }
    }
  }

  /**
   * Opens a connection to {@code s} with the pipeline's session settings (those the copier reads
   * with, so values read here are read as the copy reads them).
   */
  static Connection connect(ShardServer s) throws SQLException {
    Connection c = Sessions.open(s.endpoint(), "", "");
    try {
      Sessions.apply(c, Sessions.pipelineSqlMode(Sessions.globalSqlMode(c)));
    } catch (SQLException e) {
      c.close();
      throw e;
    }
    return c;
  }

  /** True if every column the table's column vindexes name exists; each missing one is a reason. */
  private boolean columnsExist(TableSchema schema, VSchemaTable t, String where) {
    boolean all = true;
    for (ColumnVindex cv : t.columnVindexes()) {
      for (String column : cv.columns()) {
        if (schema.indexOf(column) < 0) {
          all = false;
          reasons.add(
              "table "
                  + t.name()
                  + " has no column "
                  + column
                  + ", which its vindex "
                  + cv.vindexName()
                  + " names; its columns are "
                  + schema.columns().stream().map(col -> col.name()).toList(),
              where);
        }
      }
    }
    Optional<String> idColumn = t.autoIncrement().map(ai -> ai.column());
    if (idColumn.isPresent() && schema.indexOf(idColumn.get()) < 0) {
      reasons.add(
          "table "
              + t.name()
              + " has no column "
              + idColumn.get()
              + ", which its auto_increment names; its columns are "
              + schema.columns().stream().map(col -> col.name()).toList(),
          where);
    }
    return all;
  }

  /** The primary vindex places rows of this table, its type fits, and (if asked) every row. */
  private void placement(
      Connection c, TableSchema schema, String where, boolean scanRows, KeyRange range)
      throws SQLException {
    ShardingKey key;
    try {
      key = ShardingKey.of(vschema, schema);
    } catch (TableRefusedException e) {
      reasons.add(e.getMessage(), where);
      return;
    }
    VindexDefinition primary = vschema.primaryVindex(schema.table());
    Optional<String> misfit = VindexFit.problem(schema, key, primary.name(), primary.type());
    if (misfit.isPresent()) {
      reasons.add(misfit.get(), where);
    } else if (scanRows) {
      ShardingKeyScan.problems(c, schema, key, range).forEach(p -> reasons.add(p, where));
    }
  }

  /** A lookup vindex's table is a table of this keyspace's vschema, placed by its from column. */
  private void lookupDocument(LookupVindexSpec spec) {
    String table = tableName(spec);
    String subject = "lookup vindex " + spec.name() + ": ";
    int dot = spec.table().lastIndexOf('.');
    if (dot >= 0 && !spec.table().substring(0, dot).equals(keyspace)) {
      reasons.add(
          subject
              + "its table "
              + spec.table()
              + " is in another keyspace; router-lib reads lookup tables in the keyspace itself:"
              + " name it "
              + table
              + " or "
              + keyspace
              + "."
              + table);
    }
    Optional<VSchemaTable> t = vschema.table(table);
    if (t.isEmpty() || t.get().primaryVindex().isEmpty()) {
      reasons.add(
          subject
              + "its table "
              + table
              + " is not a table of the vschema with a primary vindex; router-lib places a lookup"
              + " row by that table's own primary vindex: add "
              + table
              + " to \"tables\" with a column vindex on "
              + spec.fromColumns().get(0));
    } else if (!t.get().primaryVindex().get().column().equals(spec.fromColumns().get(0))) {
      reasons.add(
          subject
              + "its table "
              + table
              + " is placed by column "
              + t.get().primaryVindex().get().column()
              + ", but router-lib places a lookup row by its from column "
              + spec.fromColumns().get(0)
              + ": make that the table's primary vindex column");
    }
    spec.owner()
        .filter(owner -> vschema.table(owner).isEmpty())
        .ifPresent(
            owner ->
                reasons.add(
                    subject + "its owner " + owner + " is not a table of the vschema; name one"));
  }

  /** The lookup table exists on the server with its from and to columns. */
  private void lookupTable(Connection c, LookupVindexSpec spec, String where) throws SQLException {
    String table = tableName(spec);
    Optional<TableSchema> schema = TableSchemaReader.read(c, keyspace, table);
    if (schema.isEmpty()) {
      if (vschema.table(table).isEmpty()) { // else reported as a missing vschema table
        reasons.add(
            "lookup vindex "
                + spec.name()
                + ": its table "
                + table
                + " does not exist in database "
                + keyspace
                + "; create it",
            where);
      }
      return;
    }
    List<String> needed = new java.util.ArrayList<>(spec.fromColumns());
    needed.add(spec.toColumn());
    for (String column : needed) {
      if (schema.get().indexOf(column) < 0) {
        reasons.add(
            "lookup vindex "
                + spec.name()
                + ": its table "
                + table
                + " has no column "
                + column
                + "; its columns are "
                + schema.get().columns().stream().map(col -> col.name()).toList(),
            where);
      }
    }
  }

  /** The lookup table's name without a keyspace qualifier, as router-lib uses it. */
  private static String tableName(LookupVindexSpec spec) {
    String t = spec.table();
    int dot = t.lastIndexOf('.');
    return dot < 0 ? t : t.substring(dot + 1);
  }
}
