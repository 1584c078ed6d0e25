package io.reshard.cdc.apply;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** How the applier counts failures: the one classifier decides whether trying again can help. */
class ApplyLoopRetryTest {

  @Test
  void aLostConnectionOrALockConflictIsTriedAgainUpToFiveTimes() {
    SQLException lost = new SQLException("gone", "08S01", 0);
    SQLException deadlock = new SQLException("deadlock", "40001", 1213);
    int failures = 0;
    for (int attempt = 1; attempt <= 5; attempt++) {
      failures = ApplyLoop.failuresAfter(failures, attempt % 2 == 0 ? lost : deadlock);
      assertEquals(attempt, failures);
    }
  }

  @Test
  void aRefusedRowGoesStraightToTheLastAttemptWhichNamesIt() {
    SQLException tooLong = new SQLException("Data too long for column 'body'", "22001", 1406);
    int failures = ApplyLoop.failuresAfter(0, tooLong);
    assertEquals(4, failures, "the next attempt is the last one, sent row by row");
    assertEquals(5, ApplyLoop.failuresAfter(failures, tooLong), "then the stream stops");
  }

  @Test
  void aFatalErrorStopsAsSoonAsTheRowIsNamed() {
    SQLException readOnly = new SQLException("read-only", "HY000", 1290);
    assertEquals(4, ApplyLoop.failuresAfter(0, readOnly));
  }

  @Test
  void aConnectionLostDuringTheRowByRowAttemptStillEndsTheApplier() {
    // the row-by-row attempt names the record in a new exception: a lost connection (a target that
    // closes it on a row above its max_allowed_packet, say) must keep what tells it is one
    io.reshard.cdc.ChangeRecord rec =
        new io.reshard.cdc.ChangeRecord(
            io.reshard.cdc.RecordKind.DATA,
            7,
            "u",
            "ks",
            "t",
            "1-1-9",
            null,
            java.util.Map.of("id", 12),
            null,
            null,
            0,
            0,
            null,
            null,
            null);
    SQLException closed =
        new java.sql.SQLNonTransientConnectionException("(conn=7) Connection is closed", null, 0);
    SQLException named = StopMessages.naming(closed, "ks.ks.c0-", rec);
    assertTrue(ApplyLoop.endsThisApplier(named, 5), named.toString());
    SQLException refused = new SQLException("Data too long for column 'body'", "22001", 1406);
    SQLException namedRefusal = StopMessages.naming(refused, "ks.ks.c0-", rec);
    assertTrue(namedRefusal.getMessage().contains("key {id=12}"), namedRefusal.getMessage());
    assertFalse(ApplyLoop.endsThisApplier(namedRefusal, 5), "a refused row stops the stream");
  }

  @Test
  void aLostConnectionEndsTheApplierAtOnceSoThatANewOneReconnects() {
    // the applier's one connection is dead: trying again on it could never succeed
    SQLException lost = new SQLException("Connection is closed", "08000", 0);
    assertTrue(ApplyLoop.endsThisApplier(lost, 1));
  }

  @Test
  void aLockConflictEndsTheApplierOnlyOnceItsAttemptsAreUsedUp() {
    SQLException lockWait = new SQLException("Lock wait timeout exceeded", "HY000", 1205);
    assertFalse(ApplyLoop.endsThisApplier(lockWait, 4));
    assertTrue(ApplyLoop.endsThisApplier(lockWait, 5));
  }

  @Test
  void aDataErrorNeverEndsTheApplierItStopsTheStreamForTheOperator() {
    SQLException tooLong = new SQLException("Data too long for column 'body'", "22001", 1406);
    assertFalse(ApplyLoop.endsThisApplier(tooLong, 5));
  }

  @Test
  void onlyDeadlocksAndLockWaitsCountAsLockConflictsWithTheCopy() {
    assertTrue(ApplyLoop.lockConflict(new SQLException("deadlock", "40001", 1213)));
    assertTrue(ApplyLoop.lockConflict(new SQLException("lock wait", "HY000", 1205)));
    assertFalse(ApplyLoop.lockConflict(new SQLException("gone", "08S01", 0)));
    assertFalse(ApplyLoop.lockConflict(new SQLException("too long", "22001", 1406)));
  }
}
