package io.reshard.core.rows;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RowKeyTest {
  @Test
  void theStoredFormRoundTripsAnyBytesExactly() {
    byte[] binary = {(byte) 0xff, 0, 1, 0, 0};
    byte[] text = "café".getBytes(StandardCharsets.UTF_8);
    RowKey key = new RowKey(new byte[][] {"-5".getBytes(StandardCharsets.US_ASCII), text, binary});
    String json = key.toJson(List.of("a", "b", "c"));
    assertEquals(
        "{\"columns\":[\"a\",\"b\",\"c\"],\"hex\":[\"2d35\",\"636166c3a9\",\"ff00010000\"]}", json);
    RowKey back = RowKey.fromJson(json, List.of("a", "b", "c"));
    assertEquals(key, back);
    assertArrayEquals(binary, back.value(2));
  }

  @Test
  void aStoredKeyOfOtherColumnsIsRefused() {
    String json = new RowKey(new byte[][] {{49}}).toJson(List.of("id"));
    assertThrows(IllegalArgumentException.class, () -> RowKey.fromJson(json, List.of("a", "b")));
  }

  @Test
  void describePrintsTextAsTextAndBytesAsHex() {
    RowKey key =
        new RowKey(
            new byte[][] {"café".getBytes(StandardCharsets.UTF_8), {(byte) 0xe9}, {0x61, 0x00}});
    assertEquals(
        Map.of("a", "café", "b", "0xe9", "c", "0x6100"), key.describe(List.of("a", "b", "c")));
  }
}
