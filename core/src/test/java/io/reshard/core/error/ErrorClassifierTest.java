package io.reshard.core.error;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.error.ErrorClassifier.Failure;
import io.reshard.router.ReshardException;
import io.reshard.router.RetriableReshardException;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.sql.SQLNonTransientConnectionException;
import org.junit.jupiter.api.Test;

class ErrorClassifierTest {

  @Test
  void lockConflictsAndLostConnectionsAreRetriable() {
    assertEquals(Failure.RETRIABLE, ErrorClassifier.classify(sql(1205, "HY000")));
    assertEquals(Failure.RETRIABLE, ErrorClassifier.classify(sql(1213, "40001")));
    assertEquals(Failure.RETRIABLE, ErrorClassifier.classify(sql(0, "08S01")));
    assertEquals(
        Failure.RETRIABLE,
        ErrorClassifier.classify(new SQLNonTransientConnectionException("gone", "HY000", 0)));
  }

  @Test
  void aBatchFailureIsReadByTheFailureItCarries() {
    // what MariaDB Connector/J throws from executeBatch on a connection it has closed
    SQLException closed =
        new BatchUpdateException(
            new int[0],
            new SQLNonTransientConnectionException("Connection is closed", "08000", 1220));
    assertTrue(ErrorClassifier.isConnectionLoss(closed));
    assertEquals(Failure.RETRIABLE, ErrorClassifier.classify(closed));
    assertTrue(
        ErrorClassifier.isLockConflict(new BatchUpdateException(new int[0], sql(1213, "40001"))));
    // a wrapper with a code of its own is read by that code
    assertEquals(
        Failure.DATA,
        ErrorClassifier.classify(
            new SQLException("dup", "23000", 1062, new SQLNonTransientConnectionException("x"))));
  }

  @Test
  void refusedRowsAreDataErrors() {
    for (int code :
        new int[] {1062, 1048, 1406, 1264, 1265, 1366, 1452, 1364, 1292, 1451, 3819, 4025}) {
      assertEquals(Failure.DATA, ErrorClassifier.classify(sql(code, "23000")), "code " + code);
    }
  }

  @Test
  void refusedUsersAndLostPositionsAreFatal() {
    assertEquals(Failure.FATAL, ErrorClassifier.classify(sql(1045, "28000")));
    assertEquals(Failure.FATAL, ErrorClassifier.classify(sql(1236, "HY000")));
    assertEquals(Failure.FATAL, ErrorClassifier.classify(new IllegalStateException("bug")));
  }

  @Test
  void aReshardExceptionDecidesByItselfAndCausesAreFollowed() {
    assertEquals(
        Failure.RETRIABLE, ErrorClassifier.classify(new RetriableReshardException("later")));
    assertEquals(Failure.FATAL, ErrorClassifier.classify(new ReshardException("no")));
    assertEquals(
        Failure.DATA,
        ErrorClassifier.classify(new RuntimeException("wrapped", sql(1062, "23000"))));
  }

  @Test
  void aPlainReshardExceptionAroundACauseLeavesTheAnswerToTheCause() {
    // the copier wraps a lost connection as "copy failed: ...": it must still heal by itself
    assertEquals(
        Failure.RETRIABLE,
        ErrorClassifier.classify(new ReshardException("copy failed", sql(0, "08S01"))));
    assertEquals(
        Failure.DATA,
        ErrorClassifier.classify(new ReshardException("copy failed", sql(1406, "22001"))));
    // a kind of its own decides by itself, whatever its cause
    assertEquals(
        Failure.FATAL,
        ErrorClassifier.classify(new ReshardException("refused", sql(0, "08S01")) {}));
    assertEquals(Failure.DATA, ErrorClassifier.classify(new DataIntegrityException("warnings")));
  }

  private static SQLException sql(int code, String state) {
    return new SQLException("error " + code, state, code);
  }
}
