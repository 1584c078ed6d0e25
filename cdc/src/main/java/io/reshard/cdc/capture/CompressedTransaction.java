package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.TransactionPayloadEventData;
import java.util.List;

/**
 * A MySQL transaction payload event ({@code binlog_transaction_compression = ON}): the events of
 * one transaction (BEGIN, table maps, rows, XID), decompressed and parsed by the session's own
 * parsers, in order. The binlog client's own list of uncompressed events stays empty, so that the
 * client does not read them a second time.
 */
final class CompressedTransaction extends TransactionPayloadEventData {
  private final List<Event> events;

  CompressedTransaction(List<Event> events) {
    this.events = List.copyOf(events);
    setUncompressedEvents(new java.util.ArrayList<>()); // the client iterates it
  }

  /** The transaction's events, in binlog order. */
  List<Event> events() {
    return events;
  }

  @Override
  public String toString() {
    return "CompressedTransaction{" + events.size() + " events}";
  }
}
