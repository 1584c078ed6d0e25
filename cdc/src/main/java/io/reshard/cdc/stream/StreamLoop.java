package io.reshard.cdc.stream;

import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.HandOver;
import io.reshard.cdc.HandOverLog;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cdc.RecordKind;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keyspace stream's consume-transform-produce loop (DESIGN 4.10): reads every shard topic of
 * the keyspace ({@code read_committed}), takes each source transaction whole, keeps the
 * application's ({@link Ownership}, {@link KeyspaceRecords#writtenByReshard}) and writes its rows
 * to the keyspace topic ({@link KeyspaceRecords}), with the shard topics' offsets, and in their
 * metadata each shard's {@link ShardProgress}, committed in the same Kafka transaction. A restarted
 * loop goes on from what was committed, so every transaction enters the keyspace topic once.
 *
 * <p>One iteration: poll; then read the hand-overs (so that every taker record polled is covered,
 * see {@link HandOverLog}); take from every topic what may be taken, again while a topic's progress
 * lets a held one go on; commit. A taker's transactions after its take wait until every giver is
 * read past its position.
 *
 * <p>Any failure ends {@link #run} with the exception; the caller starts a new loop. Not
 * thread-safe, except {@link #stop}.
 */
public final class StreamLoop {
  private static final Logger LOG = LoggerFactory.getLogger(StreamLoop.class);
  private static final int PAUSE_ABOVE = 20_000;
  private static final Duration TOPIC_REFRESH = Duration.ofSeconds(2);
  private static final Duration TIMEOUT = Duration.ofSeconds(30);
  private static final Duration JOURNAL_REFRESH = Duration.ofSeconds(2);
  private static final Duration IDLE_COMMIT = Duration.ofSeconds(1);

  private final KeyspaceStreamConfig config;
  private final HandOverLog handOvers;
  private final Supplier<Optional<VSchema>> vschema;
  private final Map<String, ShardTopic> topics = new LinkedHashMap<>();
  private volatile boolean running = true;
  private volatile long recordsWritten;
  private volatile long transactionsWritten;
  private volatile long transactionsLeftOut;
  private volatile int partitionCount;
  private Ownership ownership = new Ownership(List.of());
  private KeyspaceRecords records;
  private long lastTopicRefresh;
  private long lastJournalRead;
  private long lastCommit;

  /** Per shard topic, the offset last committed. */
  private final Map<TopicPartition, Long> committed = new java.util.HashMap<>();

  /**
   * @param config where to read and write
   * @param handOvers the workflow journal's hand-overs
   * @param vschema the keyspace's vschema, empty while the keyspace has none
   */
  public StreamLoop(
      KeyspaceStreamConfig config, HandOverLog handOvers, Supplier<Optional<VSchema>> vschema) {
    this.config = config;
    this.handOvers = handOvers;
    this.vschema = vschema;
  }

  /** Runs until {@link #stop}; throws what ended it otherwise. */
  public void run() throws Exception {
    try (Admin admin = Admin.create(adminProperties())) {
      partitionCount = ensureTopic(admin);
      TopicForm.requireSame(config, partitionCount);
      records =
          new KeyspaceRecords(
              config.keyspace(),
              config.topic(),
              new KeyspacePartitions(partitionCount),
              config.format());
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties());
          KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProperties())) {
        producer.initTransactions(); // fences an older loop, aborts what it left open
        while (running) {
          refreshTopics(admin, consumer);
          ConsumerRecords<byte[], byte[]> batch = consumer.poll(config.pollTimeout());
          // the hand-overs after the poll: every taker record just polled was published after
          // the hand-over that lets it in was recorded (a poll of heartbeats alone needs none)
          if (holdsChanges(batch)
              || System.nanoTime() - lastJournalRead > JOURNAL_REFRESH.toNanos()) {
            ownership = new Ownership(handOvers.read(config.keyspace()));
            lastJournalRead = System.nanoTime();
            addTopics(consumer, ownership.shards(), admin);
          }
          for (ShardTopic t : topics.values()) {
            batch.records(t.partition).forEach(t.polled::add);
          }
          Optional<VSchema> v = vschema.get();
          if (v.isEmpty()) {
            waitingForVSchema(); // nothing is taken: without it no row can be placed
          } else {
            records.vschema(v.get());
            takeAndCommit(consumer, producer);
          }
          pauseFullTopics(consumer);
        }
      }
    }
  }

  private boolean toldNoVSchema;

  private void waitingForVSchema() {
    if (!toldNoVSchema) {
      toldNoVSchema = true;
      LOG.warn(
          "keyspace stream {}: keyspace {} has no vschema (no shard map) yet; waiting",
          config.topic(),
          config.keyspace());
    }
  }

  /** Asks the loop to end after its current iteration. */
  public void stop() {
    running = false;
  }

  /** Row changes written to the keyspace topic by this loop. */
  public long recordsWritten() {
    return recordsWritten;
  }

  /** Application transactions written. */
  public long transactionsWritten() {
    return transactionsWritten;
  }

  /** Transactions read and left out: reshard's own writes, or a shard not owning writes then. */
  public long transactionsLeftOut() {
    return transactionsLeftOut;
  }

  /** The keyspace topic's partition count; 0 before the loop has found it. */
  public int partitionCount() {
    return partitionCount;
  }

  /** Per shard, how far it was read, e.g. {@code c0- -> reached 0-1-42}. */
  public Map<String, String> progress() {
    Map<String, String> m = new LinkedHashMap<>();
    topics.values().forEach(t -> m.put(t.shard, String.valueOf(t.progress)));
    return m;
  }

  private void takeAndCommit(
      KafkaConsumer<byte[], byte[]> consumer, KafkaProducer<byte[], byte[]> producer) {
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    boolean moved = true;
    while (moved) {
      moved = false;
      for (ShardTopic t : topics.values()) {
        moved |= take(t, out);
      }
    }
    boolean offsetsMoved =
        topics.values().stream().anyMatch(t -> t.committable != committed.get(t.partition));
    // progress over heartbeats alone is committed at most once a second: a restart reads them again
    boolean due = System.nanoTime() - lastCommit > IDLE_COMMIT.toNanos();
    if (out.isEmpty() && !(offsetsMoved && due)) {
      return;
    }
    lastCommit = System.nanoTime();
    producer.beginTransaction();
    for (ProducerRecord<byte[], byte[]> r : out) {
      producer.send(r);
    }
    Map<TopicPartition, OffsetAndMetadata> offsets = new LinkedHashMap<>();
    for (ShardTopic t : topics.values()) {
      offsets.put(t.partition, new OffsetAndMetadata(t.committable, t.progress.toMetadata()));
    }
    producer.sendOffsetsToTransaction(offsets, new ConsumerGroupMetadata(config.transactionalId()));
    producer.commitTransaction();
    topics.values().forEach(t -> committed.put(t.partition, t.committable));
    recordsWritten += out.size();
  }

  /**
   * Takes what may be taken of {@code t}'s polled records; returns true if it took anything. Stops
   * at the BEGIN of a transaction that must wait for a hand-over's givers.
   */
  private boolean take(ShardTopic t, List<ProducerRecord<byte[], byte[]>> out) {
    boolean took = false;
    while (!t.polled.isEmpty()) {
      ConsumerRecord<byte[], byte[]> r = t.polled.peek();
      ChangeRecord rec = ChangeRecords.parse(r);
      switch (rec.kind()) {
        case BEGIN -> {
          Optional<Boolean> owned = mayStart(t, rec.gtid());
          if (owned.isEmpty()) {
            return took; // waits for the givers of its hand-over
          }
          t.open = new ShardTopic.Open(rec.gtid(), owned.get());
        }
        case DATA -> {
          if (t.open == null) {
            // a statement outside BEGIN/END (a truncate): a transaction of its own
            Optional<Boolean> owned = mayStart(t, rec.gtid());
            if (owned.isEmpty()) {
              return took;
            }
            ShardTopic.Open single = new ShardTopic.Open(rec.gtid(), owned.get());
            single.parsed.add(rec);
            single.raw.add(r);
            close(t, single, r.offset(), out);
          } else {
            t.open.parsed.add(rec);
            t.open.raw.add(r);
          }
        }
        case END -> {
          if (t.open != null) {
            close(t, t.open, r.offset(), out);
            t.open = null;
          } else {
            t.committable = r.offset() + 1;
          }
        }
        case HEARTBEAT, GAP -> {
          t.progress.reached(rec.position().gtids());
          if (t.open == null) {
            t.committable = r.offset() + 1;
          }
        }
        default -> {
          if (t.open == null) {
            t.committable = r.offset() + 1; // schema changes are not in the keyspace topic
          }
        }
      }
      t.polled.poll();
      took = true;
    }
    return took;
  }

  /**
   * Whether the transaction {@code gtid} of {@code t} is the application's; empty while it must
   * wait for a hand-over's givers to be read past their positions.
   */
  private Optional<Boolean> mayStart(ShardTopic t, String gtid) {
    if (gtid == null) {
      return Optional.of(true);
    }
    Ownership.Verdict v = ownership.of(t.shard, gtid);
    if (v.waitFor().isPresent() && !passed(v.waitFor().get())) {
      return Optional.empty();
    }
    return Optional.of(v.owned());
  }

  /** True once every giver of {@code h} has been read past its position. */
  private boolean passed(HandOver h) {
    for (Map.Entry<String, String> e : h.from().entrySet()) {
      ShardTopic giver = topics.get(e.getKey());
      if (giver == null || !giver.progress.passed(GtidPosition.parse(e.getValue()))) {
        return false;
      }
    }
    return true;
  }

  private void close(
      ShardTopic t, ShardTopic.Open tx, long endOffset, List<ProducerRecord<byte[], byte[]>> out) {
    if (tx.gtid != null) {
      t.progress.read(tx.gtid);
    }
    t.committable = endOffset + 1;
    if (tx.owned && !KeyspaceRecords.writtenByReshard(tx.parsed)) {
      List<ProducerRecord<byte[], byte[]>> rows = records.of(t.shard, tx.parsed, tx.raw);
      out.addAll(rows);
      if (!rows.isEmpty()) {
        transactionsWritten++;
      }
    } else if (!tx.parsed.isEmpty()) {
      transactionsLeftOut++;
    }
  }

  /** True if {@code batch} holds a record other than a heartbeat. */
  private static boolean holdsChanges(ConsumerRecords<byte[], byte[]> batch) {
    for (ConsumerRecord<byte[], byte[]> r : batch) {
      Header kind = r.headers().lastHeader(ChangeRecords.KIND_HEADER);
      if (kind == null
          || !RecordKind.HEARTBEAT
              .headerValue()
              .equals(new String(kind.value(), StandardCharsets.UTF_8))) {
        return true;
      }
    }
    return false;
  }

  /** Pauses a topic with many records waiting (say behind a hand-over), resumes it when taken. */
  private void pauseFullTopics(KafkaConsumer<byte[], byte[]> consumer) {
    Set<TopicPartition> paused = consumer.paused();
    for (ShardTopic t : topics.values()) {
      boolean full = t.polled.size() > PAUSE_ABOVE;
      if (full && !paused.contains(t.partition)) {
        consumer.pause(List.of(t.partition));
      } else if (!full && paused.contains(t.partition)) {
        consumer.resume(List.of(t.partition));
      }
    }
  }

  /** Every little while, the shard topics of the keyspace that exist in Kafka. */
  private void refreshTopics(Admin admin, KafkaConsumer<byte[], byte[]> consumer) throws Exception {
    long now = System.nanoTime();
    if (lastTopicRefresh != 0 && now - lastTopicRefresh < TOPIC_REFRESH.toNanos()) {
      return;
    }
    lastTopicRefresh = now;
    String prefix = config.topicPrefix() + "." + config.keyspace() + ".";
    List<String> shards = new ArrayList<>();
    for (String name : admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
      if (name.startsWith(prefix) && isShardName(name.substring(prefix.length()))) {
        shards.add(name.substring(prefix.length()));
      }
    }
    addTopics(consumer, shards, null);
  }

  private static boolean isShardName(String s) {
    try {
      return KeyRange.parse(s).name().equals(s);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * Starts reading the topics of {@code shards} not read yet, from the committed offsets (the
   * beginning for a topic never read); with {@code admin}, only those that exist.
   */
  private void addTopics(KafkaConsumer<byte[], byte[]> consumer, List<String> shards, Admin admin)
      throws Exception {
    List<String> fresh = shards.stream().filter(s -> !topics.containsKey(s)).toList();
    if (fresh.isEmpty()) {
      return;
    }
    Set<String> existing =
        admin == null
            ? null
            : admin.listTopics().names().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    List<ShardTopic> added = new ArrayList<>();
    for (String shard : fresh) {
      String topic = ChangeRecords.changeTopic(config.topicPrefix(), config.keyspace(), shard);
      if (existing != null && !existing.contains(topic)) {
        continue;
      }
      added.add(new ShardTopic(shard, topic, 0, new ShardProgress()));
    }
    if (added.isEmpty()) {
      return;
    }
    Set<TopicPartition> parts = new java.util.HashSet<>();
    added.forEach(t -> parts.add(t.partition));
    Map<TopicPartition, OffsetAndMetadata> stored = consumer.committed(parts, TIMEOUT);
    List<TopicPartition> all = new ArrayList<>(consumer.assignment());
    all.addAll(parts);
    consumer.assign(all);
    for (ShardTopic t : added) {
      OffsetAndMetadata c = stored.get(t.partition);
      if (c == null) {
        consumer.seekToBeginning(List.of(t.partition));
        t.committable = consumer.position(t.partition, TIMEOUT);
      } else {
        consumer.seek(t.partition, c.offset());
        t.committable = c.offset();
        t.progress = ShardProgress.fromMetadata(c.metadata());
      }
      topics.put(t.shard, t);
      committed.put(t.partition, t.committable);
      LOG.info(
          "keyspace stream {}: reading {} from offset {} ({})",
          config.topic(),
          t.partition.topic(),
          t.committable,
          t.progress);
    }
  }

  /** Creates the keyspace topic unless it exists; returns its partition count. */
  private int ensureTopic(Admin admin) throws Exception {
    NewTopic t =
        new NewTopic(
            config.topic(),
            Optional.of(config.partitions()),
            config.replicationFactor() < 0
                ? Optional.empty()
                : Optional.of(config.replicationFactor()));
    try {
      admin.createTopics(List.of(t)).all().get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      LOG.info(
          "keyspace stream: created {} with {} partitions", config.topic(), config.partitions());
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw e;
      }
    }
    int count =
        admin
            .describeTopics(List.of(config.topic()))
            .allTopicNames()
            .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)
            .get(config.topic())
            .partitions()
            .size();
    if (count != config.partitions()) {
      LOG.info(
          "keyspace stream: {} keeps its {} partitions (configured: {}); a row's partition never"
              + " changes",
          config.topic(),
          count,
          config.partitions());
    }
    return count;
  }

  private Properties adminProperties() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrap());
    return p;
  }

  private Properties consumerProperties() {
    Properties p = ChangeRecords.consumerProperties(config.bootstrap(), config.transactionalId());
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, config.transactionalId() + "-consumer");
    return p;
  }

  private Properties producerProperties() {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrap());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    return p;
  }
}
