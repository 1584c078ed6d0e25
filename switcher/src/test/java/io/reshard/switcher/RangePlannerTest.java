package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.router.KeyRange;
import io.reshard.router.KeyRangePartition;
import io.reshard.router.KeyspaceId;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** {@link RangePlanner}: cuts of real-looking distributions, their boundaries and refusals. */
class RangePlannerTest {
  private static final Vindex HASH = Vindex.of(VindexType.fromVitessName("hash"));
  private static final Vindex NUMERIC = Vindex.of(VindexType.fromVitessName("numeric"));

  private static KeyDistribution.Point point(KeyspaceId ksid, double rows) {
    return new KeyDistribution.Point(ksid, rows, null);
  }

  private static KeyDistribution full(List<KeyDistribution.Point> points) {
    return KeyDistribution.of(KeyRange.FULL, points, List.of());
  }

  /** One row for each of the hash keyspace ids of 1..n. */
  private static List<KeyDistribution.Point> hashed(int n) {
    List<KeyDistribution.Point> points = new ArrayList<>();
    for (long i = 1; i <= n; i++) {
      points.add(point(HASH.keyspaceId(i), 1));
    }
    return points;
  }

  /** The planned ranges partition {@code range}, in order, and their rows add up. */
  private static void assertCovers(RangePlan plan, KeyRange range, KeyDistribution d) {
    List<KeyRange> ranges = plan.targets().stream().map(RangePlan.Target::range).toList();
    assertEquals(range, KeyRange.mergeAll(ranges), "the targets' union");
    for (int i = 1; i < ranges.size(); i++) {
      assertTrue(ranges.get(i - 1).isContiguousWith(ranges.get(i)), plan.targetsList());
    }
    double[] measured = d.rowsPerRange(ranges);
    double sum = 0;
    for (int i = 0; i < ranges.size(); i++) {
      assertEquals(measured[i], plan.targets().get(i).rows(), 1e-6, "rows of " + ranges.get(i));
      sum += measured[i];
    }
    assertEquals(d.totalRows(), sum, 1e-6, "every row is in a range");
    for (RangePlan.Target t : plan.targets()) {
      assertEquals(t.range(), KeyRange.parse(t.range().name()), "a valid shard name");
    }
  }

  @Test
  void uniformKeysAreCutIntoEvenShares() {
    KeyDistribution d = full(hashed(10_000));
    RangePlan plan = RangePlanner.plan(d, 8);
    assertCovers(plan, KeyRange.FULL, d);
    KeyRangePartition.parse(plan.targetsList()); // a partition of the keyspace
    for (RangePlan.Target t : plan.targets()) {
      assertEquals(1250, t.rows(), 1, t.range() + " holds an eighth of 10,000 rows");
    }
    assertTrue(plan.busiest().share() <= plan.evenBusiest().share(), plan.targetsList());
    assertTrue(plan.hotKeys().isEmpty());
  }

  @Test
  void keysCrowdedInOneCornerAreCutWhereTheyAreNotWhereTheEvenSplitCuts() {
    // numeric ksids of 1..4000 all start with 00: the even split puts every row in -40
    List<KeyDistribution.Point> points = new ArrayList<>();
    for (long i = 1; i <= 4000; i++) {
      points.add(point(NUMERIC.keyspaceId(i), 1));
    }
    KeyDistribution d = full(points);
    RangePlan plan = RangePlanner.plan(d, 4);
    assertCovers(plan, KeyRange.FULL, d);
    assertEquals(1.0, plan.evenBusiest().share(), 1e-9);
    assertEquals("-40", plan.evenBusiest().range().name());
    assertEquals(0.25, plan.busiest().share(), 1e-9);
    // boundaries fall between the 1000th and 1001st keys: 00000000000003e8 < c <= ...3e9
    assertEquals("-00000000000003e9", plan.targets().get(0).range().name());
  }

  @Test
  void aHotKeyIsNamedWithItsShareAndGetsARangeOfItsOwn() {
    List<KeyDistribution.Point> points = new ArrayList<>(hashed(600));
    KeyspaceId hot = NUMERIC.keyspaceId(1L); // below every hashed key: the others are one run
    points.add(new KeyDistribution.Point(hot, 400, "messages.channel_id=1"));
    KeyDistribution d = full(points);
    RangePlan plan = RangePlanner.plan(d, 4);
    assertCovers(plan, KeyRange.FULL, d);
    assertEquals(1, plan.hotKeys().size());
    RangePlan.HotKey h = plan.hotKeys().get(0);
    assertEquals(hot, h.ksid());
    assertEquals(0.4, h.share(), 1e-9);
    assertEquals("messages.channel_id=1", h.example());
    RangePlan.Target busiest = plan.busiest();
    assertTrue(busiest.range().contains(hot));
    assertEquals(1, busiest.keyspaceIds(), "the hot key alone in its range");
    assertEquals(0.4, busiest.share(), 1e-9, "no range can do better than the hot key");
    for (RangePlan.Target t : plan.targets()) {
      if (t != busiest) {
        assertEquals(200, t.rows(), 2, "the other 600 rows shared evenly: " + t.range());
      }
    }
  }

