package io.reshard.cdc.capture;

import com.github.shyiko.mysql.binlog.event.Event;
import com.github.shyiko.mysql.binlog.event.EventData;
import com.github.shyiko.mysql.binlog.event.EventHeaderV4;
import com.github.shyiko.mysql.binlog.event.EventType;
import com.github.shyiko.mysql.binlog.event.GtidEventData;
import com.github.shyiko.mysql.binlog.event.MariadbGtidEventData;
import com.github.shyiko.mysql.binlog.event.QueryEventData;
import com.github.shyiko.mysql.binlog.event.RotateEventData;
import com.github.shyiko.mysql.binlog.event.deserialization.EventDeserializer;
import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.UnsupportedChangeException;
import io.reshard.cdc.capture.BinlogEvents.Rows;
import io.reshard.cdc.capture.BinlogEvents.TableMap;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The publishing loop of one binlog session: takes events in binlog order, tracks the source
 * transaction they belong to, publishes BEGIN, row changes, END, schema changes and heartbeats, and
 * ends each Kafka transaction with the position reached (handed to {@link PipelinedPublisher},
 * whose thread sends and commits it while this loop goes on).
 *
 * <p>Batching: a Kafka transaction is committed when it holds {@code batch.max.rows} row changes or
 * {@code batch.max.bytes} (even inside a source transaction, whose position then records how many
 * of its rows are published), or when a source transaction ends and no further event is waiting or
 * the batch is older than {@code batch.max.wait.ms}. On an idle source a heartbeat record is
 * committed every {@code heartbeat.interval.ms}.
 *
 * <p>Resume: the stream starts after {@code start.gtids()}; if its first transaction is {@code
 * start.transaction()}, the first {@code start.rowsPublished()} row changes (and the BEGIN) are
 * skipped, because they are already in the topic.
 *
 * <p>Runs on the engine thread; not thread-safe.
 */
