package io.reshard.cdc.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.HandOver;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OwnershipTest {
  private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

  // split c0- (server 1) into c0-e0 (server 2) and e0- (server 3), then back, then forward again
  private static final HandOver SWITCH =
      new HandOver(T0, Map.of("c0-", "0-1-100"), Map.of("c0-e0", "0-2-40", "e0-", "0-3-40"));
  private static final HandOver REVERSE =
      new HandOver(
          T0.plusSeconds(60), Map.of("c0-e0", "0-2-70", "e0-", "0-3-75"), Map.of("c0-", "0-1-130"));
  private static final HandOver SWITCH_AGAIN =
      new HandOver(
          T0.plusSeconds(120),
          Map.of("c0-", "0-1-150"),
          Map.of("c0-e0", "0-2-90", "e0-", "0-3-95"));

  @Test
  void aShardWithoutHandOversOwnsEveryTransaction() {
    Ownership o = new Ownership(List.of(SWITCH));
    assertEquals(new Ownership.Verdict(true, java.util.Optional.empty()), o.of("-c0", "0-9-5"));
  }

  @Test
  void theSourceOwnsUpToGAndNotAfter() {
    Ownership o = new Ownership(List.of(SWITCH));
    assertTrue(o.of("c0-", "0-1-100").owned());
    assertTrue(o.of("c0-", "0-1-100").waitFor().isEmpty());
    assertFalse(o.of("c0-", "0-1-101").owned(), "after G only reverse streams write there");
  }

  @Test
  void aTargetOwnsOnlyAfterItsTakeAndWaitsForTheGivers() {
    Ownership o = new Ownership(List.of(SWITCH));
    assertFalse(o.of("c0-e0", "0-2-40").owned(), "the copy and the forward stream wrote that");
    Ownership.Verdict after = o.of("c0-e0", "0-2-41");
    assertTrue(after.owned());
    assertEquals(SWITCH, after.waitFor().orElseThrow());
  }

  @Test
  void aTargetThatHasNotTakenYetOwnsNothingOfItsOwn() {
    Ownership o = new Ownership(List.of(HandOver.given(T0, Map.of("c0-", "0-1-100"))));
    assertTrue(o.of("c0-", "0-1-100").owned());
    assertFalse(o.of("c0-", "0-1-101").owned());
    // the target is not named yet: the hand-over's taker side is recorded before it opens, and
    // until then only reshard's own (marked) writes are in its topic
    assertTrue(o.of("c0-e0", "0-2-41").owned());
  }

  @Test
  void ownershipFollowsEveryHandOverBackAndForth() {
    // given in any order: sorted by time
    Ownership o = new Ownership(List.of(SWITCH_AGAIN, REVERSE, SWITCH));
    assertTrue(o.of("c0-", "0-1-99").owned());
    assertFalse(o.of("c0-", "0-1-120").owned(), "reverse stream writes");
    assertFalse(o.of("c0-", "0-1-130").owned(), "reverse stream writes up to the reverse");
    Ownership.Verdict back = o.of("c0-", "0-1-131");
    assertTrue(back.owned());
    assertEquals(REVERSE, back.waitFor().orElseThrow());
    assertFalse(o.of("c0-", "0-1-151").owned(), "given again");

    assertTrue(o.of("e0-", "0-3-60").owned());
    assertFalse(o.of("e0-", "0-3-80").owned(), "the new forward stream's writes");
    assertEquals(SWITCH_AGAIN, o.of("e0-", "0-3-96").waitFor().orElseThrow());
    assertEquals(java.util.Set.of("c0-", "c0-e0", "e0-"), java.util.Set.copyOf(o.shards()));
  }

  @Test
  void mySqlPositionsCompareAsGtidSets() {
    String uuid = "3e11fa47-71ca-11e1-9e33-c80aa9429562";
    HandOver h =
        new HandOver(
            T0,
            Map.of("-", uuid + ":1-50"),
            Map.of("-80", "aaaaaaaa-71ca-11e1-9e33-c80aa9429562:1-7"));
    Ownership o = new Ownership(List.of(h));
    assertTrue(o.of("-", uuid + ":50").owned());
    assertFalse(o.of("-", uuid + ":51").owned());
    assertFalse(o.of("-80", "aaaaaaaa-71ca-11e1-9e33-c80aa9429562:7").owned());
    assertTrue(o.of("-80", "aaaaaaaa-71ca-11e1-9e33-c80aa9429562:8").owned());
  }
}
