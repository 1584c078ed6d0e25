package io.reshard.router;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.reshard.testkit.LocalClusterExtension;
import io.reshard.testkit.TestCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The shard map topic against the real broker: {@link ShardMapPublisher} writes, {@link
 * KafkaShardMapSource} follows. Every test has its own topic and transactional ids.
 */
@ExtendWith(LocalClusterExtension.class)
class ShardMapTopicIT {
  private static final VSchema VSCHEMA = VSchema.parse(VSchemaTest.customerVSchemaJson());
  private static final String KS = "commerce";
  private static final Duration WAIT = Duration.ofSeconds(10);
  private static final AtomicInteger TEST_COUNTER = new AtomicInteger();

  private final TestCluster cluster;
  private final List<AutoCloseable> toClose = new ArrayList<>();
  private ShardMapTopicConfig config;

  ShardMapTopicIT(TestCluster cluster) {
    this.cluster = cluster;
  }

  @BeforeEach
  void ownTopicAndTransactionalIds() {
    String name = cluster.topicPrefix() + ".shardmaps." + TEST_COUNTER.incrementAndGet();
    config =
        ShardMapTopicConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .topic(name)
            .transactionalIdPrefix(name + "-")
            .timeout(WAIT)
            .build();
  }

  @AfterEach
  void closeEverything() throws Exception {
    for (AutoCloseable c : toClose) {
      c.close();
    }
  }

  // ---- the source ----

  @Test
  void aSourceStartedAfterPublishingHoldsTheNewestVersion() {
    ShardMapPublisher publisher = publisher(KS);
    ShardMap v1 = v1(KS);
    ShardMap v2 = next(v1, "shard-2");
    publisher.publish(v1);
    publisher.publish(v2);

    KafkaShardMapSource source = source(KS);

    assertEquals(v2, source.current());
  }

