package io.reshard.cdc.capture;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureListener;
import io.reshard.cdc.CaptureRefusedException;
import io.reshard.cdc.CaptureSkip;
import io.reshard.cdc.CdcException;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.core.position.ServerPositions;
import io.reshard.core.value.MariaDbCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One capture session, start to end, as {@link io.reshard.cdc.CaptureEngine} runs it (the engine
 * adds the thread, retries and state; this class is public only for it):
 *
 * <ol>
 *   <li>connect to the source over JDBC and read its collations;
 *   <li>create the change and offsets topics if missing;
 *   <li>initialise the transactional producer, fencing any older capture of this shard;
 *   <li>read the stored position, or take {@code start.position} and store it at once;
 *   <li>if a {@link CaptureSkip} applies to the stored position: store the source's current
 *       position instead, with a gap record in the same Kafka transaction;
 *   <li>stream the binlog from that position and publish until stopped or failed.
 * </ol>
 *
 * Every resource is closed on the way out, the binlog connection last-in-first-out, and an open
 * Kafka transaction is aborted, so what a failed session sent never becomes visible.
 */
public final class CaptureSession {
  private static final Logger LOG = LoggerFactory.getLogger(CaptureSession.class);

  private CaptureSession() {}

  /**
   * Checks the source before anything starts, and resolves {@code start.position} to a GTID
   * position now, so that every change committed after this call returns is captured when no
   * position is stored yet.
   *
   * @return where to start if the offsets topic holds no position for this shard
   * @throws CaptureRefusedException listing every problem found
   * @throws CdcException.Retriable if the source cannot be reached
   */
  public static CapturePosition preflight(CaptureConfig config) {
    try (Connection c = connect(config)) {
      Preflight.ServerSettings s = Preflight.read(c, config.database());
      List<String> problems = Preflight.problems(s, config);
      if (!problems.isEmpty()) {
        throw new CaptureRefusedException("capture of " + config.describe(), problems);
      }
      return startPosition(c, config, s.mariaDb());
    } catch (SQLException e) {
      if (ErrorClassifier.isAccessDenied(e.getErrorCode())) {
        throw new CaptureRefusedException(
            "capture of " + config.describe(),
            List.of("the source refused the user " + config.sourceUser() + ": " + e.getMessage()));
      }
      throw new CdcException.Retriable(
          "cannot reach the source " + config.describe() + ": " + e.getMessage(), e);
    }
  }

  /**
   * Runs one session until {@code stop} returns true or it fails.
   *
   * @param initial where to start if no position is stored (from {@link #preflight})
   * @param skip a skip past a stop, applied if the stored position is the one it was made for; or
   *     null
   * @throws CdcException retriable or not; never returns normally unless stopped
   * @throws InterruptedException if the engine thread is interrupted
   */
  public static void run(
      CaptureConfig config,
      CapturePosition initial,
      CaptureSkip skip,
      CaptureListener listener,
      Clock clock,
      BooleanSupplier stop)
      throws InterruptedException {
    RecordEncoder encoder = new RecordEncoder(config, clock);
    try (Connection jdbc = connect(config)) {
      MariaDbCharsets charsets = MariaDbCharsets.load(jdbc);
      boolean mariaDb = jdbc.getMetaData().getDatabaseProductVersion().contains("MariaDB");
      int recordBytes = recordBytes(jdbc, config);
      KafkaTopics.Limits topic = KafkaTopics.ensure(config, recordBytes);
      try (KafkaPublisher kafka =
              new KafkaPublisher(config, encoder.offsetsKey(), recordBytes, topic);
          PipelinedPublisher publisher =
              new PipelinedPublisher(
                  kafka,
                  listener,
                  "reshard-capture-publisher " + config.describe(),
                  config.batchMaxRows(),
                  config.batchMaxBytes())) {
        LOG.info(
            "{}: records up to {} bytes ({})",
            config.describe(),
            kafka.limits().maxRecordBytes(),
            kafka.limits().describe());
        Optional<CapturePosition> stored = KafkaTopics.readPosition(config, encoder.offsetsKey());
        CapturePosition start = stored.orElse(initial);
        if (skip != null && stored.isPresent() && skip.appliesTo(stored.get())) {
          start = skipPast(jdbc, config, mariaDb, publisher, encoder, stored.get(), skip, clock);
        }
        LOG.info(
            "{}: {} position {}", config.describe(), stored.isPresent() ? "stored" : "new", start);
        try (BinlogSession session = new BinlogSession(config, charsets, mariaDb, start.gtids())) {
          session.connect(config.connectTimeout());
          listener.onSessionStarted(start, stored.isPresent());
          SchemaCache schemas = new SchemaCache(jdbc, encoder);
          new CaptureLoop(config, session, publisher, encoder, schemas, start)
              .run(stop, stored.isEmpty());
        }
      }
    } catch (SQLException e) {
      throw new CdcException.Retriable(
          "source " + config.describe() + " failed: " + e.getMessage(), e);
    }
  }

