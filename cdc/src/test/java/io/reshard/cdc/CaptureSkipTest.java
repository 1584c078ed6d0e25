package io.reshard.cdc;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A skip applies only to the stored position it was made for, so it never applies twice. */
class CaptureSkipTest {
  private static final CapturePosition INSIDE =
      new CapturePosition(
          GtidPosition.parse("0-1-10"), "0-1-11", 3, Map.of("ks.t", 3L), "bin.1", 500, 1);

  @Test
  void appliesToTheSamePositionWhateverItsBinlogCoordinates() {
    CaptureSkip skip = new CaptureSkip(INSIDE, "why");
    assertTrue(skip.appliesTo(INSIDE));
    assertTrue(
        skip.appliesTo(
            new CapturePosition(
                GtidPosition.parse("0-1-10"), "0-1-11", 3, Map.of("ks.t", 3L), "bin.2", 4, 9)));
  }

  @Test
  void doesNotApplyOnceThePositionMovedOnOrToAnotherOne() {
    CaptureSkip skip = new CaptureSkip(INSIDE, "why");
    assertFalse(skip.appliesTo(CapturePosition.at(GtidPosition.parse("0-1-14"))), "after the gap");
    assertFalse(skip.appliesTo(CapturePosition.at(GtidPosition.parse("0-1-10"))), "fewer rows");
    assertFalse(
        skip.appliesTo(
            new CapturePosition(GtidPosition.parse("0-1-10"), "0-1-11", 4, Map.of(), null, 0, 0)),
        "more rows");
    assertFalse(skip.appliesTo(null));
  }

  @Test
  void needsAPositionAndAReason() {
    assertThrows(NullPointerException.class, () -> new CaptureSkip(null, "why"));
    assertThrows(NullPointerException.class, () -> new CaptureSkip(INSIDE, null));
  }
}