  @Test
  void aRunningSourceReceivesANewVersionAndTellsItsListeners() throws Exception {
    ShardMapPublisher publisher = publisher(KS);
    ShardMap v1 = v1(KS);
    publisher.publish(v1);
    KafkaShardMapSource source = source(KS);
    BlockingQueue<ShardMap> heard = listen(source);
    assertEquals(v1, source.current());

    ShardMap v2 = next(v1, "shard-2");
    publisher.publish(v2);

    assertEquals(Optional.of(v2), source.awaitVersion(2, WAIT));
    assertEquals(v2, heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertEquals(v2, source.current());
    long before = System.nanoTime();
    assertEquals(Optional.empty(), source.awaitVersion(3, Duration.ofMillis(200)));
    assertTrue(System.nanoTime() - before >= Duration.ofMillis(200).toNanos());
    assertTrue(heard.isEmpty(), "no further version was heard: " + heard);
  }

  @Test
  void anOlderVersionWrittenAfterANewerOneIsIgnored() throws Exception {
    ShardMapPublisher publisher = publisher(KS);
    ShardMap v1 = v1(KS);
    ShardMap v2 = next(v1, "shard-2");
    publisher.publish(v1);
    publisher.publish(v2);
    ShardMap rogueV1 = ShardMap.first(KS, VSCHEMA, assignments("rogue"));
    rawWrite(rogueV1);

    KafkaShardMapSource source = source(KS);
    assertEquals(v2, source.current(), "v1 written again last does not win at start");

    BlockingQueue<ShardMap> heard = listen(source);
    ShardMap rogueV2 = next(v1, "rogue");
    rawWrite(rogueV2);
    ShardMap v3 = next(v2, "shard-3");
    publisher.publish(v3);

    assertEquals(Optional.of(v3), source.awaitVersion(3, WAIT));
    assertEquals(v3, heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertTrue(heard.isEmpty(), "v2 written again live was not heard: " + heard);
  }

  @Test
  void mapsOfAnotherKeyspaceOnTheSameTopicAreIgnored() throws Exception {
    ShardMapPublisher commerce = publisher(KS);
    ShardMapPublisher customer = publisher("customer");
    ShardMap c1 = v1(KS);
    commerce.publish(c1);
    ShardMap other = v1("customer");
    customer.publish(other);
    KafkaShardMapSource source = source(KS);
    BlockingQueue<ShardMap> heard = listen(source);

    ShardMap other2 = next(other, "shard-2");
    customer.publish(other2);
    customer.publish(next(other2, "shard-3"));

    assertEquals(Optional.empty(), source.awaitVersion(2, Duration.ofMillis(500)));
    assertEquals(c1, source.current());
    assertTrue(heard.isEmpty(), "nothing heard: " + heard);
    assertEquals(List.of(c1), commerce.history());
    commerce.publish(next(c1, "shard-2")); // v2 of commerce, though customer is at v3
    assertEquals(2, source.awaitVersion(2, WAIT).orElseThrow().version());
  }

  @Test
  void malformedRecordsAreSkipped() throws Exception {
    ShardMapPublisher publisher = publisher(KS);
    ShardMap v1 = v1(KS);
    publisher.publish(v1);
    rawWrite("no slash", v1.toJson());
    rawWrite("commerce/0000000000000000002", "{not json");
    rawWrite("commerce/0000000000000000002", null);
    rawWrite("commerce/0000000000000000002", next(next(v1, "x"), "y").toJson()); // says v3

    KafkaShardMapSource source = source(KS);
    assertEquals(v1, source.current());
    BlockingQueue<ShardMap> heard = listen(source);
    rawWrite("commerce/0000000000000000009", "{}");
    ShardMap v2 = next(v1, "shard-2");
    publisher.publish(v2);

    assertEquals(v2, heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertEquals(v2, source.current());
    assertEquals(List.of(v1, v2), publisher.history());
  }

  @Test
  void aMapInAnAbortedTransactionIsNeverSeen() throws Exception {
    ShardMapPublisher publisher = publisher(KS);
    ShardMap v1 = v1(KS);
    ShardMap v2 = next(v1, "shard-2");
    publisher.publish(v1);
    publisher.publish(v2);
    KafkaShardMapSource source = source(KS);
    BlockingQueue<ShardMap> heard = listen(source);

    ShardMap abortedV3 = next(v2, "aborted");
    try (KafkaProducer<String, String> raw = rawProducer("rogue-tx-" + config.topic())) {
      raw.initTransactions();
      raw.beginTransaction();
      raw.send(ShardMapTopic.record(config.topic(), abortedV3)).get();
      raw.flush();
      raw.abortTransaction();
    }
    assertEquals(Optional.of(v2), publisher.newest(), "the aborted v3 is not the newest");
    ShardMap v3 = next(v2, "shard-3");
    publisher.publish(v3);

    assertEquals(Optional.of(v3), source.awaitVersion(3, WAIT));
    assertEquals(v3, heard.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    assertTrue(heard.isEmpty(), "only the committed v3 was heard: " + heard);
    assertEquals(v3, source(KS).current());
    assertEquals(List.of(v1, v2, v3), publisher.history());
  }

  @Test
  void startingOnAKeyspaceWithoutAMapFailsClearlyAndQuickly() {
    publisher(KS).publish(v1(KS));

    long before = System.nanoTime();
    ShardMapNotFoundException e =
        assertThrows(
            ShardMapNotFoundException.class, () -> KafkaShardMapSource.start(config, "nosuch"));

    assertTrue(System.nanoTime() - before < WAIT.toNanos(), "within the timeout");
    assertEquals("nosuch", e.keyspace());
    assertTrue(e.getMessage().contains("no shard map of keyspace nosuch"), e.getMessage());
    assertTrue(e.getMessage().contains(config.topic()), e.getMessage());
    assertTrue(e.getMessage().contains("reshard keyspace init"), e.getMessage());
  }

  @Test
  void startingOnATopicThatDoesNotExistFailsClearlyWithinTheTimeout() {
    ShardMapTopicConfig missing =
        ShardMapTopicConfig.builder()
            .bootstrapServers(cluster.bootstrap())
            .topic(config.topic() + ".missing")
            .timeout(Duration.ofSeconds(1))
            .build();

    long before = System.nanoTime();
    ShardMapNotFoundException e =
        assertThrows(ShardMapNotFoundException.class, () -> KafkaShardMapSource.start(missing, KS));

    assertTrue(System.nanoTime() - before < Duration.ofSeconds(5).toNanos(), "near the timeout");
    assertTrue(e.getMessage().contains(missing.topic() + " does not exist"), e.getMessage());
  }

  // ---- the publisher ----

  @Test
  void thePublisherRefusesAGapAndADuplicateAndWritesNothing() throws Exception {
    ShardMapPublisher publisher = publisher(KS);
    ShardMap v1 = v1(KS);
    ShardMap v2 = next(v1, "shard-2");
    publisher.publish(v1);
    publisher.publish(v2);
    long end = endOffset();

    ShardMapConflictException duplicate =
        assertThrows(ShardMapConflictException.class, () -> publisher.publish(next(v1, "again")));
    assertEquals(3, duplicate.expectedVersion());
    assertEquals(2, duplicate.offeredVersion());
    assertTrue(duplicate.getMessage().contains("commerce v2: expected v3"), duplicate.getMessage());
    assertTrue(duplicate.getMessage().contains("v2 already exists"), duplicate.getMessage());

    ShardMap v4 = next(next(v2, "x"), "y");
    ShardMapConflictException gap =
        assertThrows(ShardMapConflictException.class, () -> publisher.publish(v4));
    assertEquals(3, gap.expectedVersion());
    assertEquals(4, gap.offeredVersion());
    assertTrue(gap.getMessage().contains("commerce v4: expected v3"), gap.getMessage());
    assertTrue(gap.getMessage().contains("the newest in topic"), gap.getMessage());

    assertEquals(end, endOffset(), "no record was written, not even an aborted one");
    assertEquals(List.of(v1, v2), publisher.history());
  }

  @Test
  void theFirstVersionMustBeOne() {
    ShardMapPublisher publisher = publisher(KS);

    ShardMapConflictException e =
        assertThrows(
            ShardMapConflictException.class, () -> publisher.publish(next(v1(KS), "shard-2")));

    assertEquals(0, e.newestVersion());
    assertEquals(1, e.expectedVersion());
    assertTrue(e.getMessage().contains("holds no shard map of commerce"), e.getMessage());
    assertEquals(List.of(), publisher.history());
  }

  @Test
  void aVersionJustCommittedIsNeverAcceptedAgain() {
    // commitTransaction returns before the commit's markers are in the partition; reading only to
    // the last stable offset missed the version just committed and accepted it again: a fork.
    ShardMapPublisher publisher = publisher(KS);
    ShardMap before = null;
    ShardMap m = v1(KS);
    for (int i = 0; i < 10; i++) {
      publisher.publish(m);
      ShardMap again =
          before == null
              ? ShardMap.first(KS, VSCHEMA, assignments("again"))
              : next(before, "again");
      assertThrows(ShardMapConflictException.class, () -> publisher.publish(again), "v" + (i + 1));
      before = m;
      m = next(m, "shard-" + (i + 2));
    }
    assertEquals(10, publisher.history().size());
  }

  @Test
  void aSecondPublisherFencesTheFirst() {
    ShardMapPublisher first = publisher(KS);
    ShardMap v1 = v1(KS);
    first.publish(v1);

    ShardMapPublisher second = publisher(KS);
    ShardMapPublisherFencedException fenced =
        assertThrows(
            ShardMapPublisherFencedException.class, () -> first.publish(next(v1, "first")));
    assertTrue(fenced.getMessage().contains("another switcher took over"), fenced.getMessage());
    assertTrue(fenced.getMessage().contains(config.transactionalId(KS)), fenced.getMessage());
    assertTrue(fenced.getMessage().contains("v2 was not written"), fenced.getMessage());
    assertThrows(
        ShardMapPublisherFencedException.class,
        () -> first.publish(next(v1, "first")),
        "and stays fenced");

    ShardMap v2 = next(v1, "second");
    second.publish(v2);
    assertEquals(List.of(v1, v2), second.history());
    assertEquals(v2, source(KS).current());
  }

  @Test
  void aPublisherThatReadsAVersionItDidNotPublishKnowsItWasFenced() {
    ShardMapPublisher first = publisher(KS);
    ShardMap v1 = v1(KS);
    first.publish(v1);
    assertEquals(Optional.of(v1), first.newest());
    assertFalse(first.isFenced(), "reading back its own version");

    ShardMapPublisher second = publisher(KS);
    ShardMap v2 = next(v1, "second");
    second.publish(v2);
    assertFalse(first.isFenced(), "it cannot know before it reads or writes");
    assertEquals(Optional.of(v2), first.newest(), "it still reads");
    assertTrue(first.isFenced());
    assertThrows(ShardMapPublisherFencedException.class, () -> first.publish(next(v2, "first")));
    assertFalse(second.isFenced());
    assertEquals(List.of(v1, v2), second.history());
  }

  @Test
  void historyListsEveryVersionInOrder() {
    ShardMapPublisher publisher = publisher(KS);
    List<ShardMap> published = new ArrayList<>();
    ShardMap m = v1(KS);
    for (int i = 0; i < 5; i++) {
      publisher.publish(m);
      published.add(m);
      m = next(m, "shard-" + (i + 2));
    }

    assertEquals(published, publisher.history());
    assertEquals(Optional.of(published.get(4)), publisher.newest());
    publisher.close();
    assertEquals(published, publisher(KS).history(), "a new publisher reads the same history");
  }

  @Test
  void createIsIdempotentAndRefusesATopicOfAnotherShape() throws Exception {
    try (Admin admin = Admin.create(ShardMapTopic.adminProperties(config))) {
      assertTrue(ShardMapTopic.create(admin, config.topic()));
      assertFalse(ShardMapTopic.create(admin, config.topic()), "exists: fine");
      String wrong = config.topic() + ".wrong";
      admin.createTopics(List.of(new NewTopic(wrong, 2, (short) 1))).all().get();
      ReshardException e =
          assertThrows(ReshardException.class, () -> ShardMapTopic.create(admin, wrong));
      assertTrue(
          e.getMessage().contains("2 partition(s) and cleanup.policy=delete"), e.getMessage());
    }
  }

  // ---- helpers ----

  private ShardMapPublisher publisher(String keyspace) {
    ShardMapPublisher p = ShardMapPublisher.open(config, keyspace);
    toClose.add(p);
    return p;
  }

  private KafkaShardMapSource source(String keyspace) {
    KafkaShardMapSource s = KafkaShardMapSource.start(config, keyspace);
    toClose.add(s);
    return s;
  }

  private static BlockingQueue<ShardMap> listen(ShardMapSource source) {
    BlockingQueue<ShardMap> heard = new LinkedBlockingQueue<>();
    source.addListener(heard::add);
    return heard;
  }

  /** Two read-write shards; {@code endpoint} serves 80-. */
  private static List<ShardAssignment> assignments(String endpoint) {
    return List.of(
        new ShardAssignment(KeyRange.parse("-80"), "shard-0", true, true),
        new ShardAssignment(KeyRange.parse("80-"), endpoint, true, true));
  }

  private static ShardMap v1(String keyspace) {
    return ShardMap.first(keyspace, VSCHEMA, assignments("shard-1"));
  }

  /** The next version with {@code endpoint} serving 80-, so versions differ in content. */
  private static ShardMap next(ShardMap map, String endpoint) {
    return map.next(VSCHEMA, assignments(endpoint));
  }

  /** Writes {@code map} with a plain producer, bypassing the publisher's checks. */
  private void rawWrite(ShardMap map) throws Exception {
    rawWrite(ShardMapTopic.Key.of(map).toString(), map.toJson());
  }

  /** Writes one record with a plain producer. */
  private void rawWrite(String key, String value) throws Exception {
    try (KafkaProducer<String, String> raw = rawProducer(null)) {
      raw.send(new ProducerRecord<>(config.topic(), 0, key, value)).get();
    }
  }

  private KafkaProducer<String, String> rawProducer(String transactionalId) {
    Map<String, Object> p = new HashMap<>();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, 10);
    if (transactionalId != null) {
      p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
    }
    return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
  }

  /**
   * The topic's end offset counting every record, committed or not, once no transaction is open on
   * it: a commit returns before its marker is written to the partition, so the end read at once may
   * not count it yet. Waits (at most 10 s) until the last stable offset reaches the end.
   */
  private long endOffset() throws Exception {
    var partition = ShardMapTopic.partition(config.topic());
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    try (Admin admin = Admin.create(ShardMapTopic.adminProperties(config))) {
      while (true) {
        long end = endOffset(admin, partition, IsolationLevel.READ_UNCOMMITTED);
        long stable = endOffset(admin, partition, IsolationLevel.READ_COMMITTED);
        if (stable == end || System.nanoTime() > deadline) {
          return end;
        }
        Thread.sleep(20);
      }
    }
  }

  private static long endOffset(
      Admin admin, org.apache.kafka.common.TopicPartition partition, IsolationLevel isolation)
      throws Exception {
    return admin
        .listOffsets(Map.of(partition, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
        .partitionResult(partition)
        .get()
        .offset();
  }
}