  /**
   * The largest record capture sizes its topic and producer for: {@code topic.max.message.bytes},
   * or when that is 0, enough for a change of a row with one value as large as the source's {@code
   * max_allowed_packet} lets a client write ({@link RecordLimits#sizedRecordBytes}).
   */
  private static int recordBytes(Connection jdbc, CaptureConfig config) throws SQLException {
    if (config.topicMaxMessageBytes() > 0) {
      return config.topicMaxMessageBytes();
    }
    try (Statement st = jdbc.createStatement();
        ResultSet rs = st.executeQuery("SELECT @@GLOBAL.max_allowed_packet")) {
      rs.next();
      return RecordLimits.sizedRecordBytes(rs.getLong(1));
    }
  }

  /**
   * Stores the source's current position in place of {@code from}, with a gap record saying that
   * the changes between them were not captured, in one Kafka transaction, and waits for its commit.
   *
   * @return the position stored: where the stream starts
   * @throws CdcException (not retriable) if the source's position does not include {@code from}:
   *     then it is not the server capture stopped on, and nothing is skipped
   */
  private static CapturePosition skipPast(
      Connection jdbc,
      CaptureConfig config,
      boolean mariaDb,
      PipelinedPublisher publisher,
      RecordEncoder encoder,
      CapturePosition from,
      CaptureSkip skip,
      Clock clock) {
    GtidPosition now = currentGtids(jdbc);
    if (!now.covers(from.gtids())) {
      throw new CdcException(
          "capture of "
              + config.describe()
              + " cannot skip from "
              + from
              + ": the source's position "
              + now
              + " does not include it; nothing was skipped",
          false,
          null);
    }
    String file = null;
    long pos = 0;
    try (Statement st = jdbc.createStatement();
        ResultSet rs = st.executeQuery("SHOW MASTER STATUS")) {
      if (rs.next()) {
        file = rs.getString(1);
        pos = rs.getLong(2);
      }
    } catch (SQLException e) {
      throw new CdcException.Retriable("cannot read SHOW MASTER STATUS: " + e.getMessage(), e);
    }
    CapturePosition to =
        new CapturePosition(now, null, 0, java.util.Map.of(), file, pos, clock.millis());
    publisher.send(encoder.gap(from, to, skip.reason(), 0));
    publisher.commit(to);
    publisher.flush();
    LOG.warn(
        "{}: skipped what capture could not publish: the changes after {} up to {} are not"
            + " captured (a gap record says so): {}",
        config.describe(),
        from.gtids(),
        now,
        skip.reason());
    return to;
  }

  private static CapturePosition startPosition(
      Connection jdbc, CaptureConfig config, boolean mariaDb) {
    String start = config.startPosition();
    if (start.equals(CaptureConfig.START_EARLIEST)) {
      return CapturePosition.at(GtidPosition.EMPTY);
    }
    if (!start.equals(CaptureConfig.START_CURRENT)) {
      return CapturePosition.at(GtidPosition.parse(start));
    }
    return CapturePosition.at(currentGtids(jdbc));
  }

  /** The source's current GTID position, read the way its flavor gives it. */
  private static GtidPosition currentGtids(Connection jdbc) {
    try {
      return ServerPositions.current(jdbc);
    } catch (SQLException e) {
      throw new CdcException.Retriable("cannot read the source's position: " + e.getMessage(), e);
    }
  }

  private static Connection connect(CaptureConfig config) throws SQLException {
    String url =
        ServerPositions.jdbcUrl(config.sourceFlavor(), config.sourceHost(), config.sourcePort(), "")
            + "?connectTimeout="
            + config.connectTimeout().toMillis();
    return DriverManager.getConnection(url, config.sourceUser(), config.sourcePassword());
  }
}
