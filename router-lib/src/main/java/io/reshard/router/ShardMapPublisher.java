package io.reshard.router;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single writer of one keyspace's shard maps (DESIGN 4.2); only the switcher and {@code
 * keyspace init} use it.
 *
 * <p><b>Why versions never fork.</b> Every publisher of a keyspace has the same {@code
 * transactional.id} ({@link ShardMapTopicConfig#transactionalId}). {@link #open} calls {@code
 * initTransactions}, which bumps the id's producer epoch: before it returns, Kafka finishes the
 * transaction the previous holder had in flight (completing it if its commit had begun, aborting it
 * otherwise, markers written), and it refuses every later write of that holder. The first {@link
 * #publish} (or {@link #newest}, {@link #history}) then reads the topic to its end (its high
 * watermark, so it waits for the markers of every commit made before), and sees every version
 * committed before this publisher opened. From then on only a publisher that opens later can write
 * to the keyspace, and opening fences this one: so this publisher's view — the versions read plus
 * the ones it committed itself — stays complete for as long as its commits succeed. {@link
 * #publish} accepts only the successor of the newest version of that view and writes it in a
 * transaction; if another publisher opened since, the commit fails ({@link
 * ShardMapPublisherFencedException}) and nothing is written. This is why {@code publish} need not
 * read the topic again each time (a read costs a round trip or more, inside the switch's fenced
 * window). (A producer that bypasses this class is outside this argument; readers ignore the older
 * versions it could write.)
 *
 * <p>It checks only the version: {@link ShardMap} validates itself when built, and epochs are the
 * business of {@link ShardMap#next}.
 *
 * <p>Thread-safe (methods are synchronized); meant for one thread.
 */
public final class ShardMapPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardMapPublisher.class);

  private final ShardMapTopicConfig config;
  private final String keyspace;
  private final String transactionalId;
  private final Admin admin;
  private Producer<String, String> producer;
  private final ShardMapTopicReader reader;

  /** The map being published again after a refused transaction: not another publisher's. */
  private ShardMap pending;

  /** True until this publisher's producer has committed a transaction. */
  private boolean firstTransaction = true;

  /** Every version of the keyspace read so far; for a rewritten version, the last record wins. */
  private final TreeMap<Long, ShardMap> versions = new TreeMap<>();

  private boolean fenced;
  private boolean closed;

  /**
   * Whether {@link #versions} holds every version of the keyspace committed so far (true after the
   * first read to the end; see the class comment for why it stays true).
   */
  private boolean complete;

  private ShardMapPublisher(
      ShardMapTopicConfig config, String keyspace, Admin admin, Producer<String, String> producer) {
    this.config = config;
    this.keyspace = keyspace;
    this.transactionalId = config.transactionalId(keyspace);
    this.admin = admin;
    this.producer = producer;
    this.reader = new ShardMapTopicReader(config, keyspace);
  }

  /**
   * Creates the topic if it does not exist ({@link ShardMapTopic#create}), then takes over the
   * keyspace's shard map: every older publisher of the keyspace is fenced from now on.
   *
   * @param config where the topic is; {@link ShardMapTopicConfig#timeout()} bounds each step
   * @param keyspace the keyspace whose maps this publisher writes
   * @throws IllegalArgumentException if the keyspace name cannot name records (blank, holds '/')
   * @throws RetriableReshardException if Kafka did not answer within the timeout
   * @throws ReshardException if the topic exists with the wrong shape, or Kafka refused
   */
  public static ShardMapPublisher open(ShardMapTopicConfig config, String keyspace) {
    new ShardMapTopic.Key(keyspace, 1); // refuses a keyspace name that cannot name records
    Admin admin = Admin.create(ShardMapTopic.adminProperties(config));
    KafkaProducer<String, String> producer = null;
    try {
      if (ShardMapTopic.create(admin, config.topic())) {
        LOG.info("created shard map topic {}", config.topic());
      }
      producer = new KafkaProducer<>(ShardMapTopic.producerProperties(config, keyspace));
      producer.initTransactions();
      ShardMapPublisher publisher = new ShardMapPublisher(config, keyspace, admin, producer);
      LOG.info(
          "shard map publisher of {} open (transactional.id {}): older publishers are fenced",
          keyspace,
          publisher.transactionalId);
      return publisher;
    } catch (RuntimeException e) {
      if (producer != null) {
        producer.close(Duration.ZERO);
      }
      admin.close(Duration.ZERO);
      if (e instanceof ReshardException r) {
        throw r;
      }
      throw kafkaFailure(
          "could not open the shard map publisher " + config.transactionalId(keyspace), e);
    }
  }

  /** The keyspace whose maps this publisher writes. */
  public String keyspace() {
    return keyspace;
  }

  /** This publisher's {@code transactional.id}. */
  public String transactionalId() {
    return transactionalId;
  }

  /**
   * Publishes {@code next} as the keyspace's newest map: checks that {@code next} is the successor
   * of the newest version (version 1 if there is none) — reading the topic to its end first if this
   * publisher has not done so yet — and writes it in one transaction. When this returns, the map is
   * committed and every source will receive it.
   *
   * @throws IllegalArgumentException if {@code next} is a map of another keyspace
   * @throws ShardMapConflictException if {@code next.version()} is not the newest version + 1;
   *     nothing was written
   * @throws ShardMapPublisherFencedException if a newer publisher of the keyspace took over (now or
   *     before); nothing was written, and this publisher can never write again
   * @throws RetriableReshardException if Kafka did not answer within the timeout; if this happened
   *     while writing, whether {@code next} was written is unknown and this publisher is closed:
   *     open a new one and look at {@link #newest()}
   * @throws ReshardException if Kafka refused otherwise; the transaction was aborted (or, if even
   *     that failed, this publisher is closed)
   */
  public synchronized void publish(ShardMap next) {
    requireUsable(next.version());
    if (!next.keyspace().equals(keyspace)) {
      throw new IllegalArgumentException(
          "the shard map publisher of " + keyspace + " cannot publish " + next);
    }
    if (!complete) {
      catchUp();
    }
    long newest = versions.isEmpty() ? 0 : versions.lastKey();
    if (next.version() != newest + 1) {
      throw new ShardMapConflictException(keyspace, config.topic(), newest, next.version());
    }
    RecordMetadata written = write(next);
    versions.put(next.version(), next); // committed: part of this publisher's complete view
    LOG.info(
        "published {} at {} offset {}",
        next,
        config.topic(),
        written == null ? "(read back)" : written.offset());
  }

  /**
   * Reads the topic to its end and returns the keyspace's newest map.
   *
   * @return the map with the highest version, or empty if the topic holds none of the keyspace
   * @throws RetriableReshardException if the topic could not be read to its end within the timeout
   */
  public synchronized Optional<ShardMap> newest() {
    requireOpen();
    catchUp();
    return versions.isEmpty() ? Optional.empty() : Optional.of(versions.lastEntry().getValue());
  }

  /**
   * Reads the topic to its end and returns every version of the keyspace's map, oldest first (for
   * {@code shardmap history}). If a version was written twice (only a writer that bypasses this
   * class could do that), the later record is the one listed, as compaction will keep it.
   *
   * @throws RetriableReshardException if the topic could not be read to its end within the timeout
   */
  public synchronized List<ShardMap> history() {
    requireOpen();
    catchUp();
    return List.copyOf(versions.values());
  }

  /**
   * True once this publisher knows that a newer publisher of the keyspace took over: a publish of
   * its own failed as fenced, or {@link #newest()} or {@link #history()} read a version that it did
   * not publish after it had read the topic to its end once (only a publisher opened later can have
   * written that). A fenced publisher still reads; to publish, open a new one. A publisher that has
   * neither published nor read since the takeover cannot know it yet.
   */
  public synchronized boolean isFenced() {
    return fenced;
  }

  /** Closes the producer and the consumer. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      reader.close();
      admin.close(config.timeout());
    } finally {
      // a fenced producer has nothing left to send; otherwise let in-flight requests finish
      producer.close(fenced ? Duration.ZERO : config.timeout());
    }
  }

  // ---- private ----

  /**
   * Reads the records added since the last call, up to the topic's end. A version read after the
   * first complete read that this publisher did not commit itself was written by a publisher opened
   * later, which fenced this one (class comment): from then on {@link #isFenced()}.
   */
  private void catchUp() {
    boolean sawEverythingBefore = complete;
    reader.readToEnd(
        admin,
        config.timeout(),
        map -> {
          ShardMap before = versions.put(map.version(), map);
          if (before != null && !before.equals(map)) {
            LOG.warn("{} was written again with other content; the later record wins", map);
          }
          if (sawEverythingBefore && !map.equals(before) && !map.equals(pending) && !fenced) {
            fenced = true;
            LOG.warn(
                "{} was published by another publisher of {}: publisher {} is fenced",
                map,
                keyspace,
                transactionalId);
          }
        });
    complete = true;
  }

  /**
   * Writes {@code map} in one transaction. If the broker refuses this publisher's first transaction
   * as in an invalid state (seen now and then right after a producer's first {@code
   * initTransactions}), it is tried once more with a new producer of the same {@code
   * transactional.id}, after reading the topic again: if another publisher wrote meanwhile, this
   * one is fenced and writes nothing; if {@code map} is there already, it was written.
   *
   * @return where it was written, or null if it was found written already
   */
  private RecordMetadata write(ShardMap map) {
    try {
      return writeOnce(map, firstTransaction);
    } catch (RefusedTransaction refused) {
      LOG.warn(
          "the broker refused the transaction of {} ({}); trying once more with a new producer",
          map,
          refused.getCause().toString());
      reopenProducer(map);
      pending = map;
      try {
        catchUp();
      } finally {
        pending = null;
      }
      if (fenced) {
        throw fencedBy(map.version(), refused.getCause());
      }
      ShardMap there = versions.get(map.version());
      if (there != null) {
        if (there.equals(map)) {
          return null;
        }
        throw new ShardMapConflictException(keyspace, config.topic(), map.version(), map.version());
      }
      return writeOnce(map, false);
    }
  }

  /** Closes the producer in error and opens a new one, which aborts what the old one left open. */
  private void reopenProducer(ShardMap map) {
    producer.close(Duration.ZERO);
    try {
      producer = new KafkaProducer<>(ShardMapTopic.producerProperties(config, keyspace));
      producer.initTransactions();
    } catch (RuntimeException e) {
      closed = true;
      reader.close();
      admin.close(Duration.ZERO);
      throw kafkaFailure(
          "publishing "
              + map
              + " failed and a new producer could not be opened; this publisher"
              + " is closed, open a new one",
          e);
    }
  }

  /** Thrown by {@link #writeOnce} for a transaction refused as in an invalid state. */
  private static final class RefusedTransaction extends RuntimeException {
    private static final long serialVersionUID = 1L;

    RefusedTransaction(KafkaException cause) {
      super(cause);
    }
  }

  private RecordMetadata writeOnce(ShardMap map, boolean mayRetry) {
    try {
      producer.beginTransaction();
      Future<RecordMetadata> sent = producer.send(ShardMapTopic.record(config.topic(), map));
      producer.commitTransaction();
      firstTransaction = false;
      return sent.get();
    } catch (TimeoutException e) {
      close();
      throw kafkaFailure(
          "the outcome of publishing "
              + map
              + " is unknown and this publisher is closed: open a new one (it finishes the"
              + " transaction) and look at the newest version",
          e);
    } catch (KafkaException e) {
      if (isFenced(e)) {
        throw fencedBy(map.version(), e);
      }
      if (mayRetry && refusedAsInvalid(e)) {
        throw new RefusedTransaction(e);
      }
      abort(map, e);
      throw new ReshardException(
          "publishing " + map + " failed, its transaction was aborted: " + e, e);
    } catch (ExecutionException e) {
      throw new ReshardException("publishing " + map + " failed: " + e.getCause(), e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReshardException("interrupted while publishing " + map, e);
    }
  }

  /** Aborts the open transaction after {@code failure}; a fence found meanwhile is raised. */
  private void abort(ShardMap map, KafkaException failure) {
    try {
      producer.abortTransaction();
    } catch (KafkaException e) {
      if (isFenced(e)) {
        throw fencedBy(map.version(), e);
      }
      failure.addSuppressed(e);
      close();
      throw new ReshardException(
          "publishing "
              + map
              + " failed ("
              + failure
              + ") and so did aborting it ("
              + e
              + "); this publisher is closed, open a new one",
          failure);
    }
  }

  private ShardMapPublisherFencedException fencedBy(long version, Throwable cause) {
    fenced = true;
    LOG.error("shard map publisher {} was fenced: another switcher took over", transactionalId);
    return new ShardMapPublisherFencedException(keyspace, transactionalId, version, cause);
  }

  private static boolean refusedAsInvalid(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof org.apache.kafka.common.errors.InvalidTxnStateException) {
        return true;
      }
    }
    return false;
  }

  private static boolean isFenced(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof ProducerFencedException) {
        return true;
      }
    }
    return false;
  }

  private void requireUsable(long version) {
    requireOpen();
    if (fenced) {
      throw new ShardMapPublisherFencedException(keyspace, transactionalId, version, null);
    }
  }

  private void requireOpen() {
    if (closed) {
      throw new ReshardException("the shard map publisher " + transactionalId + " is closed");
    }
  }

  private static ReshardException kafkaFailure(String what, RuntimeException e) {
    if (e instanceof TimeoutException) {
      return new RetriableReshardException(what + ": Kafka did not answer in time (" + e + ")", e);
    }
    return new ReshardException(what + ": " + e, e);
  }
}
