package io.reshard.core.error;

import io.reshard.router.ReshardException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientConnectionException;
import java.sql.SQLTransientException;

/**
 * The one place that decides what a failure means for the pipeline: try again, stop for an
 * operator, or stop on a data error. Every loop that retries (copy chunks, apply batches, capture
 * sessions) asks it instead of comparing error codes of its own.
 *
 * <ul>
 *   <li>{@link Failure#RETRIABLE}: the server or broker may answer later (connection lost, lock
 *       wait timeout, deadlock, a Kafka timeout, any {@link ReshardException#retriable()} one).
 *   <li>{@link Failure#DATA}: a row the target refuses (duplicate key, a value out of range, a NULL
 *       into NOT NULL, a truncation): retrying the same row gives the same answer; the stream stops
 *       and names the row.
 *   <li>{@link Failure#FATAL}: anything else: a refused user, a binlog position the server no
 *       longer has, a fenced producer, a bug. An operator must act.
 * </ul>
 *
 * <p>Stateless and thread-safe.
 */
public final class ErrorClassifier {

  /** What a failure means. */
  public enum Failure {
    /** Trying again later can succeed without an operator. */
    RETRIABLE,
    /** The data itself is refused: the same change fails again until the row is fixed. */
    DATA,
    /** An operator must act first. */
    FATAL
  }

  /** {@code ER_DBACCESS_DENIED_ERROR}: the user may not use the database. */
  public static final int ER_DBACCESS_DENIED = 1044;

  /** {@code ER_ACCESS_DENIED_ERROR}: wrong user or password. */
  public static final int ER_ACCESS_DENIED = 1045;

  /** {@code ER_DUP_ENTRY}: a duplicate value for a primary or unique key. */
  public static final int ER_DUP_ENTRY = 1062;

  /**
   * {@code ER_LOCK_WAIT_TIMEOUT}: {@code innodb_lock_wait_timeout} passed waiting for a row lock.
   */
  public static final int ER_LOCK_WAIT_TIMEOUT = 1205;

  /** {@code ER_LOCK_DEADLOCK}: InnoDB chose this transaction as a deadlock victim. */
  public static final int ER_LOCK_DEADLOCK = 1213;

  /** {@code ER_SPECIFIC_ACCESS_DENIED_ERROR}: a privilege is missing (REPLICATION SLAVE, ...). */
  public static final int ER_SPECIFIC_ACCESS_DENIED = 1227;

  /**
   * {@code ER_MASTER_FATAL_ERROR_READING_BINLOG}: the server cannot serve the binlog from the
   * requested position (purged, or never there).
   */
  public static final int ER_BINLOG_POSITION_LOST = 1236;

  /** {@code ER_BAD_NULL_ERROR}: NULL into a NOT NULL column. */
  public static final int ER_BAD_NULL = 1048;

  /** {@code ER_DATA_TOO_LONG}: a value longer than its column. */
  public static final int ER_DATA_TOO_LONG = 1406;

  /** {@code ER_WARN_DATA_OUT_OF_RANGE}: a number outside its column's range. */
  public static final int ER_DATA_OUT_OF_RANGE = 1264;

  /** {@code WARN_DATA_TRUNCATED}: a value the column could not hold exactly. */
  public static final int WARN_DATA_TRUNCATED = 1265;

  /** {@code ER_TRUNCATED_WRONG_VALUE_FOR_FIELD}: a value of the wrong form for its column. */
  public static final int ER_TRUNCATED_WRONG_VALUE = 1366;

  /** {@code ER_NO_REFERENCED_ROW_2}: a foreign key's parent row is missing. */
  public static final int ER_NO_REFERENCED_ROW = 1452;

  /** {@code ER_NO_DEFAULT_FOR_FIELD}: a NOT NULL column without a default got no value. */
  public static final int ER_NO_DEFAULT_FOR_FIELD = 1364;

  /** {@code ER_TRUNCATED_WRONG_VALUE}: a value of the wrong form, such as a date out of range. */
  public static final int ER_WRONG_VALUE = 1292;

  /** {@code ER_ROW_IS_REFERENCED_2}: a foreign key's child rows still point at the row. */
  public static final int ER_ROW_IS_REFERENCED = 1451;

  /** MySQL 8's {@code ER_CHECK_CONSTRAINT_VIOLATED}: the row breaks a CHECK constraint. */
  public static final int ER_CHECK_CONSTRAINT_VIOLATED = 3819;

