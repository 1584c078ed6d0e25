package io.reshard.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class CdcCommandTest {

  @Test
  void capturedKeyspacesAreThoseWithAShardTopicUnderThePrefix() {
    List<String> topics =
        List.of(
            "reshard.chat.-80",
            "reshard.chat.80-",
            "reshard.shop.-",
            "reshard.chat",
            "reshard.workflows",
            "reshard.shardmaps",
            "reshard.ks.not-a-shard",
            "other.pay.-80",
            "__consumer_offsets");
    assertEquals(
        List.of("chat", "shop"), List.copyOf(CdcCommand.Tail.capturedKeyspaces("reshard", topics)));
  }
}
