package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class KeyRangeTest {

  private static KeyRange r(String name) {
    return KeyRange.parse(name);
  }

  private static KeyspaceId k(String hex) {
    return KeyspaceId.fromHex(hex);
  }

  private static String names(List<KeyRange> ranges) {
    return ranges.stream().map(KeyRange::name).collect(Collectors.joining(","));
  }

  @ParameterizedTest(name = "{0} prints as {1}")
  @CsvSource({
    "-80, -80",
    "40-80, 40-80",
    "C0-, c0-",
    "-, -",
    "0, -",
    "00-, -",
    "-8000, -8000",
    "Ab-CD01, ab-cd01"
  })
  void parsesCaseInsensitivelyAndPrintsLowerCase(String input, String printed) {
    assertEquals(printed, r(input).name());
    assertEquals(printed, r(input).toString());
  }

  @Test
  void trailingZeroBytesAreInsignificant() {
    assertEquals(r("-80"), r("-8000"));
    assertEquals(r("-80").hashCode(), r("-8000").hashCode());
    assertEquals(r("-80"), r("00-80"));
    assertEquals(KeyRange.FULL, r("0000-"));
    assertEquals(0, r("40-80").compareTo(r("4000-800000")));
    assertNotEquals(r("-80"), r("-81"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "4-80",
        "-8",
        "40-8g",
        "zz-",
        "40-80-c0",
        "4080",
        "",
        "--",
        "80-40",
        "80-80",
        "80-8000",
        "-00",
        " -80"
      })
  void rejectsInvalidNamesNamingTheInput(String name) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> KeyRange.parse(name));
    assertTrue(e.getMessage().contains("\"" + name + "\""), e.getMessage());
  }

  @Test
  void errorMessagesSayWhatIsWrong() {
    assertEquals(
        "invalid key range \"4-80\" start: odd number of hex digits (1)",
        assertThrows(IllegalArgumentException.class, () -> r("4-80")).getMessage());
    assertEquals(
        "invalid key range \"40-8g\" end: 'g' at offset 1 is not a hex digit",
        assertThrows(IllegalArgumentException.class, () -> r("40-8g")).getMessage());
    assertEquals(
        "invalid key range \"80-40\": start must be less than end",
        assertThrows(IllegalArgumentException.class, () -> r("80-40")).getMessage());
    assertTrue(
        assertThrows(IllegalArgumentException.class, () -> r("40-80-c0"))
            .getMessage()
            .contains("exactly one '-'"));
  }

  @Test
  void ordersByStartThenEnd() {
    List<KeyRange> sorted =
        List.of(r("c0-"), r("40-80"), r("-"), r("-40"), r("40-")).stream().sorted().toList();
    assertEquals("-40,-,40-80,40-,c0-", names(sorted));
  }

  @Test
  void containsIsHalfOpen() {
    KeyRange r = r("40-80");
    assertTrue(r.contains(k("40")));
    assertTrue(r.contains(k("4000000000000000")));
    assertTrue(r.contains(k("7fffffffffffffff")));
    assertFalse(r.contains(k("80")), "the end is excluded");
    assertFalse(r.contains(k("8000000000000000")), "the end is excluded, trailing zeros too");
    assertFalse(r.contains(k("3fffffffffffffff")));
    assertTrue(r("-80").contains(k("0000000000000000")));
    assertTrue(r("c0-").contains(k("ffffffffffffffff")));
    assertTrue(KeyRange.FULL.contains(k("00")));
    assertTrue(KeyRange.FULL.contains(k("ff")));
  }

  @Test
  void containsAndIntersectsRanges() {
    assertTrue(r("-80").contains(r("40-80")));
    assertTrue(KeyRange.FULL.contains(r("c0-")));
    assertFalse(r("-80").contains(r("40-c0")));
    assertTrue(r("-80").intersects(r("40-c0")));
    assertFalse(r("-40").intersects(r("40-80")), "touching is not intersecting");
    assertTrue(r("c0-").intersects(KeyRange.FULL));
  }

  @Test
  void contiguityHasADirectionAdjacencyDoesNot() {
    assertTrue(r("-40").isContiguousWith(r("40-80")));
    assertTrue(r("-40").isContiguousWith(r("4000-80")), "trailing zeros ignored");
    assertFalse(r("40-80").isContiguousWith(r("-40")));
    assertTrue(r("40-80").isAdjacentTo(r("-40")));
    assertFalse(r("-40").isAdjacentTo(r("80-")), "a gap");
    assertFalse(r("-80").isAdjacentTo(r("40-")), "an overlap");
    assertFalse(r("c0-").isContiguousWith(r("-40")), "the end is not the start again");
  }

  @Test
  void mergesAdjacentRangesInEitherOrder() {
    assertEquals("-80", r("-40").merge(r("40-80")).name());
    assertEquals("-80", r("40-80").merge(r("-40")).name());
    assertEquals("-", r("-80").merge(r("80-")).name());
    assertEquals("-", KeyRange.mergeAll(KeyRange.evenShards(4)).name());
    assertEquals("40-", KeyRange.mergeAll(List.of(r("c0-"), r("40-80"), r("80-c0"))).name());
  }

  @Test
  void refusesToMergeAcrossAGapOrAnOverlap() {
    IllegalArgumentException gap =
        assertThrows(IllegalArgumentException.class, () -> r("-40").merge(r("80-")));
    assertEquals(
        "cannot merge key ranges -40 and 80-: they are not adjacent (there is a gap between them)",
        gap.getMessage());
    IllegalArgumentException overlap =
        assertThrows(IllegalArgumentException.class, () -> r("-80").merge(r("40-")));
    assertTrue(overlap.getMessage().contains("they overlap"), overlap.getMessage());
    assertThrows(
        IllegalArgumentException.class, () -> KeyRange.mergeAll(List.of(r("-40"), r("80-"))));
    assertThrows(IllegalArgumentException.class, () -> KeyRange.mergeAll(List.of()));
  }

  @ParameterizedTest(name = "{0} / {1} = {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "-    | 1 | -",
        "-    | 2 | -80,80-",
        "80-  | 2 | 80-c0,c0-",
        "-80  | 2 | -40,40-80",
        "40-80| 4 | 40-50,50-60,60-70,70-80",
        "-8000| 2 | -4000,4000-8000",
        "f0-  | 4 | f0-f4,f4-f8,f8-fc,fc-",
        "c0-  | 8 | c0-c8,c8-d0,d0-d8,d8-e0,e0-e8,e8-f0,f0-f8,f8-",
        "-    | 3 | -55,55-aa,aa-",
        "40-70| 3 | 40-50,50-60,60-70",
        "fe-ff| 2 | fe-fe80,fe80-ff"
      })
  void splitsIntoEqualParts(String range, int parts, String expected) {
    List<KeyRange> split = r(range.strip()).split(parts);
    assertEquals(expected.replace(" ", ""), names(split));
    assertEquals(r(range.strip()), KeyRange.mergeAll(split), "the parts merge back");
  }

  @Test
  void splitRefusesZeroParts() {
    assertThrows(IllegalArgumentException.class, () -> r("-80").split(0));
  }

  @Test
  void evenShardsOfAKeyspace() {
    assertEquals("-", names(KeyRange.evenShards(1)));
    assertEquals("-80,80-", names(KeyRange.evenShards(2)));
    assertEquals("-40,40-80,80-c0,c0-", names(KeyRange.evenShards(4)));
    List<KeyRange> s256 = KeyRange.evenShards(256);
    assertEquals(256, s256.size());
    assertEquals("-01", s256.get(0).name());
    assertEquals("01-02", s256.get(1).name());
    assertEquals("7f-80", s256.get(127).name());
    assertEquals("ff-", s256.get(255).name());
    KeyRangePartition.of(s256); // a partition, or this throws
    List<KeyRange> s512 = KeyRange.evenShards(512);
    assertEquals("-0080", s512.get(0).name());
    assertEquals("0080-0100", s512.get(1).name());
    assertEquals("ff80-", s512.get(511).name());
  }

  @ParameterizedTest
  @ValueSource(ints = {0, -2, 3, 6, 100})
  void evenShardsNeedAPowerOfTwo(int n) {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> KeyRange.evenShards(n));
    assertTrue(e.getMessage().endsWith("got " + n), e.getMessage());
  }

  @Test
  void boundariesAreExposedAsKsids() {
    assertTrue(r("-80").start().isEmpty());
    assertEquals(k("80"), r("-80").end().orElseThrow());
    assertTrue(r("c0-").end().isEmpty());
    assertTrue(r("00-").isFull());
    assertFalse(r("-80").isFull());
  }
}
