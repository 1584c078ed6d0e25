package io.reshard.core.placement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class ShardingKeyTest {
  static final List<String> TEXTS =
      List.of(
          "0",
          "7",
          "-7",
          "42",
          "123456789012345678",
          "-123456789012345678",
          "1234567890123456789",
          "9223372036854775807",
          "-9223372036854775808",
          "18446744073709551615",
          "00042",
          "-0",
          "-00",
          "+5",
          "");

  @Test
  void anIntegerFromBytesMapsAsItsTextDoesInEveryFunctionalVindex() {
    for (VindexType type : VindexType.values()) {
      if (!type.isFunctional()) {
        continue;
      }
      Vindex vindex = Vindex.of(type);
      for (String text : TEXTS) {
        Object fromBytes = ShardingKey.integerValue(text.getBytes(StandardCharsets.US_ASCII));
        assertEquals(map(vindex, text), map(vindex, fromBytes), type + " of " + text);
      }
    }
  }

  @Test
  void shortCanonicalIntegersAreParsedAndTheRestKeptAsText() {
    assertEquals(-123456789012345678L, integerValue("-123456789012345678"));
    assertEquals(0L, integerValue("0"));
    assertInstanceOf(String.class, integerValue("1234567890123456789"));
    assertInstanceOf(String.class, integerValue("00042"));
    assertInstanceOf(String.class, integerValue("-0"));
  }

  /** The keyspace id's hex, or the refusal's class: both forms must agree either way. */
  private static String map(Vindex vindex, Object value) {
    try {
      return vindex.keyspaceId(value).hex();
    } catch (RuntimeException e) {
      return e.getClass().getSimpleName();
    }
  }

  private static Object integerValue(String s) {
    return ShardingKey.integerValue(s.getBytes(StandardCharsets.US_ASCII));
  }
}