  @Test
  void theOtherRangesAreEvenNotCrowdedIntoTheFirst() {
    // a greedy cut at the optimal cap would give 34, 34, 32; the planner aims at the mean left
    KeyDistribution d = full(hashed(100));
    RangePlan plan = RangePlanner.plan(d, 3);
    for (RangePlan.Target t : plan.targets()) {
      assertTrue(t.rows() == 33 || t.rows() == 34, t.range() + " " + t.rows());
    }
  }

  @Test
  void oneRangeIsTheWholeRange() {
    KeyDistribution d = full(hashed(10));
    RangePlan plan = RangePlanner.plan(d, 1);
    assertEquals("-", plan.targetsList());
    assertEquals(1.0, plan.busiest().share(), 1e-12);
    assertEquals(1.0, plan.evenBusiest().share(), 1e-12);
    assertEquals(10, plan.busiest().keyspaceIds());
  }

  @Test
  void asManyRangesAsDistinctKeysGivesEachKeyItsOwnRange() {
    KeyDistribution d = full(hashed(5));
    RangePlan plan = RangePlanner.plan(d, 5);
    assertCovers(plan, KeyRange.FULL, d);
    plan.targets().forEach(t -> assertEquals(1, t.keyspaceIds(), t.range().name()));
  }

  @Test
  void moreRangesThanDistinctKeysIsRefusedNamingHowManyThereAre() {
    List<KeyDistribution.Point> points = new ArrayList<>();
    points.add(point(HASH.keyspaceId(1L), 50));
    points.add(point(HASH.keyspaceId(2L), 30));
    points.add(point(HASH.keyspaceId(2L), 20)); // the same ksid twice is one key
    KeyDistribution d = full(points);
    assertEquals(2, d.points().size());
    SwitchRefusedException e =
        assertThrows(SwitchRefusedException.class, () -> RangePlanner.plan(d, 3));
    assertTrue(e.getMessage().contains("only 2 distinct keyspace ids in -"), e.getMessage());
    assertTrue(e.getMessage().contains("ask for at most 2 ranges"), e.getMessage());
  }

  @Test
  void noRowsIsRefused() {
    KeyDistribution d = full(List.of());
    SwitchRefusedException e =
        assertThrows(SwitchRefusedException.class, () -> RangePlanner.plan(d, 2));
    assertTrue(e.getMessage().startsWith("no rows in key range -"), e.getMessage());
    assertThrows(SwitchRefusedException.class, () -> RangePlanner.planForMaxShare(d, 0.5));
  }

