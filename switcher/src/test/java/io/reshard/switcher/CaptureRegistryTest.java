package io.reshard.switcher;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.ReshardException;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class CaptureRegistryTest {
  private static final GtidPosition AT = GtidPosition.parse("0-1-5");
  private static final GtidPosition TARGET = GtidPosition.parse("0-1-9");

  @Test
  void aCaptureThatStopsDuringTheWaitEndsItAtOnceWithItsMessage() throws Exception {
    AtomicReference<Optional<String>> failure = new AtomicReference<>(Optional.empty());
    Thread stopper =
        new Thread(
            () -> {
              try {
                Thread.sleep(300);
              } catch (InterruptedException e) {
                return;
              }
              failure.set(Optional.of("raise max.message.bytes"));
            });
    long start = System.nanoTime();
    stopper.start();
    SwitchRefusedException e =
        assertThrows(
            SwitchRefusedException.class,
            () ->
                CaptureRegistry.awaitCovers(
                    "c0-e0",
                    () -> Optional.of(CapturePosition.at(AT)),
                    TARGET,
                    Duration.ofSeconds(60),
                    failure::get,
                    Optional::empty));
    long millis = Duration.ofNanos(System.nanoTime() - start).toMillis();
    stopper.join();
    assertTrue(millis < 5000, "ended after " + millis + " ms");
    assertTrue(e.getMessage().contains("the capture of shard c0-e0 has stopped"), e.getMessage());
    assertTrue(e.getMessage().contains("raise max.message.bytes"), e.getMessage());
  }

  @Test
  void aCaptureThatRunsButLagsStillTimesOut() {
    ReshardException e =
        assertThrows(
            ReshardException.class,
            () ->
                CaptureRegistry.awaitCovers(
                    "c0-e0",
                    () -> Optional.of(CapturePosition.at(AT)),
                    TARGET,
                    Duration.ofMillis(100),
                    Optional::empty,
                    Optional::empty));
    assertFalse(e instanceof SwitchRefusedException, e.getMessage());
    assertTrue(e.getMessage().contains("did not reach 0-1-9 within"), e.getMessage());
  }

  @Test
  void aTimeoutNamesWhatTheRetryingCaptureCannotReach() {
    ReshardException e =
        assertThrows(
            ReshardException.class,
            () ->
                CaptureRegistry.awaitCovers(
                    "c0-e0",
                    Optional::empty,
                    TARGET,
                    Duration.ofMillis(100),
                    Optional::empty,
                    () -> Optional.of("no commit to Kafka for 20 s")));
    assertTrue(
        e.getMessage()
            .endsWith("it is at nothing yet; it is retrying: no commit to Kafka for 20 s"),
        e.getMessage());
  }

  @Test
  void aCoveredPositionEndsTheWaitEvenIfTheCaptureStoppedAfterIt() throws Exception {
    CaptureRegistry.awaitCovers(
        "c0-e0",
        () -> Optional.of(CapturePosition.at(TARGET)),
        AT,
        Duration.ofSeconds(1),
        () -> Optional.of("stopped"),
        Optional::empty);
  }

  @Test
  void capturesOfTwoKeyspacesOnOneServerPresentDifferentServerIds() {
    ShardServer db4 = new ShardServer("c0-", "db4", "127.0.0.1", 13309, "root", "", 4_200_004L);
    java.util.List<CaptureRegistry.ServerId> taken = new java.util.ArrayList<>();
    long first = CaptureRegistry.freeServerId(db4, taken);
    org.junit.jupiter.api.Assertions.assertEquals(4_200_004L, first, "the server's own id first");
    taken.add(new CaptureRegistry.ServerId("127.0.0.1", 13309, first));
    long second = CaptureRegistry.freeServerId(db4, taken);
    org.junit.jupiter.api.Assertions.assertEquals(
        4_200_004L + CaptureRegistry.SERVER_ID_STEP, second, "another keyspace on db4");
    taken.add(new CaptureRegistry.ServerId("127.0.0.1", 13309, second));
    org.junit.jupiter.api.Assertions.assertEquals(
        4_200_004L + 2 * CaptureRegistry.SERVER_ID_STEP, CaptureRegistry.freeServerId(db4, taken));
    ShardServer db5 = new ShardServer("c0-e0", "db5", "127.0.0.1", 13310, "root", "", 4_200_005L);
    org.junit.jupiter.api.Assertions.assertEquals(
        4_200_005L, CaptureRegistry.freeServerId(db5, taken), "another server keeps its own id");
  }

  @Test
  void aRegistrysCapturesTakeItsSettingsButNotOverItsServerKeys() {
    AtomicReference<io.reshard.cdc.CaptureConfig> seen = new AtomicReference<>();
    CaptureRegistry registry =
        new CaptureRegistry(
            (keyspace, server, config) -> {
              seen.set(config);
              throw new IllegalStateException("started");
            },
            java.util.Map.of(
                "kafka.producer.buffer.memory", "268435456",
                "topic.max.message.bytes", "200000000",
                "heartbeat.interval.ms", "1000"));
    ShardServer source = new ShardServer("-", "db1", "127.0.0.1", 13306, "root", "", 7);
    WorkflowSpec spec =
        new WorkflowSpec(
            "w",
            "chat",
            io.reshard.router.VSchema.parse(
                "{\"sharded\": true, \"vindexes\": {}, \"tables\": {}}"),
            java.util.List.of(source),
            java.util.List.of(),
            "127.0.0.1:9092",
            "reshard",
            "reshard.shardmaps",
            Duration.ofSeconds(5),
            Duration.ofSeconds(2),
            Duration.ofSeconds(30));
    assertThrows(
        IllegalStateException.class, () -> registry.ensure(source, spec, Duration.ofSeconds(1)));
    io.reshard.cdc.CaptureConfig c = seen.get();
    org.junit.jupiter.api.Assertions.assertEquals(
        "268435456", c.producerOverrides().getProperty("buffer.memory"));
    org.junit.jupiter.api.Assertions.assertEquals(200_000_000, c.topicMaxMessageBytes());
    org.junit.jupiter.api.Assertions.assertEquals(
        Duration.ofSeconds(1), c.heartbeatInterval(), "a setting changes the registry's tuning");
    org.junit.jupiter.api.Assertions.assertEquals(
        Duration.ofMillis(5), c.batchMaxWait(), "the registry's tuning where nothing is set");
    org.junit.jupiter.api.Assertions.assertEquals("reshard.chat.-", c.changeTopic());
  }

  @Test
  void aCaptureOfAnotherKeyspaceAvoidsTheIdOfACaptureRunElsewhere() {
    AtomicReference<io.reshard.cdc.CaptureConfig> seen = new AtomicReference<>();
    CaptureRegistry registry =
        new CaptureRegistry(
            (keyspace, server, config) -> {
              seen.set(config);
              return new CaptureRegistry.Started() {
                @Override
                public Optional<CapturePosition> committedPosition() {
                  return Optional.empty();
                }

                @Override
                public Optional<String> failure() {
                  return Optional.empty();
                }

                @Override
                public void close() {}
              };
            });
    ShardServer db4 = new ShardServer("c0-", "db4", "127.0.0.1", 13309, "root", "", 4_200_004L);
    registry.external(
        "chat",
        "c0-",
        new CaptureRegistry.ServerId("127.0.0.1", 13309, 4_200_004L),
        Optional::empty,
        () -> {},
        Optional::empty);
    registry.start("shop", db4, "127.0.0.1:9092", "reshard");
    org.junit.jupiter.api.Assertions.assertEquals(
        4_200_004L + CaptureRegistry.SERVER_ID_STEP,
        seen.get().serverId(),
        "the configured capture of chat on db4 holds the server's own id");
  }
}