  /** MariaDB's {@code ER_CONSTRAINT_FAILED}: the row breaks a CHECK constraint. */
  public static final int ER_CONSTRAINT_FAILED = 4025;

  private ErrorClassifier() {}

  /**
   * What {@code failure} means; looks through causes for the first one it knows: a {@link
   * ReshardException} of a kind of its own decides by itself (a {@link DataIntegrityException} is a
   * data error), while a plain {@code ReshardException} that only wraps a cause ("copy failed:
   * ...") leaves it to that cause; an {@link SQLException} decides by its code and state, a Kafka
   * client exception by its class. Anything unknown is fatal.
   */
  public static Failure classify(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof DataIntegrityException) {
        return Failure.DATA;
      }
      if (t instanceof ReshardException r && (r.retriable() || !isWrapper(r))) {
        return r.retriable() ? Failure.RETRIABLE : Failure.FATAL;
      }
      if (t instanceof SQLException e) {
        return classify(e);
      }
      if (isKafkaRetriable(t)) {
        return Failure.RETRIABLE;
      }
    }
    return Failure.FATAL;
  }

  /** A plain {@link ReshardException} around a cause: it says where, the cause says what. */
  private static boolean isWrapper(ReshardException r) {
    return r.getClass() == ReshardException.class && r.getCause() != null;
  }

  /** What an SQL failure means, by its MySQL/MariaDB error code and SQLSTATE. */
  public static Failure classify(SQLException failure) {
    SQLException e = carried(failure);
    if (isLockConflict(e) || isConnectionLoss(e)) {
      return Failure.RETRIABLE;
    }
    return switch (e.getErrorCode()) {
      case ER_DUP_ENTRY,
          ER_BAD_NULL,
          ER_DATA_TOO_LONG,
          ER_DATA_OUT_OF_RANGE,
          WARN_DATA_TRUNCATED,
          ER_TRUNCATED_WRONG_VALUE,
          ER_NO_REFERENCED_ROW,
          ER_NO_DEFAULT_FOR_FIELD,
          ER_WRONG_VALUE,
          ER_ROW_IS_REFERENCED,
          ER_CHECK_CONSTRAINT_VIOLATED,
          ER_CONSTRAINT_FAILED ->
          Failure.DATA;
      default ->
          e instanceof SQLTransientException || e instanceof SQLRecoverableException
              ? Failure.RETRIABLE
              : Failure.FATAL;
    };
  }

  /** A lock wait timeout or a deadlock: the same statement can succeed when tried again. */
  public static boolean isLockConflict(SQLException failure) {
    SQLException e = carried(failure);
    return e.getErrorCode() == ER_LOCK_WAIT_TIMEOUT || e.getErrorCode() == ER_LOCK_DEADLOCK;
  }

  /** The connection to the server was lost or could not be made (SQLSTATE class 08). */
  public static boolean isConnectionLoss(SQLException failure) {
    SQLException e = carried(failure);
    return e instanceof SQLNonTransientConnectionException
        || e instanceof SQLTransientConnectionException
        || (e.getSQLState() != null && e.getSQLState().startsWith("08"));
  }

  /**
   * The failure {@code e} stands for: itself, or, if it has neither an error code nor an SQLSTATE
   * of its own, the SQL failure it carries. MariaDB Connector/J reports a batch that met a closed
   * connection as a {@code BatchUpdateException} built from its cause alone (code 0, no state):
   * read by its own code, a lost connection would look like a data error and stop the stream.
   */
  private static SQLException carried(SQLException e) {
    SQLException s = e;
    while (s.getErrorCode() == 0
        && s.getSQLState() == null
        && s.getCause() instanceof SQLException c) {
      s = c;
    }
    return s;
  }

  /** The server refused the user: wrong password, or no right to the database (1044, 1045). */
  public static boolean isAccessDenied(int errorCode) {
    return errorCode == ER_ACCESS_DENIED || errorCode == ER_DBACCESS_DENIED;
  }

  /** A Kafka client failure that Kafka itself marks retriable (timeouts, leader changes). */
  private static boolean isKafkaRetriable(Throwable t) {
    for (Class<?> c = t.getClass(); c != null; c = c.getSuperclass()) {
      if (c.getName().equals("org.apache.kafka.common.errors.RetriableException")) {
        return true;
      }
    }
    return false;
  }
}