  @Test
  void fewerThanOneRangeIsAnArgumentError() {
    KeyDistribution d = full(hashed(3));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RangePlanner.plan(d, 0));
    assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
  }

  @Test
  void aMaxShareGivesTheFewestRangesWithinIt() {
    KeyDistribution d = full(hashed(1000));
    RangePlan plan = RangePlanner.planForMaxShare(d, 0.15);
    assertEquals(7, plan.targets().size(), "ceil(1 / 0.15) ranges of uniform keys");
    assertCovers(plan, KeyRange.FULL, d);
    plan.targets().forEach(t -> assertTrue(t.share() <= 0.15, t.range() + " " + t.share()));
    assertEquals(1, RangePlanner.planForMaxShare(d, 1.0).targets().size());
  }

  @Test
  void aMaxShareBelowAHotKeysShareIsRefusedNamingTheKey() {
    List<KeyDistribution.Point> points = new ArrayList<>(hashed(80));
    KeyspaceId hot = HASH.keyspaceId(7L);
    points.add(new KeyDistribution.Point(hot, 20, "messages.channel_id=7"));
    KeyDistribution d = full(points);
    SwitchRefusedException e =
        assertThrows(SwitchRefusedException.class, () -> RangePlanner.planForMaxShare(d, 0.15));
    assertTrue(
        e.getMessage()
            .contains("keyspace id " + hot + " (messages.channel_id=7) holds 21.0% of the rows"),
        e.getMessage());
    assertEquals(0.21, RangePlanner.planForMaxShare(d, 0.21).busiest().share(), 1e-9);
    assertThrows(IllegalArgumentException.class, () -> RangePlanner.planForMaxShare(d, 0));
    assertThrows(IllegalArgumentException.class, () -> RangePlanner.planForMaxShare(d, 1.5));
    assertThrows(IllegalArgumentException.class, () -> RangePlanner.planForMaxShare(d, Double.NaN));
  }

  @Test
  void aSourceRangeIsCutWithinItself() {
    KeyRange source = KeyRange.parse("80-c0");
    List<KeyDistribution.Point> points = new ArrayList<>();
    for (long i = 1; points.size() < 2000; i++) {
      KeyspaceId k = HASH.keyspaceId(i);
      if (source.contains(k)) {
        points.add(point(k, 1 + (i % 3)));
      }
    }
    KeyDistribution d = KeyDistribution.of(source, points, List.of());
    RangePlan plan = RangePlanner.plan(d, 3);
    assertCovers(plan, source, d);
    assertTrue(plan.targetsList().startsWith("80-"), plan.targetsList());
    assertTrue(plan.targetsList().endsWith("-c0"), plan.targetsList());
    assertEquals(List.of("80-95", "95-aa", "aa-c0"), names(plan.even()));
  }

  @Test
  void aPointOutsideTheRangeIsRejected() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            KeyDistribution.of(
                KeyRange.parse("-80"), List.of(point(KeyspaceId.fromHex("90"), 1)), List.of()));
  }

  @Test
  void sampledFractionalRowsArePlannedByTheirWeight() {
    // a sampled shard: each key read stands for 4 rows; another read whole
    List<KeyDistribution.Point> points = new ArrayList<>();
    for (long i = 1; i <= 400; i++) {
      KeyspaceId k = HASH.keyspaceId(i);
      points.add(point(k, KeyRange.parse("-80").contains(k) ? 4 : 1));
    }
    KeyDistribution d = full(points);
    RangePlan plan = RangePlanner.plan(d, 2);
    assertCovers(plan, KeyRange.FULL, d);
    assertEquals(0.5, plan.busiest().share(), 0.01);
    assertTrue(plan.evenBusiest().share() > 0.7, "the even split's -80 holds the heavy keys");
  }

  @Test
  void theBusiestShareIsTheLeastAnyCutGives() {
    Random random = new Random(18);
    for (int round = 0; round < 300; round++) {
      int m = 1 + random.nextInt(10);
      int n = 1 + random.nextInt(m);
      List<KeyDistribution.Point> points = new ArrayList<>();
      long[] w = new long[m];
      for (int i = 0; i < m; i++) {
        w[i] = 1 + (random.nextInt(4) == 0 ? random.nextInt(100) : random.nextInt(10));
      }
      List<KeyspaceId> ksids =
          hashed(m).stream().map(KeyDistribution.Point::ksid).sorted().toList();
      for (int i = 0; i < m; i++) {
        points.add(point(ksids.get(i), w[i]));
      }
      KeyDistribution d = full(points);
      RangePlan plan = RangePlanner.plan(d, n);
      assertCovers(plan, KeyRange.FULL, d);
      assertEquals(n, plan.targets().size());
      plan.targets().forEach(t -> assertTrue(t.keyspaceIds() >= 1, "no empty range"));
      assertEquals(bruteForceLeastBusiest(w, n), plan.busiest().rows(), 1e-9, "round " + round);
    }
  }

  /** The least busiest sum over every cut of {@code w} into {@code n} non-empty runs. */
  private static long bruteForceLeastBusiest(long[] w, int n) {
    return least(w, 0, n);
  }

  private static long least(long[] w, int from, int runs) {
    long rest = 0;
    for (int i = from; i < w.length; i++) {
      rest += w[i];
    }
    if (runs == 1) {
      return rest;
    }
    long best = Long.MAX_VALUE;
    long run = 0;
    for (int end = from + 1; end <= w.length - (runs - 1); end++) {
      run += w[end - 1];
      best = Math.min(best, Math.max(run, least(w, end, runs - 1)));
    }
    return best;
  }

  @Test
  void boundariesUseTheFewestBytesMidwayBetweenTheKeys() {
    assertEquals(
        "3a6c", RangePlanner.boundary(KeyspaceId.fromHex("3a41aa"), KeyspaceId.fromHex("3a97bb")));
    assertEquals(
        "80",
        RangePlanner.boundary(
            KeyspaceId.fromHex("7fffffffffffffff"), KeyspaceId.fromHex("8000000000000001")));
    assertEquals(
        "80", RangePlanner.boundary(KeyspaceId.fromHex("10"), KeyspaceId.fromHex("f0")), "1 byte");
    assertEquals(
        "0000000000000002",
        RangePlanner.boundary(
            KeyspaceId.fromHex("0000000000000001"), KeyspaceId.fromHex("0000000000000002")),
        "keys a unit apart need their full width, and the upper key itself is the boundary");
    assertEquals(
        "12345678",
        RangePlanner.boundary(
            KeyspaceId.fromHex("1234567700000000000000000000000f"),
            KeyspaceId.fromHex("12345679000000000000000000000000")),
        "16-byte ksids (binary_md5)");
    assertThrows(
        IllegalArgumentException.class,
        () -> RangePlanner.boundary(KeyspaceId.fromHex("80"), KeyspaceId.fromHex("8000")));
  }

  @Test
  void sharesPrintAsPercentages() {
    assertEquals("12.5%", RangePlanner.percent(0.125));
    assertEquals("0.040%", RangePlanner.percent(0.0004));
    assertEquals("0.0%", RangePlanner.percent(0));
    assertEquals("100.0%", RangePlanner.percent(1));
  }

  private static List<String> names(List<RangePlan.Target> targets) {
    return targets.stream().map(t -> t.range().name()).toList();
  }
}
