package io.reshard.cdc.capture;

import com.github.luben.zstd.ZstdInputStream;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDataDeserializer;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads MySQL's transaction payload event (type 40, {@code binlog_transaction_compression = ON}): a
 * header of (type, length, value) fields, each a length-encoded integer, ended by field 0; then the
 * payload, the transaction's events compressed with zstd (compression type 0) or stored as they are
 * (255), without checksums. The events are parsed by {@code inner}, a deserializer with the
 * session's own table-map and rows parsers (sharing their table cache), so a compressed transaction
 * yields exactly the records the same transaction uncompressed would. An unknown compression type
 * is an error: capture stops rather than pass over the rows.
 */
final class TransactionPayloadParser implements EventDataDeserializer<CompressedTransaction> {
  private static final int END_MARK = 0;
  private static final int PAYLOAD_SIZE = 1;
  private static final int COMPRESSION_TYPE = 2;
  private static final int UNCOMPRESSED_SIZE = 3;
  private static final int ZSTD = 0;
  private static final int NONE = 255;

  private final EventDeserializer inner;

  /**
   * @param inner parses the payload's events: the session's parsers, no checksum (MySQL writes none
   *     inside a payload)
   */
  TransactionPayloadParser(EventDeserializer inner) {
    this.inner = inner;
  }

  @Override
  public CompressedTransaction deserialize(ByteArrayInputStream in) throws IOException {
    long payloadSize = -1;
    int compression = NONE;
    while (in.available() > 0) {
      int type = in.readPackedInteger();
      if (type == END_MARK) {
        break;
      }
      int length = in.readPackedInteger();
      switch (type) {
        case PAYLOAD_SIZE -> payloadSize = in.readPackedLong();
        case COMPRESSION_TYPE -> compression = in.readPackedInteger();
        case UNCOMPRESSED_SIZE -> in.readPackedLong(); // the events end where the stream does
        default -> in.skip(length);
      }
    }
    if (payloadSize < 0 || payloadSize > Integer.MAX_VALUE) {
      throw new IOException("a transaction payload without a valid size: " + payloadSize);
    }
    byte[] payload = in.read((int) payloadSize);
    InputStream raw = new java.io.ByteArrayInputStream(payload);
    if (compression == ZSTD) {
      raw = new ZstdInputStream(raw);
    } else if (compression != NONE) {
      throw new IOException(
          "a transaction payload compressed with type " + compression + ", which is not zstd");
    }
    List<Event> events = new ArrayList<>();
    try (ByteArrayInputStream stream = new ByteArrayInputStream(raw)) {
      for (Event e = inner.nextEvent(stream); e != null; e = inner.nextEvent(stream)) {
        events.add(e);
      }
    }
    return new CompressedTransaction(events);
  }
}
