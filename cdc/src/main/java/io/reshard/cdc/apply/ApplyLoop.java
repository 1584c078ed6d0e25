package io.reshard.cdc.apply;

import io.reshard.cdc.ApplyConfig;
import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.RecordKind;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.state.StreamsTable;
import io.reshard.router.UnmappableValueException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The body of an {@link io.reshard.cdc.ApplyEngine}'s thread. Each poll's records are applied in
 * one target transaction that also advances every topic's stored position; the transaction commits
 * at the end of the poll, and earlier once it holds {@code maxRowsPerCommit} row changes (inside a
 * large source transaction too: its rest follows from the stored offset after a restart). On an SQL
 * error the transaction rolls back and the consumer seeks back to the committed offsets, so a retry
 * repeats exactly the uncommitted records. Public methods are thread-safe; {@link #run} runs on one
 * thread.
 *
 * <p>Longer than the house's ~500 lines on purpose: the loop and its controls ({@link #stopAt},
 * {@link #runTo}, {@link #resume}, the awaits) share one monitor and the per-topic positions it
 * guards, so every wait and every change of a stop point is checked against the same state in one
 * place. What a record does to the target is {@link RowApplier}; the stored position is {@link
 * StreamsTable}.
 */
public final class ApplyLoop implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(ApplyLoop.class);
  private static final int MAX_CONSECUTIVE_FAILURES = 5;

  private final ApplyConfig config;
  private final RowApplier rows;
  private final Map<String, Topic> topics = new LinkedHashMap<>();
  private volatile boolean running = true;
  private volatile StreamsTable.State state = StreamsTable.State.RUNNING;
  private volatile String lastError;
  private volatile long lastAppliedTimestamp;
  private volatile boolean caughtUp;
  private volatile long rowsApplied;
  private volatile long rowsCommitted;
  private volatile long recordsCommitted;
  private volatile long commits;
  // row changes and records in the open target transaction, counted into the above at commit
  private long rowsInOpenTx;
  private long recordsInOpenTx;

  /** Kafka timestamp of the oldest record not yet committed to the target, for the lag. */
  private volatile long oldestUnappliedMillis;

  private final long startedMillis = System.currentTimeMillis();

  private boolean oldestKnown;
  private boolean skipErrorRecord;
  private Topic errorTopic;
  private boolean resumeRequested;

  /** One source topic's progress: committed (stored) and in the current target transaction. */
  private static final class Topic {
    final String name;
    final TopicPartition tp;
    final GtidPosition p0;
    long committedOffset;
    GtidPosition committedPosition;
    long nextOffset;
    GtidPosition position;
    volatile GtidPosition stopAt;
    // the offset of the record that stopped the stream, once a resume said to pass over it
    long passOverOffset = -1;

    Topic(String name, GtidPosition p0) {
      this.name = name;
      this.tp = new TopicPartition(name, 0);
      this.p0 = p0;
    }
  }

  public ApplyLoop(ApplyConfig config) {
    this.config = config;
    this.rows = new RowApplier(config.range(), config.vschema());
    config.sources().forEach((topic, p0) -> topics.put(topic, new Topic(topic, p0)));
  }

  @Override
  public void run() {
    try (Connection c = connect();
        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties())) {
      loadPositions(c);
      consumer.assign(topics.values().stream().map(t -> t.tp).toList());
      topics.values().forEach(t -> consumer.seek(t.tp, t.committedOffset));
      int failures = 0;
      while (running) {
        if (!mayApply(c, consumer)) {
          continue;
        }
        try {
          // the last attempt sends row by row, so that a row the target refuses is named
          rows.batchRows(failures < MAX_CONSECUTIVE_FAILURES - 1);
          applyBatch(c, consumer, consumer.poll(config.pollTimeout()));
          failures = 0;
        } catch (SQLException e) {
          failures = failuresAfter(failures, e);
          rollBack(c, consumer);
          if (endsThisApplier(e, failures)) {
            throw e; // a new applier, on a new connection, goes on from the stored position
          }
          if (lockConflict(e) && failures < MAX_CONSECUTIVE_FAILURES - 1) {
            // the copy writes the same target rows meanwhile: one of the two is sent back, the
            // batch goes again in a moment, and nothing is lost
            LOG.info(
                "apply {} -> {}: a lock conflict with another writer of the target (the copy),"
                    + " retried: {} (attempt {} of {})",
                config.workflow(),
                config.target(),
                e.getMessage(),
                failures,
                MAX_CONSECUTIVE_FAILURES);
          } else {
            LOG.warn(
                "apply {} -> {}: {} (attempt {} of {})",
                config.workflow(),
                config.target(),
                e.getMessage(),
                failures,
                MAX_CONSECUTIVE_FAILURES);
          }
          if (failures >= MAX_CONSECUTIVE_FAILURES) {
            fail(
                c,
                "target "
                    + config.target()
                    + " failed "
                    + failures
                    + " times in a row: "
                    + e.getMessage()
                    + " [error "
                    + e.getErrorCode()
                    + "]");
          } else {
            sleep(Duration.ofMillis(200L * failures));
          }
        } catch (RuntimeException e) {
          rollBack(c, consumer);
          if (ErrorClassifier.classify(e) == ErrorClassifier.Failure.RETRIABLE) {
            throw e; // Kafka unreachable for longer than the client waits: a new applier
          }
          // the same records give the same answer: stop once, for the operator, and stay
          fail(c, "apply " + config.workflow() + " -> " + config.target() + " stopped: " + e);
        }
      }
    } catch (SQLException | RuntimeException e) {
      lastError = "apply " + config.workflow() + " -> " + config.target() + " stopped: " + e;
      state = StreamsTable.State.ERROR;
      LOG.error(lastError, e);
    }
  }

  /**
   * The count of consecutive failures after {@code e}, as {@link ErrorClassifier} judges it: a lost
   * connection or a lock conflict is tried again, up to {@link #MAX_CONSECUTIVE_FAILURES} attempts
   * in all; a row the target refuses, or any other error that the same records would meet again,
   * goes straight to the last attempt, which sends row by row and so names the row, and then stops
   * the stream.
   */
  static int failuresAfter(int failures, SQLException e) {
    boolean retriable = ErrorClassifier.classify(e) == ErrorClassifier.Failure.RETRIABLE;
    return retriable ? failures + 1 : Math.max(failures + 1, MAX_CONSECUTIVE_FAILURES - 1);
  }

  /**
   * True if {@code e} should end this applier's thread rather than be tried again on its
   * connection: a lost connection at once (every statement on it would fail the same way), any
   * other failure that trying again can heal (a lock conflict, a target under a global read lock)
   * once its attempts are used up. The stream is then {@code ERROR} without a thread, and whoever
   * hosts it starts a new applier, which reconnects and continues from the position stored in the
   * target. A data error is not: it stops the stream for the operator ({@link #fail}).
   */
  static boolean endsThisApplier(SQLException e, int failures) {
    if (ErrorClassifier.isConnectionLoss(e)) {
      return true;
    }
    return failures >= MAX_CONSECUTIVE_FAILURES
        && ErrorClassifier.classify(e) == ErrorClassifier.Failure.RETRIABLE;
  }

  /** Handles a paused or failed stream; returns true when records may be applied. */
  private boolean mayApply(Connection c, KafkaConsumer<byte[], byte[]> consumer)
      throws SQLException {
    synchronized (this) {
      if (!resumeRequested) {
        if (state == StreamsTable.State.RUNNING) {
          return true;
        }
        try {
          wait(200);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          running = false;
        }
        return false;
      }
    }
    try {
      for (Topic t : topics.values()) {
        if (skipErrorRecord && state == StreamsTable.State.ERROR && t == errorTopic) {
          t.passOverOffset = t.committedOffset; // read it again, to know what to pass over
        }
        StreamsTable.advance(c, config.workflow(), t.name, t.nextOffset, t.position.toString());
        StreamsTable.setState(c, config.workflow(), t.name, StreamsTable.State.RUNNING, null);
      }
      c.commit();
      markCommitted();
      topics.values().forEach(t -> consumer.seek(t.tp, t.committedOffset));
      consumer.resume(consumer.paused()); // topics held at their stop points run again
      synchronized (this) {
        skipErrorRecord = false;
        errorTopic = null;
        lastError = null;
        state = StreamsTable.State.RUNNING;
        resumeRequested = false; // only now, so awaitApplied never sees the old error without it
        notifyAll();
      }
    } catch (SQLException e) {
      if (ErrorClassifier.isConnectionLoss(e)) {
        throw e; // as in run: a new applier reconnects; the resume is its stored state's to redo
      }
      lastError = "cannot resume: " + e.getMessage();
    }
    return false;
  }

  private void applyBatch(
      Connection c, KafkaConsumer<byte[], byte[]> consumer, ConsumerRecords<byte[], byte[]> batch)
      throws SQLException {
    int rowsInTx = 0;
    if (!batch.isEmpty()) {
      caughtUp = false; // records the applier has not applied yet: not at the newest position
      oldestKnown = false;
    }
    for (Topic t : topics.values()) {
      for (ConsumerRecord<byte[], byte[]> r : batch.records(t.tp)) {
        if (reachedStop(t)) {
          break; // this topic applies nothing more; see holdAtStop
        }
        if (!oldestKnown) {
          oldestUnappliedMillis = r.timestamp();
          oldestKnown = true;
        }
        if (r.offset() == t.passOverOffset) {
          passOver(t, r);
          continue;
        }
        ChangeRecord rec = null;
        try {
          rec = ChangeRecords.parse(r);
          String stop = stopReason(t, rec);
          if (stop != null) {
            stopOn(c, consumer, t, r.offset(), stop);
            return;
          }
          rowsInTx += applyOne(c, t, rec);
        } catch (SQLException e) {
          throw rows.batchesRows() || rec == null ? e : StopMessages.naming(e, t.name, rec);
        } catch (UnmappableValueException e) {
          stopOn(c, consumer, t, r.offset(), StopMessages.unmappable(t.name, rec, e));
          return;
        } catch (RuntimeException e) {
          if (ErrorClassifier.classify(e) == ErrorClassifier.Failure.RETRIABLE) {
            throw e;
          }
          stopOn(c, consumer, t, r.offset(), StopMessages.dataError(t.name, r.offset(), rec, e));
          return;
        }
        t.nextOffset = r.offset() + 1;
        lastAppliedTimestamp = r.timestamp();
        recordsInOpenTx++;
        if (rowsInTx >= config.maxRowsPerCommit()) {
          commit(c, null, null, null);
          rowsInTx = 0;
          oldestKnown = false; // the next record is now the oldest unapplied one
        }
      }
      if (reachedStop(t)) {
        holdAtStop(consumer, t);
      }
    }
    Topic stopped = everyStopReached();
    if (stopped != null) {
      commit(c, stopped, StreamsTable.State.STOPPED, "stopped at " + stopPoints());
      topics.values().forEach(t -> consumer.seek(t.tp, t.committedOffset));
      return;
    }
    commit(c, null, null, null);
    updateCaughtUp(consumer);
  }

  /**
   * Passes over the record a resume said to pass over: the one that stopped the stream. A statement
   * (DDL or truncate) is then taken as dealt with: its GTID joins the position, so that the other
   * records of the same statement (a partition drop publishes a truncate and a schema record) do
   * not stop the stream a second time. The pass commits with the rest of the batch.
   */
  private void passOver(Topic t, ConsumerRecord<byte[], byte[]> r) {
    t.passOverOffset = -1;
    t.nextOffset = r.offset() + 1;
    recordsInOpenTx++;
    ChangeRecord rec;
    try {
      rec = ChangeRecords.parse(r);
    } catch (RuntimeException unreadable) {
      return; // a record that cannot be read is passed over as it is
    }
    boolean statement =
        rec.kind() == RecordKind.SCHEMA || (rec.kind() == RecordKind.DATA && "t".equals(rec.op()));
    if (statement && rec.gtid() != null && !t.position.contains(rec.gtid())) {
      t.position = t.position.with(rec.gtid());
    }
    LOG.info(
        "apply {} -> {}: passed over {} offset {}",
        config.workflow(),
        config.target(),
        t.name,
        r.offset());
  }

  /**
   * Stops the stream of {@code t} in {@code ERROR} at the record at {@code offset}: what came
   * before it commits, with this record's own offset stored (markers may sit between it and the
   * previous one), so that a resume that passes over it skips exactly this record.
   */
  private void stopOn(
      Connection c, KafkaConsumer<byte[], byte[]> consumer, Topic t, long offset, String why)
      throws SQLException {
    errorTopic = t;
    t.nextOffset = offset;
    commit(c, t, StreamsTable.State.ERROR, why);
    consumer.seek(t.tp, t.committedOffset);
  }

  private static boolean reachedStop(Topic t) {
    GtidPosition stop = t.stopAt;
    return stop != null && t.position.covers(stop);
  }

  /**
   * A topic that reached its stop point while others of this applier still run to theirs: its
   * partition goes back to the first record not applied and is paused, so nothing after its stop
   * point is fetched or applied. A resume (or runTo) un-pauses it.
   */
  private static void holdAtStop(KafkaConsumer<byte[], byte[]> consumer, Topic t) {
    if (!consumer.paused().contains(t.tp)) {
      consumer.seek(t.tp, t.nextOffset);
      consumer.pause(List.of(t.tp));
    }
  }

  /**
   * The stream stops as a whole once every topic that has a stop point has reached it (a topic
   * without one runs until then): a topic of this applier, with a stop point, to record the state
   * on; null while some stop point is not reached, or none is set. Synchronized, so stop points set
   * together ({@link #stopAt(Map)}) are seen together.
   */
  private synchronized Topic everyStopReached() {
    Topic any = null;
    for (Topic t : topics.values()) {
      if (t.stopAt != null) {
        if (!t.position.covers(t.stopAt)) {
          return null;
        }
        any = any == null ? t : any;
      }
    }
    return any;
  }

  private String stopPoints() {
    List<String> points = new ArrayList<>();
    for (Topic t : topics.values()) {
      if (t.stopAt != null) {
        points.add(topics.size() == 1 ? t.stopAt.toString() : t.name + " " + t.stopAt);
      }
    }
    return String.join(", ", points);
  }

  /** Applies one record inside the current target transaction; returns the row changes it made. */
  private int applyOne(Connection c, Topic t, ChangeRecord rec) throws SQLException {
    switch (rec.kind()) {
      case DATA -> {
        if (isOurs(rec)
            && !t.p0.contains(rec.gtid())
            && rows.apply(c, rec) == RowApplier.Outcome.APPLIED) {
          rowsApplied++;
          rowsInOpenTx++;
          return 1;
        }
        return 0;
      }
      case END -> {
        if (!t.position.contains(rec.gtid())) {
          t.position = t.position.with(rec.gtid());
        }
        return 0;
      }
      case HEARTBEAT, GAP -> {
        // a gap: capture skipped changes it could not represent; the position goes past them
        // (the workflow was told to repair its targets), and nothing stops here
        if (rec.kind() == RecordKind.GAP) {
          LOG.warn(
              "apply {} -> {}: {} offset {}: changes up to {} were not captured: {}",
              config.workflow(),
              config.target(),
              t.name,
              rec.offset(),
              rec.position().gtids(),
              rec.value().path("reason").asText());
        }
        GtidPosition reached = rec.position().gtids();
        if (reached.covers(t.position)) {
          t.position = reached;
        }
        return 0;
      }
      default -> {
        return 0; // BEGIN, and SCHEMA records that do not concern a moved table
      }
    }
  }

  /** A record that must stop the stream: a DDL or a truncate on a moved table after P0. */
  private String stopReason(Topic t, ChangeRecord rec) {
    boolean ddl =
        rec.kind() == RecordKind.SCHEMA || (rec.kind() == RecordKind.DATA && "t".equals(rec.op()));
    if (!ddl
        || rec.table() == null
        || !config.keyspace().equals(rec.database())
        || !rows.isMoved(rec.table())
        || (rec.gtid() != null && (t.p0.contains(rec.gtid()) || t.position.contains(rec.gtid())))) {
      return null; // before P0, or a statement already passed over (its other records)
    }
    return StopMessages.statement(t.name, rec, config.target());
  }

  private boolean isOurs(ChangeRecord rec) {
    return config.keyspace().equals(rec.database())
        && rec.table() != null
        && rows.isMoved(rec.table());
  }

  /**
   * Commits the target transaction with every topic's position; optionally sets {@code stopped}'s
   * state in the same transaction.
   */
  private void commit(Connection c, Topic stopped, StreamsTable.State newState, String message)
      throws SQLException {
    rows.flush(); // the batched row statements first: they and the position commit together
    for (Topic t : topics.values()) {
      if (t.nextOffset != t.committedOffset || !t.position.equals(t.committedPosition)) {
        StreamsTable.advance(c, config.workflow(), t.name, t.nextOffset, t.position.toString());
      }
    }
    if (stopped != null) {
      StreamsTable.setState(c, config.workflow(), stopped.name, newState, message);
    }
    c.commit();
    markCommitted();
    rowsCommitted += rowsInOpenTx;
    recordsCommitted += recordsInOpenTx;
    rowsInOpenTx = 0;
    recordsInOpenTx = 0;
    commits++;
    if (stopped != null) {
      synchronized (this) {
        state = newState;
        if (newState == StreamsTable.State.ERROR) {
          lastError = message;
          LOG.error(message);
        } else {
          LOG.info("apply {} -> {}: {}", config.workflow(), config.target(), message);
        }
        notifyAll();
      }
    } else {
      synchronized (this) {
        notifyAll();
      }
    }
  }

  private void markCommitted() {
    for (Topic t : topics.values()) {
      t.committedOffset = t.nextOffset;
      t.committedPosition = t.position;
    }
  }

  private void rollBack(Connection c, KafkaConsumer<byte[], byte[]> consumer) {
    rows.discard();
    rowsInOpenTx = 0;
    recordsInOpenTx = 0;
    try {
      c.rollback();
    } catch (SQLException ignored) {
      // the connection may be gone; the server rolls back what it held
    }
    for (Topic t : topics.values()) {
      t.nextOffset = t.committedOffset;
      t.position = t.committedPosition;
      consumer.seek(t.tp, t.committedOffset);
    }
  }

  private void fail(Connection c, String message) {
    try {
      for (Topic t : topics.values()) {
        StreamsTable.setState(c, config.workflow(), t.name, StreamsTable.State.ERROR, message);
      }
      c.commit();
    } catch (SQLException ignored) {
      // the state stays in memory; the next start finds the stored position
    }
    synchronized (this) {
      state = StreamsTable.State.ERROR;
      lastError = message;
      notifyAll();
    }
    LOG.error(message);
  }

  private void loadPositions(Connection c) throws SQLException {
    StreamsTable.create(c);
    for (Topic t : topics.values()) {
      StreamsTable.initialise(c, config.workflow(), t.name, config.target(), 0, t.p0.toString());
      StreamsTable.Row row = StreamsTable.load(c, config.workflow(), t.name).orElseThrow();
      t.committedOffset = t.nextOffset = row.nextOffset();
      t.committedPosition = t.position = GtidPosition.parse(row.sourcePosition());
      if (row.state() == StreamsTable.State.ERROR) {
        errorTopic = t;
        state = StreamsTable.State.ERROR;
        lastError = row.message();
      }
    }
    c.commit();
  }

  private void updateCaughtUp(KafkaConsumer<byte[], byte[]> consumer) {
    List<TopicPartition> tps = topics.values().stream().map(t -> t.tp).toList();
    Map<TopicPartition, Long> ends = consumer.endOffsets(tps, Duration.ofSeconds(5));
    boolean all = true;
    for (Topic t : topics.values()) {
      all &= consumer.position(t.tp, Duration.ofSeconds(5)) >= ends.get(t.tp);
    }
    if (!all) {
      // the next unapplied record is unread: it was published no earlier than the last applied one
      oldestUnappliedMillis = lastAppliedTimestamp;
    }
    caughtUp = all;
  }

  private Connection connect() throws SQLException {
    java.util.Properties props = new java.util.Properties();
    props.setProperty("user", config.targetUser());
    if (config.targetPassword() != null) {
      props.setProperty("password", config.targetPassword());
    }
    // RowApplier sends consecutive REPLACEs / DELETEs as one batch: with bulk statements the
    // driver sends a batch as one COM_STMT_BULK_EXECUTE (the server runs its rows in order);
    // the update counts it then cannot give are not used.
    props.setProperty("useBulkStmts", "true");
    Connection c = DriverManager.getConnection(config.targetJdbcUrl(), props);
    try (Statement s = c.createStatement()) {
      String mode;
      try (ResultSet rs = s.executeQuery("SELECT @@GLOBAL.sql_mode")) {
        rs.next();
        mode = rs.getString(1);
      }
      String allowZeroDates =
          Arrays.stream(mode.split(","))
              .filter(
                  m -> !m.isBlank() && !m.equals("NO_ZERO_DATE") && !m.equals("NO_ZERO_IN_DATE"))
              .collect(Collectors.joining(","));
      s.execute("SET SESSION sql_mode = '" + allowZeroDates + "'");
      s.execute("SET SESSION time_zone = '+00:00'");
      s.execute("SET SESSION foreign_key_checks = 0");
    }
    c.setAutoCommit(false);
    return c;
  }

  private java.util.Properties consumerProperties() {
    java.util.Properties p = ChangeRecords.consumerProperties(config.bootstrap(), null);
    p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Math.max(500, config.maxRowsPerCommit()));
    p.put(
        ConsumerConfig.CLIENT_ID_CONFIG,
        "reshard-apply-" + config.workflow() + "-" + config.target());
    return p;
  }

  // --- the engine's thread-safe view

  public StreamsTable.State state() {
    return state;
  }

  public Optional<String> lastError() {
    return Optional.ofNullable(lastError);
  }

  public synchronized Map<String, GtidPosition> appliedPositions() {
    Map<String, GtidPosition> m = new LinkedHashMap<>();
    topics.values().forEach(t -> m.put(t.name, t.committedPosition));
    return m;
  }

  public synchronized boolean awaitApplied(String topic, GtidPosition position, Duration timeout) {
    Topic t = topics.get(topic);
    if (t == null) {
      throw new IllegalArgumentException("not a source topic of this applier: " + topic);
    }
    return waitUntil(
        () -> t.committedPosition != null && t.committedPosition.covers(position), timeout);
  }

  /**
   * Waits until the stream of {@code topic} has stopped at its stop point ({@link #stopAt}, {@link
   * #runTo}) with every transaction of {@code position} committed. Woken by the commit that stops
   * the stream, so it returns as soon as that commit is done, with no polling delay.
   *
   * @return false on timeout, or if the stream stopped in error
   */
  public synchronized boolean awaitStopped(String topic, GtidPosition position, Duration timeout) {
    Topic t = topics.get(topic);
    if (t == null) {
      throw new IllegalArgumentException("not a source topic of this applier: " + topic);
    }
    return waitUntil(
        () ->
            state == StreamsTable.State.STOPPED
                && !resumeRequested
                && t.committedPosition != null
                && t.committedPosition.covers(position),
        timeout);
  }

  /**
   * Waits (holding this monitor, woken by every commit) until {@code done} holds; false on timeout,
   * on interrupt, or once the stream is in error with no resume asked for.
   */
  private synchronized boolean waitUntil(BooleanSupplier done, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!done.getAsBoolean()) {
      long left = deadline - System.nanoTime();
      if (left <= 0 || (state == StreamsTable.State.ERROR && !resumeRequested)) {
        return false;
      }
      try {
        wait(Math.max(1, Math.min(left / 1_000_000, 100)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  public synchronized void stopAt(String topic, GtidPosition position) {
    topics.get(topic).stopAt = position;
  }

  /**
   * Sets the stop points of several topics at once (topic to position): the stream stops when it
   * has reached all of them, never having seen only some of them set.
   */
  public synchronized void stopAt(Map<String, GtidPosition> positions) {
    positions.forEach(
        (topic, p) -> {
          if (!topics.containsKey(topic)) {
            throw new IllegalArgumentException("not a source topic of this applier: " + topic);
          }
        });
    positions.forEach((topic, p) -> topics.get(topic).stopAt = p);
  }

  /**
   * Moves the stop point of {@code topic} to {@code position} and lets a stopped stream continue to
   * it: the stream applies up to exactly that position and stops there again.
   */
  public synchronized void runTo(String topic, GtidPosition position) {
    topics.get(topic).stopAt = position;
    if (state == StreamsTable.State.STOPPED) {
      resumeRequested = true;
    }
    notifyAll();
  }

  public synchronized void resume() {
    topics.values().forEach(t -> t.stopAt = null);
    resumeRequested = true;
    notifyAll();
  }

  public synchronized void resumeAfterError() {
    skipErrorRecord = true;
    resumeRequested = true;
    notifyAll();
  }

  /**
   * 0 when the last poll found nothing beyond what is applied; else now minus the Kafka timestamp
   * (capture's publish time) of the oldest record not yet committed to the target, or of the newest
   * applied record when the next one is not read yet (an upper bound), or of this applier's start
   * before it has seen a record. Milliseconds.
   */
  public long lagMillis() {
    if (caughtUp) {
      return 0;
    }
    // before the first record is seen its time is unknown: count from this applier's start
    long oldest = oldestUnappliedMillis > 0 ? oldestUnappliedMillis : startedMillis;
    return Math.max(0, System.currentTimeMillis() - oldest);
  }

  /** Row changes written to the target (in range) so far, committed or in the open transaction. */
  public long rowsApplied() {
    return rowsApplied;
  }

  /** Row changes committed to the target so far. */
  public long rowsCommitted() {
    return rowsCommitted;
  }

  /**
   * Records of the change topics whose processing is committed so far: applied, filtered out or
   * markers.
   */
  public long recordsCommitted() {
    return recordsCommitted;
  }

  /** Target transactions committed so far. */
  public long commits() {
    return commits;
  }

  public synchronized void stop() {
    running = false;
    notifyAll();
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  static List<String> names(Map<String, ?> m) {
    return new ArrayList<>(m.keySet());
  }

  /**
   * A deadlock (1213) or lock wait timeout (1205): the target's rows were held by another writer.
   */
  static boolean lockConflict(SQLException e) {
    return e.getErrorCode() == 1213 || e.getErrorCode() == 1205;
  }
}
