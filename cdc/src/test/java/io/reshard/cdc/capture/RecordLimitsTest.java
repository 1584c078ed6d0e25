package io.reshard.cdc.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.cdc.CaptureConfig;
import org.junit.jupiter.api.Test;

class RecordLimitsTest {
  private static final CaptureConfig CONFIG =
      CaptureConfig.from(
          CaptureConfig.forServer(
              "127.0.0.1", 3306, "cdc", "", 9, "chat", "c0-", "127.0.0.1:9092", "prod"));

  @Test
  void sizedForAnUpdateOfOneValueAsLargeAsTheSourceAllows() {
    // MariaDB's default max_allowed_packet, 16 MiB: 49 MiB
    assertEquals(3 * 16 * 1024 * 1024 + 1024 * 1024, RecordLimits.sizedRecordBytes(16 << 20));
    // the largest max_allowed_packet (1 GiB) stays an int
    assertEquals(Integer.MAX_VALUE, RecordLimits.sizedRecordBytes(1L << 30));
  }

  @Test
  void theBrokersRequestLimitIsNamedWithWhatLiftsIt() {
    RecordLimits limits =
        RecordLimits.of(
            CONFIG,
            300_000_000,
            300_000_000,
            new KafkaTopics.Limits(300_000_000, 300_000_000, 104_857_600));
    assertEquals(104_857_600 - RecordLimits.REQUEST_OVERHEAD_BYTES, limits.maxRecordBytes());
    String m = limits.exceeded(160_000_000);
    assertTrue(m.contains("the broker's socket.request.max.bytes"), m);
    assertTrue(m.contains("raise socket.request.max.bytes to at least 160016384"), m);
    assertFalse(m.contains("max.request.size"), "only the limits it exceeds: " + m);
    assertEquals("", limits.exceeded(1000));
  }

  @Test
  void everyLimitBelowTheRecordIsNamedSmallestFirst() {
    RecordLimits limits =
        RecordLimits.of(
            CONFIG,
            2_000_000,
            1_500_000,
            new KafkaTopics.Limits(1_048_588, 1_048_576, Long.MAX_VALUE));
    String m = limits.exceeded(3_000_000);
    int segment = m.indexOf("segment.bytes is 1048576");
    int topic = m.indexOf("max.message.bytes is 1048588");
    int buffer = m.indexOf("buffer.memory is 1500000");
    int request = m.indexOf("max.request.size is 2000000");
    assertTrue(segment >= 0 && segment < topic && topic < buffer && buffer < request, m);
    assertTrue(
        m.contains("--entity-name prod.chat.c0- --alter --add-config max.message.bytes=3000000"),
        m);
    assertTrue(m.contains("kafka.producer.buffer.memory=3000000"), m);
    assertTrue(m.contains("capture.kafka.producer.max.request.size"), m);
    assertFalse(m.contains("socket.request.max.bytes"), "not read: not named: " + m);
  }
}
