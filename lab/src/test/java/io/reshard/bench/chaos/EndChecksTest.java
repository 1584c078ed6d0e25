package io.reshard.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.router.KeyRange;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The end checks on rows found on the owners of map version 3 of {@link MapTimelineTest}. */
class EndChecksTest {
  private final AckLedger ledger = new AckLedger();
  private final List<EndChecks.Row> low = new ArrayList<>(); // on -40
  private final List<EndChecks.Row> high = new ArrayList<>(); // on 40-80

  private final long a = MapTimelineTest.idIn("-40");
  private final long b = MapTimelineTest.idIn("40-80");

  private EndChecks evaluate() {
    return EndChecks.evaluate(
        List.of(
            new EndChecks.OwnerRows("-40", KeyRange.parse("-40"), low),
            new EndChecks.OwnerRows("40-80", KeyRange.parse("40-80"), high)),
        ledger,
        MapTimelineTest.timeline(),
        ChaosKeyspace.HASH,
        ChaosKeyspace::keyOf);
  }

  private static EndChecks.Row row(long id, long val) {
    return new EndChecks.Row(id, ChaosKeyspace.keyOf(id), val);
  }

  private void acked(long id, long value) {
    ledger.acknowledged(new AckLedger.Write(id, value, 3, "-40", 3_500, 3, true, "live"));
  }

  @Test
  void rowsHoldingTheirLastAcknowledgedValuesAreClean() {
    ledger.loaded(a);
    acked(b, 7);
    low.add(row(a, AckLedger.LOADED));
    high.add(row(b, 7));
    EndChecks c = evaluate();
    assertTrue(c.clean(), c.toString());
    assertEquals(2, c.rows());
  }

  @Test
  void aMissingRowAndAnOlderValueAreLost() {
    acked(a, 4);
    acked(a, 9);
    acked(b, 3);
    low.add(row(a, 4)); // 9 was acknowledged after 4
    EndChecks c = evaluate();
    assertEquals(2, c.lost(), c.samples().toString());
  }

  @Test
  void aLaterValueOfUnknownOutcomeIsNotLostButARefusedOneIsAPhantom() {
    acked(a, 4);
    ledger.unknown(a, 6);
    acked(b, 3);
    ledger.refused(b, 8);
    low.add(row(a, 6));
    high.add(row(b, 8));
    EndChecks c = evaluate();
    assertEquals(0, c.lost(), c.samples().toString());
    assertEquals(1, c.phantom(), c.samples().toString());
  }

  @Test
  void anInsertOfUnknownOutcomeMayBeThereOrNot() {
    ledger.unknown(a, 2);
    ledger.unknown(b, 3);
    low.add(row(a, 2));
    assertTrue(evaluate().clean());
  }

  @Test
  void anIdOnTwoOwnersIsDuplicatedAndOneOutsideItsRangeMisplaced() {
    acked(a, 1);
    low.add(row(a, 1));
    high.add(row(a, 1));
    EndChecks c = evaluate();
    assertEquals(1, c.duplicated());
    assertEquals(1, c.misplaced(), c.samples().toString());
    assertFalse(c.clean());
  }

  @Test
  void aRowNobodyWroteIsAPhantom() {
    low.add(row(a, 1));
    assertEquals(1, evaluate().phantom());
  }

  @Test
  void aStaleOwnersAcceptedWriteIsCounted() {
    ledger.acknowledged(new AckLedger.Write(a, 5, 1, "-80", 3_500, 1, true, "lagging"));
    low.add(row(a, 5));
    EndChecks c = evaluate();
    assertEquals(1, c.staleOwner());
    assertTrue(
        c.samples().get("stale_owner").get(0).contains("lagging router"), c.samples().toString());
  }
}
