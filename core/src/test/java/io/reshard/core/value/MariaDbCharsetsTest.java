package io.reshard.core.value;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MariaDbCharsetsTest {

  @Test
  void latin1RoundTripsEveryByte() {
    byte[] all = new byte[256];
    for (int i = 0; i < 256; i++) {
      all[i] = (byte) i;
    }
    MariaDbCharsets.Decoded d = MariaDbCharsets.decode("latin1", all);
    assertTrue(d.exact());
    assertEquals(256, d.text().length());
    assertArrayEquals(all, MariaDbCharsets.encode("latin1", d.text()));
  }

  @Test
  void latin1IsCp1252WithItsFiveHolesMappedToC1Controls() {
    assertEquals("\u20AC", text(0x80));
    assertEquals("\u0081", text(0x81));
    assertEquals("\u008D", text(0x8D));
    assertEquals("\u008F", text(0x8F));
    assertEquals("\u0090", text(0x90));
    assertEquals("\u009D", text(0x9D));
    assertEquals("\u0178", text(0x9F));
    assertEquals("\u00E9", text(0xE9));
  }

  @Test
  void javasWindows1252IsNotABijectionOnTheseBytes() {
    // why MariaDbCharsets has its own table: Java maps 0x81 to U+FFFD and cannot encode it back
    Charset cp1252 = Charset.forName("windows-1252");
    byte[] b = {(byte) 0x81};
    assertNotEquals(
        (int) MariaDbCharsets.decode("latin1", b).text().charAt(0),
        (int) new String(b, cp1252).charAt(0));
    assertFalse(java.util.Arrays.equals(b, new String(b, cp1252).getBytes(cp1252)));
  }

  @Test
  void utf8mb4KeepsFourByteCharactersAndFlagsMalformedBytes() {
    String s = "a\uD83D\uDE00\u00E9";
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    MariaDbCharsets.Decoded d = MariaDbCharsets.decode("utf8mb4", b);
    assertEquals(s, d.text());
    assertTrue(d.exact());
    assertFalse(MariaDbCharsets.decode("utf8mb4", new byte[] {(byte) 0xC3}).exact());
    assertFalse(MariaDbCharsets.decode("ascii", new byte[] {(byte) 0x80}).exact());
  }

  @Test
  void otherCharsetsAreCheckedByReEncoding() {
    byte[] koi = "\u0416".getBytes(Charset.forName("KOI8-R"));
    assertTrue(MariaDbCharsets.decode("koi8r", koi).exact());
    assertFalse(MariaDbCharsets.decode("no-such-charset", new byte[] {1}).exact());
  }

  @Test
  void encodingATextLatin1CannotHoldFails() {
    assertThrows(IllegalArgumentException.class, () -> MariaDbCharsets.encode("latin1", "\u0416"));
  }

  @Test
  void builtInKnowsTheCommonCollations() {
    MariaDbCharsets c = MariaDbCharsets.builtIn();
    assertEquals("utf8mb4", c.charsetOf(45));
    assertEquals("latin1", c.charsetOf(8));
    assertEquals("binary", c.charsetOf(63));
    assertThrows(IllegalArgumentException.class, () -> c.charsetOf(9999));
  }

  private static String text(int b) {
    return MariaDbCharsets.decode("latin1", new byte[] {(byte) b}).text();
  }
}
