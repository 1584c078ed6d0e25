package io.reshard.cdc.stream;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.position.GtidPosition;
import org.junit.jupiter.api.Test;

class ShardProgressTest {
  private static final String UUID = "3e11fa47-71ca-11e1-9e33-c80aa9429562";

  @Test
  void aTopicIsPassedByAHeartbeatOrByATransactionAfterThePosition() {
    GtidPosition g = GtidPosition.parse(UUID + ":1-50");
    ShardProgress p = new ShardProgress();
    p.read(UUID + ":49");
    assertFalse(p.passed(g), "the set read does not hold 1-48, and 49 is not after G");
    p.read(UUID + ":50");
    assertFalse(p.passed(g));
    p.reached(GtidPosition.parse(UUID + ":1-50"));
    assertTrue(p.passed(g), "a heartbeat at G");

    ShardProgress q = new ShardProgress();
    q.read(UUID + ":51");
    assertTrue(q.passed(g), "a transaction after G");
  }

  @Test
  void progressSurvivesItsOffsetMetadata() {
    ShardProgress p = new ShardProgress();
    p.read("0-1-7");
    ShardProgress back = ShardProgress.fromMetadata(p.toMetadata());
    assertTrue(back.passed(GtidPosition.parse("0-1-7")));
    assertFalse(back.passed(GtidPosition.parse("0-1-8")));
    assertFalse(ShardProgress.fromMetadata("").passed(GtidPosition.parse("0-1-1")));
    assertThrows(IllegalStateException.class, () -> ShardProgress.fromMetadata("{not json"));
  }
}
