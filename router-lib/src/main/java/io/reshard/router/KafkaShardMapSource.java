package io.reshard.router;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shard map source of a router in production: it follows one keyspace in the shard map topic
 * (DESIGN 4.2, conventions on {@link ShardMapTopic}) and holds the newest version committed there.
 *
 * <p>{@link #start} reads the topic from its beginning to its end (read_committed) in the caller's
 * thread, so {@link #current()} answers as soon as it returns with the newest map committed before
 * the call; then a background thread keeps polling and offers every map of the keyspace as it is
 * committed. A version not newer than the held one is ignored (and logged), as are other keyspaces'
 * records and malformed records. Maps of aborted transactions are never seen.
 *
 * <p>Listeners ({@link #addListener}) run on the background thread, one new version at a time, in
 * version order. One that throws is logged; the version stays current.
 *
 * <p>If Kafka becomes unreachable, the source keeps the map it holds and the consumer reconnects on
 * its own: reads may be stale meanwhile, writes stay safe because shards fence them (DESIGN 4.3).
 *
 * <p>Thread-safe.
 */
public final class KafkaShardMapSource extends ShardMapHolder {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShardMapSource.class);

  /**
   * The longest single poll of the background thread. Records end a poll as soon as they arrive and
   * {@link #close} wakes it up, so this only bounds how often an idle source loops.
   */
  private static final Duration POLL = Duration.ofSeconds(1);

  /** The pause after an unexpected error of the consumer, so a persistent one does not spin. */
  private static final Duration ERROR_BACKOFF = Duration.ofSeconds(1);

  private final ShardMapTopicConfig config;
  private final ShardMapTopicReader reader;
  private final Thread thread;
  private final AtomicBoolean closed = new AtomicBoolean();
  private final CountDownLatch closing = new CountDownLatch(1);

  private KafkaShardMapSource(ShardMapTopicConfig config, String keyspace) {
    super(keyspace);
    this.config = config;
    this.reader = new ShardMapTopicReader(config, keyspace);
    this.thread = new Thread(this::follow, "reshard-shardmap-source-" + keyspace);
    thread.setDaemon(true);
  }

  /**
   * Reads the shard map topic to its end, then follows it in a background thread.
   *
   * @param config where the topic is; {@link ShardMapTopicConfig#timeout()} bounds the initial read
   * @param keyspace the keyspace to follow
   * @return a source whose {@link #current()} is the newest committed map of the keyspace
   * @throws ShardMapNotFoundException if the topic does not exist, or holds no map of the keyspace
   * @throws RetriableReshardException if the topic could not be read to its end within the timeout
   */
  public static KafkaShardMapSource start(ShardMapTopicConfig config, String keyspace) {
    KafkaShardMapSource source = new KafkaShardMapSource(config, keyspace);
    try (Admin admin = Admin.create(ShardMapTopic.adminProperties(config))) {
      long end = source.reader.readToEnd(admin, config.timeout(), source::receive);
      if (source.peek().isEmpty()) {
        throw new ShardMapNotFoundException(
            keyspace,
            config.topic(),
            "no shard map of keyspace "
                + keyspace
                + " in topic "
                + config.topic()
                + " (read "
                + source.reader.recordsRead()
                + " record(s) up to offset "
                + end
                + "): run `reshard keyspace init` for it first, or check the keyspace name");
      }
      LOG.info(
          "following {} in topic {} from offset {}: {}",
          keyspace,
          config.topic(),
          end,
          source.current());
    } catch (RuntimeException e) {
      source.reader.close();
      throw e;
    }
    source.thread.start();
    return source;
  }

  /** The topic followed. */
  public String topic() {
    return config.topic();
  }

  /**
   * Stops following: wakes the background thread and waits for it to close its consumer. The held
   * map stays readable. Idempotent; may be called from a listener (then it does not wait).
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    closing.countDown();
    reader.wakeup();
    if (Thread.currentThread() == thread) {
      return;
    }
    boolean interrupted = false;
    while (thread.isAlive()) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** The background thread: poll until closed, then close the consumer. */
  private void follow() {
    try {
      while (!closed.get()) {
        try {
          reader.poll(POLL, this::receive);
        } catch (WakeupException e) {
          // close() was called; the loop condition ends the thread
        } catch (RuntimeException e) {
          LOG.warn(
              "reading shard map topic {} for {} failed; retrying in {}",
              config.topic(),
              keyspace(),
              ERROR_BACKOFF,
              e);
          pauseUnlessClosing();
        }
      }
    } finally {
      reader.close();
    }
  }

  /** Offers one map read from the topic, logging whether it became current. */
  private void receive(ShardMap map) {
    boolean older = peek().map(held -> held.version() >= map.version()).orElse(false);
    if (older) {
      LOG.warn("ignoring {}: version {} is held already", map, current().version());
      return;
    }
    try {
      if (offer(map) && Thread.currentThread() == thread) {
        LOG.info("new shard map: {}", map);
      }
    } catch (RuntimeException e) {
      LOG.error("a shard map listener failed on {} v{}", map.keyspace(), map.version(), e);
    }
  }

  private void pauseUnlessClosing() {
    try {
      closing.await(ERROR_BACKOFF.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed.set(true);
    }
  }
}
