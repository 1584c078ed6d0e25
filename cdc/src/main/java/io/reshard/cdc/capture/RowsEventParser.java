package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.reshard.cdc.capture.BinlogEvents.RowOp;
import io.reshard.cdc.capture.BinlogEvents.Rows;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Deserializes WRITE_ROWS, UPDATE_ROWS and DELETE_ROWS events (v1 as MariaDB writes them, and v2
 * with its extra-data block as MySQL writes them) into {@link Rows}, decoding every cell with
 * {@link BinlogCells}. Rows of tables outside the captured databases are not decoded.
 *
 * <p>Layout: table id (6), flags (2), [v2: extra-data length (2) and data], column count (packed),
 * columns-present bitmap, [UPDATE: a second one for the after image], then per row image a null
 * bitmap over the present columns followed by the non-null cells.
 *
 * <p>Runs on the binlog client's reader thread, right after the TABLE_MAP it depends on was
 * deserialized on the same thread; never throws (a failure becomes {@link Rows#error()}).
 */
final class RowsEventParser implements EventDataDeserializer<Rows> {
  private final RowOp op;
  private final boolean v2;
  private final Map<Long, BinlogTable> tables;
  private final Set<String> capturedDatabases;

  RowsEventParser(RowOp op, boolean v2, Map<Long, BinlogTable> tables, Set<String> databases) {
    this.op = op;
    this.v2 = v2;
    this.tables = tables;
    this.capturedDatabases = databases;
  }

  @Override
  public Rows deserialize(ByteArrayInputStream in) throws IOException {
    byte[] body = in.read(in.available());
    BinlogTable table = null;
    try {
      ByteCursor c = new ByteCursor(body);
      table = tables.get(c.le(6));
      if (table == null) {
        return failed(null, "rows event for a table id without a preceding TABLE_MAP");
      }
      if (!capturedDatabases.contains(table.schema().database())) {
        return new Rows(table, op, false, true, List.of(), List.of(), null);
      }
      if (table.precisionPending()) {
        return new Rows(
            table, op, true, true, List.of(), List.of(), null, resolved -> decode(resolved, body));
      }
      return parse(table, c);
    } catch (RuntimeException e) {
      return failed(table, "cannot decode row event: " + e);
    }
  }

  /**
   * Decodes a whole rows event body with {@code table}, the event's TABLE_MAP with every precision
   * known; never throws.
   */
  Rows decode(BinlogTable table, byte[] body) {
    try {
      ByteCursor c = new ByteCursor(body);
      c.skip(6);
      return parse(table, c);
    } catch (RuntimeException e) {
      return failed(table, "cannot decode row event: " + e);
    }
  }

  Rows parse(BinlogTable table, ByteCursor c) {
    c.skip(2);
    if (v2) {
      c.skip((int) c.le(2) - 2);
    }
    int n = c.packedInt();
    if (n != table.columnCount()) {
      return failed(table, "row event has " + n + " columns, TABLE_MAP " + table.columnCount());
    }
    BitSet present = BitSet.valueOf(c.bytes((n + 7) / 8));
    BitSet presentAfter = op == RowOp.UPDATE ? BitSet.valueOf(c.bytes((n + 7) / 8)) : present;
    boolean full = present.nextClearBit(0) >= n && presentAfter.nextClearBit(0) >= n;
    if (!full) {
      return new Rows(table, op, true, false, List.of(), List.of(), null);
    }
    int[] key = keyIndexes(table);
    List<Object[]> before = new ArrayList<>();
    List<Object[]> after = new ArrayList<>();
    while (c.hasRemaining()) {
      Object[] first = image(table, c, n, key);
      switch (op) {
        case INSERT -> after.add(first);
        case DELETE -> before.add(first);
        case UPDATE -> {
          before.add(first);
          after.add(image(table, c, n, key));
        }
      }
    }
    return new Rows(table, op, true, true, before, after, null);
  }

  private static int[] keyIndexes(BinlogTable table) {
    List<String> pk = table.schema().primaryKey();
    int[] out = new int[pk.size()];
    for (int k = 0; k < out.length; k++) {
      out[k] = table.schema().indexOf(pk.get(k));
    }
    return out;
  }

  /**
   * One row image. A primary-key column that decodes as NULL is refused: a key is never NULL, so
   * the cells before it were read in a wrong layout, and the image must not be published.
   */
  private static Object[] image(BinlogTable table, ByteCursor c, int n, int[] key) {
    BitSet nulls = BitSet.valueOf(c.bytes((n + 7) / 8));
    Object[] row = new Object[n];
    for (int i = 0; i < n; i++) {
      if (!nulls.get(i)) {
        try {
          row[i] = BinlogCells.decode(table, i, c);
        } catch (RuntimeException e) {
          throw new IllegalStateException(
              "column " + table.column(i).name() + ": " + e.getMessage(), e);
        }
      }
    }
    for (int k : key) {
      if (k >= 0 && row[k] == null) {
        throw new IllegalStateException(
            "primary-key column "
                + table.column(k).name()
                + " decodes as NULL, which a key never is: the row image cannot be decoded"
                + " exactly");
      }
    }
    return row;
  }

  private Rows failed(BinlogTable table, String error) {
    return new Rows(table, op, true, true, List.of(), List.of(), error);
  }
}
