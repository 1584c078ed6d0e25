package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.BinaryLogClient;
import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import com.github.shyiko.mysql.binlog.network.ServerException;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureRefusedException;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.PositionLostException;
import io.reshard.cdc.capture.BinlogEvents.RowOp;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.value.MariaDbCharsets;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One connection to the source's binlog, from a GTID position: the binlog client's reader thread
 * deserializes events (with capture's own TABLE_MAP and rows parsers) and hands them over through a
 * bounded queue, so a slow Kafka slows the reader rather than filling memory.
 *
 * <p>Errors the server reports after {@code connect} returned (a purged or unknown GTID position
 * arrives as an error packet on the stream) reach {@link #poll} as a failure item. The client runs
 * with keep-alive off: it never reconnects on its own, the engine does, from the stored position.
 * The reader thread is not a daemon, so {@link #close} must always run (try-with-resources).
 *
 * <p>{@link #poll} and {@link #close} are called by the engine thread; the listeners run on the
 * reader thread.
 */
final class BinlogSession implements AutoCloseable {

  /** An event, or the failure that ended the stream, or the end of the stream. */
  record Item(Event event, Exception failure, boolean disconnected) {}

  private static final Duration OFFER_WAIT = Duration.ofMillis(200);

  private final BlockingQueue<Item> queue;
  private final BinaryLogClient client;
  private final GtidPosition start;
  private final String source;
  private volatile boolean closing;

  BinlogSession(
      CaptureConfig config, MariaDbCharsets charsets, boolean mariaDb, GtidPosition start) {
    this.queue = new ArrayBlockingQueue<>(config.queueCapacity());
    this.start = start;
    this.source = config.describe();
    this.client =
        new BinaryLogClient(
            config.sourceHost(), config.sourcePort(), config.sourceUser(), config.sourcePassword());
    client.setServerId(config.serverId());
    client.setKeepAlive(false);
    client.setHeartbeatInterval(config.heartbeatInterval().toMillis());
    client.setConnectTimeout(config.connectTimeout().toMillis());
    client.setUseSendAnnotateRowsEvent(false);
    client.setGtidSet(start.toString());
    client.setEventDeserializer(deserializer(charsets, mariaDb, config));
    client.registerEventListener(this::offer);
    client.registerLifecycleListener(new Lifecycle());
  }

  private static EventDeserializer deserializer(
      MariaDbCharsets charsets, boolean mariaDb, CaptureConfig config) {
    Map<Long, BinlogTable> tables = new HashMap<>(); // reader thread only
    TableMapParser parser = new TableMapParser(charsets, mariaDb, config.capturedDatabases());
    EventDeserializer d = parsers(new EventDeserializer(), parser, tables, config);
    // MySQL's compressed transactions: their events through the same parsers and table cache
    EventDeserializer inner = parsers(new EventDeserializer(), parser, tables, config);
    d.setEventDataDeserializer(EventType.TRANSACTION_PAYLOAD, new TransactionPayloadParser(inner));
    return d;
  }

  /** {@code d} with reshard's table-map and rows parsers, sharing {@code tables}. */
  private static EventDeserializer parsers(
      EventDeserializer d,
      TableMapParser parser,
      Map<Long, BinlogTable> tables,
      CaptureConfig config) {
    d.setEventDataDeserializer(EventType.TABLE_MAP, new TableMapDeserializer(parser, tables));
    var dbs = config.capturedDatabases();
    for (EventType t : List.of(EventType.WRITE_ROWS, EventType.EXT_WRITE_ROWS)) {
      d.setEventDataDeserializer(
          t, new RowsEventParser(RowOp.INSERT, t == EventType.EXT_WRITE_ROWS, tables, dbs));
    }
    for (EventType t : List.of(EventType.UPDATE_ROWS, EventType.EXT_UPDATE_ROWS)) {
      d.setEventDataDeserializer(
          t, new RowsEventParser(RowOp.UPDATE, t == EventType.EXT_UPDATE_ROWS, tables, dbs));
    }
    for (EventType t : List.of(EventType.DELETE_ROWS, EventType.EXT_DELETE_ROWS)) {
      d.setEventDataDeserializer(
          t, new RowsEventParser(RowOp.DELETE, t == EventType.EXT_DELETE_ROWS, tables, dbs));
    }
    return d;
  }

  /**
   * Connects and starts the reader thread.
   *
   * @throws CdcException retriable if the server cannot be reached in time; a refusal if it refuses
   *     the user
   */
  void connect(Duration timeout) {
    try {
      client.connect(timeout.toMillis());
    } catch (TimeoutException e) {
      throw new CdcException.Retriable(
          "binlog connection to " + source + " not established in " + timeout.toMillis() + " ms",
          e);
    } catch (IOException e) {
      throw translate(e);
    }
  }

  /** The next item, or null if none arrived within {@code timeout}. */
  Item poll(Duration timeout) throws InterruptedException {
    return queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** True if no event is waiting. */
  boolean isIdle() {
    return queue.isEmpty();
  }

  /** The server's version as the client saw it: MariaDB or not. */
  boolean isMariaDb() {
    return client.getMariaDB();
  }

  /** Maps an error of the stream to position-lost, refused or retriable. */
  CdcException translate(Exception e) {
    if (e instanceof ServerException se) {
      if (se.getErrorCode() == ErrorClassifier.ER_BINLOG_POSITION_LOST) {
        return new PositionLostException(start.toString(), se.getMessage(), se);
      }
      if (se.getErrorCode() == ErrorClassifier.ER_SPECIFIC_ACCESS_DENIED
          || ErrorClassifier.isAccessDenied(se.getErrorCode())) {
        return new CaptureRefusedException(
            "binlog capture of " + source,
            List.of(
                "the server refused the binlog stream: "
                    + se.getMessage()
                    + " (grant REPLICATION SLAVE on *.* to the capture user)"));
      }
    }
    return new CdcException.Retriable("binlog stream from " + source + " failed: " + e, e);
  }

  @Override
  public void close() {
    closing = true;
    try {
      client.disconnect();
    } catch (IOException ignored) {
      // the connection is gone either way
    }
  }

  private void offer(Event event) {
    put(new Item(event, null, false));
  }

  private void put(Item item) {
    try {
      while (!closing) {
        if (queue.offer(item, OFFER_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private final class Lifecycle implements BinaryLogClient.LifecycleListener {
    @Override
    public void onConnect(BinaryLogClient c) {}

    @Override
    public void onCommunicationFailure(BinaryLogClient c, Exception ex) {
      put(new Item(null, ex, false));
    }

    @Override
    public void onEventDeserializationFailure(BinaryLogClient c, Exception ex) {
      put(new Item(null, ex, false));
    }

    @Override
    public void onDisconnect(BinaryLogClient c) {
      put(new Item(null, null, true));
    }
  }
}
