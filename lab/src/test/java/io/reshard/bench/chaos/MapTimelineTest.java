package io.reshard.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.VSchema;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The stale-owner check against a split of {@code -80}: version 1 (two shards), 2 (reads on the
 * targets), 3 (writes on the targets: {@code -40} and {@code 40-80} at epoch 3, {@code -80}
 * retired).
 */
class MapTimelineTest {
  static final VSchema VSCHEMA = VSchema.parse(ChaosKeyspace.VSCHEMA);
  static final ShardMap V1 =
      ShardMap.first(
          "ks", VSCHEMA, List.of(a("-80", "db1", true, true), a("80-", "db2", true, true)));
  static final ShardMap V2 =
      V1.next(
          VSCHEMA,
          List.of(
              a("-80", "db1", false, true),
              a("-40", "db3", true, false),
              a("40-80", "db4", true, false),
              a("80-", "db2", true, true)));
  static final ShardMap V3 =
      V2.next(
          VSCHEMA,
          List.of(
              a("-80", "db1", false, false),
              a("-40", "db3", true, true),
              a("40-80", "db4", true, true),
              a("80-", "db2", true, true)));

  private final MapTimeline timeline = timeline();

  static MapTimeline timeline() {
    MapTimeline t = new MapTimeline();
    t.seen(V1, 1_000);
    t.seen(V2, 2_000);
    t.seen(V3, 3_000);
    return t;
  }

  static ShardAssignment a(String range, String server, boolean reads, boolean writes) {
    return new ShardAssignment(KeyRange.parse(range), server, reads, writes);
  }

  /** An id whose row lies in {@code range}. */
  static long idIn(String range) {
    KeyRange r = KeyRange.parse(range);
    for (long id = 1; ; id++) {
      if (r.contains(ksid(id))) {
        return id;
      }
    }
  }

  static KeyspaceId ksid(long id) {
    return ChaosKeyspace.HASH.keyspaceId(ChaosKeyspace.keyOf(id));
  }

  private Optional<String> check(
      long id, long version, String shard, long begin, long epoch, boolean writable) {
    return timeline.staleOwner(
        new AckLedger.Write(id, 5, version, shard, begin, epoch, writable, "live"), ksid(id));
  }

  @Test
  void theEpochsAreThoseTheSwitchGives() {
    assertEquals(3, V3.writeShardFor(ksid(idIn("-40"))).epoch());
    assertEquals(1, V3.writeShardFor(ksid(idIn("80-"))).epoch());
  }

  @Test
  void aWriteToTheOldOwnerThatBeganBeforeTheNewMapWasSeenIsNotStale() {
    assertEquals(Optional.empty(), check(idIn("-40"), 1, "-80", 2_500, 1, true));
    assertEquals(Optional.empty(), check(idIn("-40"), 2, "-80", 2_999, 1, true));
  }

  @Test
  void aWriteToTheOldOwnerThatBeganAfterTheNewMapWasSeenIsStale() {
    Optional<String> why = check(idIn("-40"), 1, "-80", 3_500, 1, true);
    assertTrue(why.isPresent());
    assertTrue(why.get().contains("map version 3"), why.get());
    assertTrue(why.get().contains("-40 (epoch 3)"), why.get());
  }

  @Test
  void aWriteOnTheNewOwnerOrOnAnUntouchedShardIsNotStale() {
    assertEquals(Optional.empty(), check(idIn("40-80"), 3, "40-80", 3_500, 3, true));
    assertEquals(Optional.empty(), check(idIn("80-"), 1, "80-", 3_500, 1, true));
  }

  @Test
  void aCommitWhoseFenceRowDidNotAllowItIsStale() {
    Optional<String> closed = check(idIn("-40"), 1, "-80", 2_500, 1, false);
    assertTrue(closed.orElse("").contains("writable false"), closed.toString());
    Optional<String> otherEpoch = check(idIn("-40"), 1, "-80", 2_500, 3, true);
    assertTrue(otherEpoch.orElse("").contains("epoch 3 writable true"), otherEpoch.toString());
  }

  @Test
  void aWriteRoutedByAVersionNeverSeenIsFlagged() {
    assertTrue(check(idIn("-40"), 9, "-40", 3_500, 9, true).isPresent());
  }

  @Test
  void newestSeenBeforeCountsOnlyEarlierArrivals() {
    assertEquals(0, timeline.newestSeenBefore(1_000));
    assertEquals(1, timeline.newestSeenBefore(1_001));
    assertEquals(3, timeline.newestSeenBefore(10_000));
    assertEquals(3, timeline.size());
  }
}