final class CaptureLoop {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureLoop.class);

  /** MariaDB GTID flags: a group without BEGIN/COMMIT (DDL), and the two XA phases. */
  private static final int FL_STANDALONE = 1;

  private static final int FL_XA = 64 | 128;

  private final CaptureConfig config;
  private final BinlogSession session;
  private final PipelinedPublisher publisher;
  private final RecordEncoder encoder;
  private final StatementHandler statements;
  private final SchemaCache schemas;
  private final Duration pollInterval;
  // read once: the config's getters parse their text on every call, and these are read per row
  private final int batchMaxRows;
  private final long batchMaxBytes;
  private final long batchMaxWaitNanos;
  private final long heartbeatNanos;

  private GtidPosition gtids;
  private CapturePosition resume;
  private Txn txn;
  private String file;
  private long nextPos;
  private long lastEventMillis;
  private long lastServerId;

  /** The table of the last table map event: a rows event names it by id only. */
  private BinlogTable lastMapped;

  private long lastCommitNanos = System.nanoTime();

  /** The source transaction being published. */
  static final class Txn {
    final String gtid;
    final boolean standalone;
    final long sourceMillis;
    long rows;
    long skip;
    boolean begun;
    final Map<String, Long> tableRows = new LinkedHashMap<>();

    Txn(String gtid, boolean standalone, long sourceMillis) {
      this.gtid = gtid;
      this.standalone = standalone;
      this.sourceMillis = sourceMillis;
    }
  }

  CaptureLoop(
      CaptureConfig config,
      BinlogSession session,
      PipelinedPublisher publisher,
      RecordEncoder encoder,
      SchemaCache schemas,
      CapturePosition start) {
    this.config = config;
    this.session = session;
    this.publisher = publisher;
    this.encoder = encoder;
    this.schemas = schemas;
    this.statements = new StatementHandler(config, encoder, schemas, this);
    this.gtids = start.gtids();
    this.resume = start.insideTransaction() ? start : null;
    this.file = start.binlogFile();
    this.nextPos = start.binlogPosition();
    this.lastEventMillis = start.timestampMillis();
    this.batchMaxRows = config.batchMaxRows();
    this.batchMaxBytes = config.batchMaxBytes();
    this.batchMaxWaitNanos = config.batchMaxWait().toNanos();
    this.heartbeatNanos = config.heartbeatInterval().toNanos();
    this.pollInterval =
        Duration.ofMillis(Math.max(10, Math.min(config.batchMaxWait().toMillis(), 1000) / 2));
  }

  /**
   * Runs until {@code stop} returns true, the stream fails, or a change cannot be captured.
   *
   * @param commitStartNow store the start position before anything else (a fresh start)
   * @throws CdcException on any failure; the open Kafka transaction is left to the caller to abort
   */
  void run(BooleanSupplier stop, boolean commitStartNow) throws InterruptedException {
    if (commitStartNow) {
      heartbeat();
    }
    while (!stop.getAsBoolean()) {
      publisher.throwIfFailed(); // fenced or Kafka gone: stop even while the source is idle
      BinlogSession.Item item = session.poll(pollInterval);
      if (item == null) {
        onIdle();
      } else if (item.failure() != null) {
        throw session.translate(item.failure());
      } else if (item.disconnected()) {
        if (!stop.getAsBoolean()) {
          throw new CdcException.Retriable(
              "the binlog stream of " + config.describe() + " ended", null);
        }
      } else {
        try {
          handle(item.event());
        } catch (UnsupportedChangeException e) {
          commitBeforeFailing(e);
          throw e;
        }
      }
    }
  }

  /**
   * Commits what was published before a change that cannot be captured, and waits for that commit,
   * so the topic and the stored position reach exactly up to it: consumers get everything before
   * it, and a capture restarted after the cause is fixed continues there. Best effort: if the
   * commit fails too, the batch is aborted and a restart republishes it.
   */
  private void commitBeforeFailing(UnsupportedChangeException cause) {
    try {
      if (publisher.hasOpenBatch()) {
        commit();
      }
      publisher.flush();
    } catch (RuntimeException again) {
      cause.addSuppressed(again);
    }
  }

  private void handle(Event e) {
    EventHeaderV4 h = e.getHeader();
    if (h.getNextPosition() > 0) {
      nextPos = h.getNextPosition();
    }
    if (h.getTimestamp() > 0) {
      lastEventMillis = h.getTimestamp();
    }
    dispatch(h.getEventType(), data(e), h);
  }

  private static EventData data(Event e) {
    EventData d = e.getData();
    return d instanceof EventDeserializer.EventDataWrapper w ? w.getExternal() : d;
  }

  /**
   * One event's work. {@code h} is the event's header, or for an event inside a compressed
   * transaction the payload's (the binlog position and time records name).
   */
  private void dispatch(EventType type, EventData d, EventHeaderV4 h) {
    switch (type) {
      case ROTATE -> {
        RotateEventData r = (RotateEventData) d;
        file = r.getBinlogFilename();
        nextPos = r.getBinlogPosition();
        return;
      }
      case MARIADB_GTID -> {
        MariadbGtidEventData g = (MariadbGtidEventData) d;
        String gtid = g.getDomainId() + "-" + g.getServerId() + "-" + g.getSequence();
        onGtid(gtid, g.getFlags(), h);
      }
      case GTID -> onGtid(((GtidEventData) d).getMySqlGtid().toString(), 0, h);
      case TABLE_MAP -> {
        TableMap m = (TableMap) d;
        if (m.error() != null) {
          throw unsupported(m.error());
        }
        lastMapped = m.table();
      }
      case WRITE_ROWS, UPDATE_ROWS, DELETE_ROWS, EXT_WRITE_ROWS, EXT_UPDATE_ROWS, EXT_DELETE_ROWS ->
          onRows((Rows) d, h);
      case QUERY -> statements.onQuery((QueryEventData) d, h, txn);
      case XID -> endTransaction();
      case XA_PREPARE -> throw unsupported("an XA transaction (XA PREPARE) cannot be captured");
      case TRANSACTION_PAYLOAD -> {
        for (Event inner : ((CompressedTransaction) d).events()) {
          dispatch(inner.getHeader().getEventType(), data(inner), h);
        }
      }
      // set on the source after capture started (preflight refuses it at start)
      case PARTIAL_UPDATE_ROWS_EVENT ->
          throw unsupported(
              "a partial JSON update"
                  + (lastMapped == null ? "" : " of " + lastMapped.schema().qualifiedName())
                  + " (binlog_row_value_options = PARTIAL_JSON) has no full after"
                  + " image; turn it off in every session that writes the captured tables (SET"
                  + " SESSION binlog_row_value_options = '' there, and SET GLOBAL"
                  + " binlog_row_value_options = '' for new sessions)");
      case HEARTBEAT -> onIdle();
      default -> {
        // FORMAT_DESCRIPTION, GTID lists, checkpoints, INTVAR/RAND/USER_VAR: nothing to publish
      }
    }
  }

  private void onGtid(String gtid, int flags, EventHeaderV4 h) {
    if ((flags & FL_XA) != 0) {
      throw new UnsupportedChangeException(
          "GTID "
              + gtid
              + " is an XA transaction, which capture cannot publish exactly once"
              + " (its rows are logged at XA PREPARE, before the outcome is known)");
    }
    if (txn != null) {
      endTransaction(); // a group without an end event: treat the new GTID as its end
    }
    lastServerId = h.getServerId();
    txn = new Txn(gtid, (flags & FL_STANDALONE) != 0, h.getTimestamp());
    if (resume != null) {
      if (resume.transaction().equals(gtid)) {
        txn.skip = resume.rowsPublished();
        txn.rows = resume.rowsPublished();
        txn.tableRows.putAll(resume.tableRows());
        txn.begun = true;
        LOG.info(
            "{}: resuming inside {} after {} published row changes",
            config.describe(),
            gtid,
            txn.skip);
      } else {
        LOG.warn(
            "{}: stored position is inside {}, but the stream resumed with {}; nothing skipped",
            config.describe(),
            resume.transaction(),
            gtid);
      }
      resume = null;
    }
  }

  private void onRows(Rows rows, EventHeaderV4 h) {
    if (rows.error() != null) {
      throw unsupported(
          (rows.table() == null ? "" : rows.table().schema().qualifiedName() + ": ")
              + rows.error());
    }
    if (!rows.captured()) {
      return;
    }
    String table = rows.table().schema().qualifiedName();
    CapturedTable captured = resolve(rows.table());
    if (rows.pending() != null) {
      rows = rows.pending().apply(captured.decoding());
      if (rows.error() != null) {
        throw unsupported(table + ": " + rows.error());
      }
    }
    if (!rows.fullImage()) {
      throw unsupported(
          "the row image of "
              + table
              + " is not full (binlog_row_image must be FULL for"
              + " every session that writes it)");
    }
    if (txn == null) {
      throw unsupported("a row event of " + table + " outside a transaction");
    }
    for (int i = 0; i < rows.rowCount(); i++) {
      if (txn.skip > 0) {
        txn.skip--;
        continue;
      }
      long number = txn.rows + 1;
      long inTable = txn.tableRows.getOrDefault(table, 0L) + 1;
      SourceInfo source =
          new SourceInfo(
              h.getServerId(),
              txn.gtid,
              file,
              h.getPosition(),
              i,
              captured.schema().database(),
              captured.schema().table(),
              h.getTimestamp());
      Object[] before = rows.before().isEmpty() ? null : rows.before().get(i);
      Object[] after = rows.after().isEmpty() ? null : rows.after().get(i);
      OutRecord r = encoder.row(captured, rows.op().letter, before, after, source, number, inTable);
      // a row that cannot be published must not be counted, nor its transaction begun: the
      // position committed before failing then ends just before it, and a restart publishes it
      publisher.checkSize(r);
      beginIfNeeded();
      txn.rows = number;
      txn.tableRows.put(table, inTable);
      publisher.send(r);
      if (batchFull()) {
        commit();
      }
    }
  }

  /**
   * The table as published, its old-format precisions from its definition; a table whose rows
   * cannot be decoded exactly stops capture before anything of it is published.
   */
  private CapturedTable resolve(BinlogTable table) {
    try {
      return schemas.resolve(table);
    } catch (SchemaCache.UndecodableTableException e) {
      throw unsupported(e.getMessage());
    }
  }

  /** Publishes a record that belongs to the current transaction or stands alone (DDL). */
  void publish(OutRecord r) {
    publisher.send(r);
  }

  /** The position for a schema record's source block. */
  SourceInfo source(EventHeaderV4 h, String db, String table) {
    return new SourceInfo(
        h.getServerId(),
        txn == null ? null : txn.gtid,
        file,
        h.getPosition(),
        0,
        db,
        table,
        h.getTimestamp());
  }

  /** Ends the current source transaction: END record, position, maybe a commit. */
  void endTransaction() {
    if (txn == null) {
      return;
    }
    if (txn.begun) {
      publisher.send(encoder.end(txn.gtid, txn.rows, txn.tableRows, txn.sourceMillis));
    }
    gtids = gtids.with(txn.gtid);
    txn = null;
    if (publisher.hasOpenBatch()
        && (batchFull() || session.isIdle() || publisher.batchAgeNanos() >= batchMaxWaitNanos)) {
      commit();
    }
  }

  /** Builds the exception for a change that cannot be captured, naming the GTID. */
  UnsupportedChangeException unsupported(String what) {
    return new UnsupportedChangeException(
        what
            + " at GTID "
            + (txn == null ? gtids + " (after)" : txn.gtid)
            + " in "
            + file
            + " on "
            + config.describe()
            + "; capture stopped before publishing it");
  }

  private void beginIfNeeded() {
    if (!txn.begun) {
      publisher.send(encoder.begin(txn.gtid, txn.sourceMillis));
      txn.begun = true;
    }
  }

  private boolean batchFull() {
    return publisher.batchRows() >= batchMaxRows || publisher.batchBytes() >= batchMaxBytes;
  }

  private void onIdle() {
    boolean open = publisher.hasOpenBatch();
    if (open && (txn == null || publisher.batchAgeNanos() > heartbeatNanos)) {
      commit(); // nothing more came, or a slow transaction must not keep Kafka's open too long
    } else if (!open && txn == null && System.nanoTime() - lastCommitNanos >= heartbeatNanos) {
      heartbeat();
    }
  }

  private void heartbeat() {
    publisher.send(encoder.heartbeat(position(), lastServerId));
    commit();
  }

  /** Hands the batch over with the position reached; the publisher thread commits it. */
  private void commit() {
    publisher.commit(position());
    lastCommitNanos = System.nanoTime();
  }

  private CapturePosition position() {
    if (txn != null && txn.rows > 0) {
      return new CapturePosition(
          gtids, txn.gtid, txn.rows, txn.tableRows, file, nextPos, lastEventMillis);
    }
    return new CapturePosition(gtids, null, 0, Map.of(), file, nextPos, lastEventMillis);
  }
}
