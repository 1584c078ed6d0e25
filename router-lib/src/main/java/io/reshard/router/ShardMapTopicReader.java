package io.reshard.router;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the shard map topic from its beginning, read_committed, handing every map of one keyspace
 * to a sink in topic order: the part that {@link KafkaShardMapSource} and {@link ShardMapPublisher}
 * share. Records of other keyspaces are skipped unparsed; malformed records are logged and skipped.
 *
 * <p><b>"The end"</b> is the high watermark when {@link #readToEnd} is called (every record
 * written, committed or not), not the last stable offset that {@code endOffsets} gives a
 * read_committed consumer. {@code commitTransaction} returns once the commit is decided, before its
 * markers reach the partition; until they do, the last stable offset still lies before the
 * committed map. Reading only to it, a publisher could miss the version it has just committed and
 * accept that version again (a fork), and a router started just after {@code keyspace init} would
 * find no map. Reading to the high watermark waits for those markers instead.
 *
 * <p>Not thread-safe, except {@link #wakeup()}: one thread at a time.
 */
final class ShardMapTopicReader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ShardMapTopicReader.class);

  /** How often to look again for a topic that does not exist yet (just created elsewhere). */
  private static final Duration TOPIC_RECHECK = Duration.ofMillis(100);

  /**
   * The longest single poll while catching up. {@code poll} waits its whole time if it returns
   * nothing, which happens when the topic ends with aborted records or transaction markers: the
   * position still moves past them, and a short poll notices the end soon after. The publisher
   * catches up inside the switch's fenced window (its own previous commit's marker is usually the
   * last thing left to pass), so every millisecond of this wait is a millisecond of write pause: 5
   * ms keeps it small, and a poll that short still costs nothing when records are there.
   */
  private static final Duration CATCH_UP_POLL = Duration.ofMillis(5);

  private final ShardMapTopicConfig config;
  private final String keyspace;
  private final TopicPartition partition;
  private final KafkaConsumer<String, String> consumer;
  private long recordsRead;

  /** Opens a consumer positioned at the topic's beginning; it connects lazily. */
  ShardMapTopicReader(ShardMapTopicConfig config, String keyspace) {
    this.config = config;
    this.keyspace = keyspace;
    this.partition = ShardMapTopic.partition(config.topic());
    this.consumer = new KafkaConsumer<>(ShardMapTopic.consumerProperties(config));
    consumer.assign(List.of(partition));
    consumer.seekToBeginning(List.of(partition));
  }

  /** Records read so far, of every keyspace, malformed ones included. */
  long recordsRead() {
    return recordsRead;
  }

  /**
   * Reads every record written before this call, handing each map of the keyspace to {@code sink}
   * in topic order. Returns once every record below the topic's high watermark at the time of the
   * call has been read or skipped: a read_committed consumer cannot pass a transaction until it is
   * decided, so this also waits for every transaction open at that moment to commit or abort.
   * Usually that takes milliseconds (a commit's markers are written just after {@code
   * commitTransaction} returns); a publisher that died inside a transaction holds it until the
   * broker aborts it ({@link ShardMapTopic#TRANSACTION_TIMEOUT_MILLIS}).
   *
   * @param admin used to ask for the high watermark
   * @param timeout how long it may take in all
   * @return the offset reached: the high watermark at the time of the call, or more
   * @throws ShardMapNotFoundException if the topic does not exist
   * @throws RetriableReshardException if that was not done within {@code timeout}: Kafka
   *     unreachable or slow, or a transaction still open
   */
  long readToEnd(Admin admin, Duration timeout, Consumer<ShardMap> sink) {
    long deadline = System.nanoTime() + timeout.toNanos();
    awaitTopic(deadline);
    try {
      long end = highWatermark(admin, deadline);
      long position;
      while ((position = consumer.position(partition, remaining(deadline))) < end) {
        if (remaining(deadline).isZero()) {
          long stable = consumer.endOffsets(Set.of(partition), CATCH_UP_POLL).get(partition);
          throw new TimeoutException(
              "at offset "
                  + position
                  + " of "
                  + end
                  + (stable < end ? ", a transaction is open at offset " + stable : ""));
        }
        poll(min(remaining(deadline), CATCH_UP_POLL), sink);
      }
      return position;
    } catch (TimeoutException e) {
      throw new RetriableReshardException(
          "could not read shard map topic "
              + config.topic()
              + " to its end within "
              + timeout
              + " ("
              + e.getMessage()
              + "); is Kafka at "
              + config.bootstrapServers()
              + " reachable?",
          e);
    }
  }

  /** The partition's high watermark: the offset after the last record written, committed or not. */
  private long highWatermark(Admin admin, long deadline) {
    try {
      return admin
          .listOffsets(
              Map.of(partition, OffsetSpec.latest()),
              new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
          .partitionResult(partition)
          .get(remaining(deadline).toNanos(), TimeUnit.NANOSECONDS)
          .offset();
    } catch (java.util.concurrent.TimeoutException e) {
      throw new TimeoutException("no answer for the end offset");
    } catch (ExecutionException e) {
      throw new ReshardException(
          "cannot find the end of shard map topic " + config.topic() + ": " + e.getCause(),
          e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ReshardException("interrupted while reading shard map topic " + config.topic(), e);
    }
  }

  /**
   * Polls once, waiting up to {@code maxWait} for records, and hands each map of the keyspace to
   * {@code sink}.
   *
   * @throws org.apache.kafka.common.errors.WakeupException if {@link #wakeup()} was called
   */
  void poll(Duration maxWait, Consumer<ShardMap> sink) {
    for (ConsumerRecord<String, String> r : consumer.poll(maxWait)) {
      recordsRead++;
      try {
        ShardMapTopic.decode(keyspace, r.key(), r.value()).ifPresent(sink);
      } catch (IllegalArgumentException e) {
        LOG.warn(
            "ignoring malformed record at {} offset {}: {}", partition, r.offset(), e.getMessage());
      }
    }
  }

  /** Makes a blocked or the next {@link #poll} throw {@code WakeupException}. Thread-safe. */
  void wakeup() {
    consumer.wakeup();
  }

  @Override
  public void close() {
    consumer.close();
  }

  /** Waits for the topic to exist: a topic just created may not be in every broker's metadata. */
  private void awaitTopic(long deadline) {
    while (true) {
      List<PartitionInfo> partitions = consumer.partitionsFor(config.topic(), remaining(deadline));
      if (partitions != null && !partitions.isEmpty()) {
        return;
      }
      if (remaining(deadline).compareTo(TOPIC_RECHECK) < 0) {
        throw new ShardMapNotFoundException(
            keyspace,
            config.topic(),
            "topic "
                + config.topic()
                + " does not exist at "
                + config.bootstrapServers()
                + ": run `reshard keyspace init` for keyspace "
                + keyspace
                + " first, or check the topic name");
      }
      try {
        Thread.sleep(TOPIC_RECHECK.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ReshardException("interrupted while waiting for topic " + config.topic(), e);
      }
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static Duration remaining(long deadline) {
    return Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
  }
}
