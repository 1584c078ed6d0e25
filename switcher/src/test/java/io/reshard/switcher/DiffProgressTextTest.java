package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The running diff's progress, as {@code workflow diff} and {@code workflow status} show it. */
class DiffProgressTextTest {

  @Test
  void oneChunkIsOneChunkAndOtherCountsArePlural() {
    assertEquals("messages (1 chunk compared)", DiffPhase.progress("messages", 1));
    assertEquals("messages (0 chunks compared)", DiffPhase.progress("messages", 0));
    assertEquals("messages (12 chunks compared)", DiffPhase.progress("messages", 12));
  }
}
