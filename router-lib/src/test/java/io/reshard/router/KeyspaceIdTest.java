package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class KeyspaceIdTest {

  @Test
  void printsLowerCaseHexOfTheExactBytes() {
    KeyspaceId k = KeyspaceId.fromHex("166B40B44ABA4BD6");
    assertEquals("166b40b44aba4bd6", k.hex());
    assertEquals("166b40b44aba4bd6", k.toString());
    assertEquals(8, k.length());
    assertEquals("8000", KeyspaceId.fromHex("8000").hex(), "trailing zeros are kept in print");
  }

  @Test
  void comparesAsUnsignedBytes() {
    assertTrue(KeyspaceId.fromHex("80").compareTo(KeyspaceId.fromHex("7f")) > 0, "0x80 > 0x7f");
    assertTrue(KeyspaceId.fromHex("ff").compareTo(KeyspaceId.fromHex("01")) > 0);
    assertTrue(KeyspaceId.fromHex("40").compareTo(KeyspaceId.fromHex("4001")) < 0, "prefix first");
  }

  @Test
  void ignoresTrailingZeroBytesWhenComparing() {
    KeyspaceId a = KeyspaceId.fromHex("80");
    KeyspaceId b = KeyspaceId.fromHex("800000");
    assertEquals(0, a.compareTo(b));
    assertEquals(a, b);
    assertEquals(a.hashCode(), b.hashCode());
    assertNotEquals(KeyspaceId.fromHex("0080"), a, "leading zeros do matter");
  }

  @Test
  void bytesAreCopiedInAndOut() {
    byte[] raw = {1, 2};
    KeyspaceId k = KeyspaceId.of(raw);
    raw[0] = 9;
    k.bytes()[1] = 9;
    assertEquals("0102", k.hex());
  }

  @Test
  void uint64IsBigEndianUnsigned() {
    assertEquals("0000000000000001", KeyspaceId.ofUint64(1).hex());
    assertEquals("ffffffffffffffff", KeyspaceId.ofUint64(-1).hex());
  }

  @Test
  void rejectsBadHexNamingTheInput() {
    IllegalArgumentException odd =
        assertThrows(IllegalArgumentException.class, () -> KeyspaceId.fromHex("abc"));
    assertTrue(odd.getMessage().contains("\"abc\"") && odd.getMessage().contains("odd"));
    IllegalArgumentException nonHex =
        assertThrows(IllegalArgumentException.class, () -> KeyspaceId.fromHex("zz"));
    assertTrue(nonHex.getMessage().contains("'z'"), nonHex.getMessage());
    assertThrows(IllegalArgumentException.class, () -> KeyspaceId.fromHex(""));
    assertThrows(IllegalArgumentException.class, () -> KeyspaceId.of(new byte[0]));
  }
}
