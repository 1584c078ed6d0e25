package io.reshard.cdc.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.reshard.router.KeyspaceId;
import org.junit.jupiter.api.Test;

class KeyspacePartitionsTest {
  @Test
  void sixteenPartitionsAreTheSixteenHexRanges() {
    KeyspacePartitions p = new KeyspacePartitions(16);
    assertEquals(0, p.of(KeyspaceId.fromHex("00")));
    assertEquals(0, p.of(KeyspaceId.fromHex("0fffffffffffffff")));
    assertEquals(1, p.of(KeyspaceId.fromHex("10")));
    assertEquals(12, p.of(KeyspaceId.fromHex("c0")));
    assertEquals(13, p.of(KeyspaceId.fromHex("d1")));
    assertEquals(15, p.of(KeyspaceId.fromHex("ffffffffffffffff")));
  }

  @Test
  void anyCountSplitsTheKeyspaceEvenly() {
    KeyspacePartitions p = new KeyspacePartitions(3);
    assertEquals(0, p.of(KeyspaceId.fromHex("55555555")));
    assertEquals(1, p.of(KeyspaceId.fromHex("55555556")));
    assertEquals(2, p.of(KeyspaceId.fromHex("ffffffff")));
    assertEquals(0, new KeyspacePartitions(1).of(KeyspaceId.fromHex("ff")));
    assertThrows(IllegalArgumentException.class, () -> new KeyspacePartitions(0));
  }
}
