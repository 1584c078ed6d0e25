package io.reshard.cdc.apply;

import io.reshard.cdc.ChangeRecord;
import io.reshard.core.placement.ShardingKey;
import io.reshard.core.schema.ColumnDef;
import io.reshard.core.schema.ColumnKind;
import io.reshard.core.schema.TableSchema;
import io.reshard.core.value.ValueCodec;
import io.reshard.router.KeyRange;
import io.reshard.router.UnmappableValueException;
import io.reshard.router.VSchema;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Applies one row change to one target shard, keeping only rows whose keyspace id lies in the
 * target's key range (DESIGN 4.5):
 *
 * <ul>
 *   <li>insert: {@code REPLACE} the full after-image if it is in range;
 *   <li>update: if the primary key changed, or the row left the range, delete the old key first
 *       (only where the before-image was in range); then {@code REPLACE} the after-image if it is
 *       in range — so a sharding-key change moves the row from one target to the other;
 *   <li>delete: delete by primary key if the before-image was in range.
 * </ul>
 *
 * Generated columns are never written. Full row images are required (capture refuses others).
 *
 * <p>Batching: the statements are not sent one by one. Consecutive statements of the same kind
 * ({@code REPLACE} or {@code DELETE}) on the same table schema are added to one JDBC batch of a
 * statement prepared once per schema, and sent as one round trip (with the driver's {@code
 * useBulkStmts}, one {@code COM_STMT_BULK_EXECUTE}). A statement of another kind or table sends the
 * open batch first, and the server runs a batch's rows in order, so the target sees exactly the
 * sequence of statements the row changes call for: later changes of the same key still win, a
 * delete of an old key still precedes the replace of its new one. The caller must {@link #flush}
 * before it stores its position and commits, and {@link #discard} after a rollback.
 *
 * <p>Not thread-safe: one per applier thread, used with that applier's connection.
 */
public final class RowApplier {
  private final KeyRange range;
  private final VSchema vschema;
  private final Map<TableSchema, Statements> statements = new HashMap<>();
  private final Map<TableSchema, ShardingKey> placements = new HashMap<>();
  private Connection preparedOn;
  private PreparedStatement open;
  private int openRows;
  private boolean batching = true;

  /** What applying a record did. */
  public enum Outcome {
    /** Rows were written or deleted. */
    APPLIED,
    /** Nothing of it belongs to this target. */
    OUT_OF_RANGE
  }

  public RowApplier(KeyRange range, VSchema vschema) {
    this.range = range;
    this.vschema = vschema;
  }

  /**
   * Applies a DATA record with op {@code c}, {@code u} or {@code d} through {@code c}, in the
   * caller's transaction. Its statements may wait in the open batch until {@link #flush}.
   *
   * @throws SQLException from the target
   * @throws UnmappableValueException if the new row image has a sharding key the vindex cannot map
   *     (NULL, say): no target could hold the row; nothing was added to the batch
   * @throws IllegalArgumentException if the op is not a row change
   */
  public Outcome apply(Connection c, ChangeRecord r) throws SQLException {
    TableSchema schema = r.schema();
    ShardingKey placement = placements.computeIfAbsent(schema, t -> ShardingKey.of(vschema, t));
    // a before image no vindex maps was never placed on any target: there is nothing to remove
    boolean beforeIn = r.before() != null && ownsIfMappable(placement, r.before());
    boolean afterIn = r.after() != null && owns(placement, r.after());
    if (preparedOn != c) {
      forget();
      preparedOn = c;
    }
    Statements st = statements.computeIfAbsent(schema, s -> new Statements(s));
    boolean wrote = false;
    switch (r.op()) {
      case "c" -> {
        if (afterIn) {
          st.replace(c, r.after());
          wrote = true;
        }
      }
      case "u" -> {
        boolean keyChanged = !st.sameKey(r.before(), r.after());
        if (beforeIn && (keyChanged || !afterIn)) {
          st.delete(c, r.before());
          wrote = true;
        }
        if (afterIn) {
          st.replace(c, r.after());
          wrote = true;
        }
      }
      case "d" -> {
        if (beforeIn) {
          st.delete(c, r.before());
          wrote = true;
        }
      }
      default -> throw new IllegalArgumentException("not a row change: op " + r.op());
    }
    return wrote ? Outcome.APPLIED : Outcome.OUT_OF_RANGE;
  }

  /**
   * Sends the open batch, if any, in the caller's transaction.
   *
   * @throws SQLException from the target; the batch is gone either way (roll back and replay)
   */
  public void flush() throws SQLException {
    PreparedStatement ps = open;
    if (ps == null) {
      return;
    }
    open = null;
    openRows = 0;
    try {
      ps.executeBatch();
    } catch (SQLException e) {
      ps.clearBatch();
      throw e;
    }
  }

  /** Drops the open batch unsent: after a rollback, whose replay adds its rows again. */
  public void discard() {
    if (open != null) {
      try {
        open.clearBatch();
      } catch (SQLException ignored) {
        // a broken connection: nothing of the batch reached the target
      }
      open = null;
      openRows = 0;
    }
  }

  /**
   * Batches consecutive statements (the default), or sends each row's statement as soon as it is
   * added, so that a failing row fails in {@link #apply} and the caller can name it.
   */
  public void batchRows(boolean on) {
    batching = on;
  }

  /** True unless {@link #batchRows} turned batching off. */
  public boolean batchesRows() {
    return batching;
  }

  /** Statements in the open batch, not yet sent. */
  int pendingStatements() {
    return openRows;
  }

  /** Closes the prepared statements of a connection no longer used. */
  private void forget() {
    discard();
    for (Statements st : statements.values()) {
      st.close();
    }
    statements.clear();
  }

  /** Adds {@code ps}, bound, to the open batch; a batch of another statement is sent first. */
  private void add(PreparedStatement ps) throws SQLException {
    if (open != ps) {
      flush();
      open = ps;
    }
    ps.addBatch();
    openRows++;
    if (!batching) {
      flush();
    }
  }

  /** True if the table is sharded in the vschema (has a primary vindex): a moved table. */
  public boolean isMoved(String table) {
    return vschema.table(table).flatMap(t -> t.primaryVindex()).isPresent();
  }

  /**
   * True if the row image's keyspace id falls in this target's range.
   *
   * @throws UnmappableValueException if the vindex cannot map its sharding key (NULL, say)
   */
  private boolean owns(ShardingKey placement, Map<String, Object> image) {
    return range.contains(placement.keyspaceIdOf(image));
  }

  /** As {@link #owns}, but false for an image whose sharding key no vindex maps. */
  private boolean ownsIfMappable(ShardingKey placement, Map<String, Object> image) {
    try {
      return owns(placement, image);
    } catch (UnmappableValueException e) {
      return false;
    }
  }

  /** The statements of one table schema version, prepared once on the applier's connection. */
  private final class Statements {
    private final TableSchema schema;
    private final List<ColumnDef> written = new ArrayList<>();
    private final List<ColumnDef> key = new ArrayList<>();
    private final String replaceSql;
    private final String deleteSql;
    private PreparedStatement replace;
    private PreparedStatement delete;

    Statements(TableSchema schema) {
      this.schema = schema;
      for (ColumnDef col : schema.columns()) {
        if (!col.generated()) {
          written.add(col);
        }
      }
      for (String k : schema.primaryKey()) {
        key.add(schema.column(k));
      }
      if (key.isEmpty()) {
        throw new IllegalArgumentException(
            "table " + schema.qualifiedName() + " has no primary key; it cannot be moved");
      }
      String table = q(schema.table());
      replaceSql =
          "REPLACE INTO "
              + table
              + " ("
              + String.join(", ", written.stream().map(col -> q(col.name())).toList())
              + ") VALUES ("
              + String.join(", ", written.stream().map(col -> "?").toList())
              + ")";
      deleteSql =
          "DELETE FROM "
              + table
              + " WHERE "
              + String.join(" AND ", key.stream().map(col -> q(col.name()) + " = ?").toList());
    }

    void replace(Connection c, Map<String, Object> image) throws SQLException {
      if (replace == null) {
        replace = c.prepareStatement(replaceSql);
      }
      bindAll(replace, written, image);
      add(replace);
    }

    void delete(Connection c, Map<String, Object> image) throws SQLException {
      if (delete == null) {
        delete = c.prepareStatement(deleteSql);
      }
      bindAll(delete, key, image);
      add(delete);
    }

    private void bindAll(PreparedStatement ps, List<ColumnDef> columns, Map<String, Object> image)
        throws SQLException {
      for (int i = 0; i < columns.size(); i++) {
        ColumnDef col = columns.get(i);
        JdbcValues.bind(ps, i + 1, col, image.get(col.name()));
      }
    }

    void close() {
      for (PreparedStatement ps : new PreparedStatement[] {replace, delete}) {
        if (ps != null) {
          try {
            ps.close();
          } catch (SQLException ignored) {
            // the connection is gone
          }
        }
      }
      replace = null;
      delete = null;
    }

    boolean sameKey(Map<String, Object> a, Map<String, Object> b) {
      for (ColumnDef col : key) {
        Object x = a.get(col.name());
        Object y = b.get(col.name());
        boolean same =
            x instanceof byte[] || y instanceof byte[] || col.kind() == ColumnKind.TEXT
                ? java.util.Arrays.equals(
                    ValueCodec.exactBytes(col, x), ValueCodec.exactBytes(col, y))
                : Objects.equals(x, y);
        if (!same) {
          return false;
        }
      }
      return true;
    }

    private static String q(String name) {
      return "`" + name.replace("`", "``") + "`";
    }

    @Override
    public String toString() {
      return schema.qualifiedName();
    }
  }
}
