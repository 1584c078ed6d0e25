package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class KeyRangePartitionTest {

  private static KeyRangePartitionException refused(String names) {
    return assertThrows(KeyRangePartitionException.class, () -> KeyRangePartition.parse(names));
  }

  private static String names(List<KeyRange> ranges) {
    return ranges.stream().map(KeyRange::name).collect(Collectors.joining(","));
  }

  @Test
  void acceptsAPartitionInAnyOrder() {
    KeyRangePartition p = KeyRangePartition.parse("c0-, 40-80,-40,80-c0");
    assertEquals("-40,40-80,80-c0,c0-", p.toString());
    assertEquals(4, p.size());
    assertEquals("-", KeyRangePartition.parse("-").toString());
    KeyRangePartition wide = KeyRangePartition.parse("-8000,80-");
    assertEquals("-8000,80-", wide.toString(), "names print as written");
    assertEquals(KeyRangePartition.parse("-80,80-"), wide, "and equal their short form");
  }

  @Test
  void findsTheRangeOfAKsid() {
    KeyRangePartition p = KeyRangePartition.parse("-40,40-80,80-c0,c0-");
    assertEquals("-40", p.rangeFor(KeyspaceId.fromHex("00")).name());
    assertEquals("-40", p.rangeFor(KeyspaceId.fromHex("3fffffffffffffff")).name());
    assertEquals("40-80", p.rangeFor(KeyspaceId.fromHex("4000000000000000")).name());
    assertEquals("80-c0", p.rangeFor(KeyspaceId.fromHex("80")).name());
    assertEquals("c0-", p.rangeFor(KeyspaceId.fromHex("ffffffffffffffff")).name());
    KeyRangePartition all = KeyRangePartition.parse("-");
    assertEquals("-", all.rangeFor(KeyspaceId.fromHex("8000")).name());
  }

  @Test
  void rangeForAgreesWithContainsOn256Shards() {
    KeyRangePartition p = KeyRangePartition.of(KeyRange.evenShards(256));
    for (int b = 0; b < 256; b++) {
      KeyspaceId k = KeyspaceId.of(new byte[] {(byte) b, 0x12, 0x34});
      KeyRange found = p.rangeFor(k);
      assertTrue(found.contains(k), found + " should contain " + k);
      assertEquals(b, found.start().map(s -> s.bytes()[0] & 0xff).orElse(0));
    }
  }

  @Test
  void namesAGap() {
    KeyRangePartitionException e = refused("-40,80-");
    assertEquals(
        "key ranges -40,80- are not a partition of the keyspace: gap 40-80", e.getMessage());
    assertEquals("40-80", names(e.gaps()));
    assertTrue(e.overlaps().isEmpty());
  }

  @Test
  void namesAnOverlap() {
    KeyRangePartitionException e = refused("-80,40-c0,c0-");
    assertEquals(
        "key ranges -80,40-c0,c0- are not a partition of the keyspace:"
            + " overlap 40-80 (between -80 and 40-c0)",
        e.getMessage());
    assertEquals("40-80", e.overlaps().get(0).overlap().name());
    assertTrue(e.gaps().isEmpty());
  }

  @Test
  void aRangeInsideAnotherOverlapsOnlyItself() {
    KeyRangePartitionException e = refused("-,40-80");
    assertEquals("40-80", e.overlaps().get(0).overlap().name());
    assertEquals("-", e.overlaps().get(0).first().name());
  }

  @Test
  void aDuplicateIsAnOverlap() {
    KeyRangePartitionException e = refused("-80,-8000,80-");
    assertEquals("overlap -80 (between -80 and -8000)", e.overlaps().get(0).toString());
  }

  @Test
  void namesWhatIsNotCoveredAtEitherEnd() {
    KeyRangePartitionException e = refused("40-80,80-c0");
    assertEquals(
        "key ranges 40-80,80-c0 are not a partition of the keyspace: gap -40; gap c0-",
        e.getMessage());
    assertEquals("-40,c0-", names(e.gaps()));
  }

  @Test
  void listsEveryProblemInKeyspaceOrder() {
    KeyRangePartitionException e = refused("-40,30-60,80-c0");
    assertEquals(
        "key ranges -40,30-60,80-c0 are not a partition of the keyspace:"
            + " overlap 30-40 (between -40 and 30-60); gap 60-80; gap c0-",
        e.getMessage());
  }

  @Test
  void noRangesCoverNothing() {
    KeyRangePartitionException e =
        assertThrows(KeyRangePartitionException.class, () -> KeyRangePartition.of(List.of()));
    assertEquals("-", names(e.gaps()));
    assertTrue(e.getMessage().contains("gap -"), e.getMessage());
  }

  @Test
  void aBadNameIsNamed() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> KeyRangePartition.parse("-80,8-"));
    assertTrue(e.getMessage().contains("\"8-\""), e.getMessage());
  }
}
