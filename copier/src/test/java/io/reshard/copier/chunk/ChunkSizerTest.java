package io.reshard.copier.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ChunkSizerTest {
  private final ChunkSizer sizer = new ChunkSizer(Duration.ofMillis(500), 1000, 100, 20_000);

  @Test
  void aChunkOnTargetKeepsItsSize() {
    sizer.observe(1000, Duration.ofMillis(500));
    assertEquals(1000, sizer.rows());
  }

  @Test
  void aFastChunkGrowsTowardTheTargetButAtMostTwofold() {
    sizer.observe(1000, Duration.ofMillis(400));
    assertEquals(1250, sizer.rows());
    sizer.observe(1250, Duration.ofMillis(10));
    assertEquals(2500, sizer.rows());
  }

  @Test
  void aSlowChunkShrinksAtMostByHalf() {
    sizer.observe(1000, Duration.ofMillis(800));
    assertEquals(625, sizer.rows());
    sizer.observe(625, Duration.ofSeconds(30));
    assertEquals(313, sizer.rows());
  }

  @Test
  void theSizeStaysWithinItsBounds() {
    for (int i = 0; i < 20; i++) {
      sizer.observe(sizer.rows(), Duration.ofMillis(1));
    }
    assertEquals(20_000, sizer.rows());
    for (int i = 0; i < 20; i++) {
      sizer.observe(sizer.rows(), Duration.ofSeconds(10));
    }
    assertEquals(100, sizer.rows());
  }

  @Test
  void aShortLastChunkSaysNothingAboutTheRate() {
    sizer.observe(10, Duration.ofMillis(1));
    assertEquals(1000, sizer.rows());
  }

  @Test
  void aZeroDurationCountsAsVeryFast() {
    sizer.observe(1000, Duration.ZERO);
    assertEquals(2000, sizer.rows());
  }

  @Test
  void inconsistentBoundsAreRefused() {
    assertThrows(
        IllegalArgumentException.class, () -> new ChunkSizer(Duration.ofMillis(1), 50, 100, 200));
    assertThrows(
        IllegalArgumentException.class, () -> new ChunkSizer(Duration.ofMillis(1), 100, 100, 99));
  }
}
