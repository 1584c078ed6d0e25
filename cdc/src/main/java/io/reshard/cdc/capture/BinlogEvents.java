package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.EventData;
import java.util.List;
import java.util.function.Function;

/** The event bodies capture's own deserializers produce for the binlog client. Immutable. */
final class BinlogEvents {

  private BinlogEvents() {}

  /** The kind of row change a rows event holds. */
  enum RowOp {
    INSERT("c"),
    UPDATE("u"),
    DELETE("d");

    /** Debezium's {@code op} letter. */
    final String letter;

    RowOp(String letter) {
      this.letter = letter;
    }
  }

  /**
   * A TABLE_MAP event, parsed.
   *
   * @param table the table, or null if parsing failed
   * @param error why parsing failed, or null
   */
  record TableMap(BinlogTable table, String error) implements EventData {}

  /**
   * A WRITE/UPDATE/DELETE_ROWS event.
   *
   * @param table the table from the preceding TABLE_MAP, or null if unknown
   * @param op the change
   * @param captured false for tables outside the captured databases (rows are then not decoded)
   * @param fullImage false if a columns-present bitmap misses a column (row image not FULL)
   * @param before per row the before image (UPDATE, DELETE), else null entries
   * @param after per row the after image (INSERT, UPDATE), else null entries
   * @param error why decoding failed, or null
   * @param pending for a table whose cells need precisions from its definition ({@link
   *     BinlogTable#precisionPending()}): decodes the event with the table those precisions
   *     complete (on the engine thread, after {@link SchemaCache} resolved it); the images are
   *     empty until then. Null otherwise
   */
  record Rows(
      BinlogTable table,
      RowOp op,
      boolean captured,
      boolean fullImage,
      List<Object[]> before,
      List<Object[]> after,
      String error,
      Function<BinlogTable, Rows> pending)
      implements EventData {

    Rows(
        BinlogTable table,
        RowOp op,
        boolean captured,
        boolean fullImage,
        List<Object[]> before,
        List<Object[]> after,
        String error) {
      this(table, op, captured, fullImage, before, after, error, null);
    }

    int rowCount() {
      return op == RowOp.INSERT ? after.size() : before.size();
    }
  }
}
