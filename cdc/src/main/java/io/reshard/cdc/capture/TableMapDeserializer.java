package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import io.reshard.cdc.capture.BinlogEvents.TableMap;
import java.io.IOException;
import java.util.Arrays;
import java.util.Map;

/**
 * Deserializes TABLE_MAP events with {@link TableMapParser} and records each table by id for the
 * rows events that follow. A map identical to the one already held (the server repeats it before
 * every transaction) reuses the parsed table. Runs on the binlog reader thread; never throws.
 */
final class TableMapDeserializer implements EventDataDeserializer<TableMap> {
  private final TableMapParser parser;
  private final Map<Long, BinlogTable> tables;

  TableMapDeserializer(TableMapParser parser, Map<Long, BinlogTable> tables) {
    this.parser = parser;
    this.tables = tables;
  }

  @Override
  public TableMap deserialize(ByteArrayInputStream in) throws IOException {
    byte[] body = in.read(in.available());
    try {
      long id = new ByteCursor(body).le(6);
      BinlogTable known = tables.get(id);
      if (known != null && Arrays.equals(known.body(), body)) {
        return new TableMap(known, null);
      }
      BinlogTable table = parser.parse(body);
      tables.put(id, table);
      return new TableMap(table, null);
    } catch (RuntimeException e) {
      return new TableMap(null, "cannot parse TABLE_MAP event: " + e.getMessage());
    }
  }
}
