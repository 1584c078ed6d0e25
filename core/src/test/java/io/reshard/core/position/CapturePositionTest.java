package io.reshard.core.position;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CapturePositionTest {

  @Test
  void insideATransactionRoundTripsThroughJson() {
    CapturePosition p =
        new CapturePosition(
            GtidPosition.parse("1-1-41,7-1-2"),
            "1-1-42",
            1500,
            Map.of("ks.t", 1000L, "ks.u", 500L),
            "mariadb-bin.000003",
            123456,
            1700000000000L);
    CapturePosition back = CapturePosition.fromJson(p.toJson());
    assertEquals(p, back);
    assertTrue(back.insideTransaction());
    String json = new String(p.toJson(), StandardCharsets.UTF_8);
    assertTrue(
        json.startsWith("{\"gtids\":\"1-1-41,7-1-2\",\"txn\":\"1-1-42\",\"rows\":1500"), json);
  }

  @Test
  void betweenTransactionsHasNoTransactionFields() {
    CapturePosition p = CapturePosition.at(GtidPosition.parse("1-1-5"));
    String json = new String(p.toJson(), StandardCharsets.UTF_8);
    assertEquals("{\"gtids\":\"1-1-5\",\"ts_ms\":0}", json);
    assertFalse(CapturePosition.fromJson(p.toJson()).insideTransaction());
  }

  @Test
  void rowsWithoutATransactionAreRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () -> new CapturePosition(GtidPosition.EMPTY, null, 3, Map.of(), null, 0, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> CapturePosition.fromJson("{\"rows\":3}".getBytes(StandardCharsets.UTF_8)));
  }
}
