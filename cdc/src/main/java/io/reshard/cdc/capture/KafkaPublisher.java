package io.reshard.cdc.capture;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureFencedException;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.RecordKind;
import io.reshard.cdc.UnsupportedChangeException;
import io.reshard.core.position.CapturePosition;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The transactional producer of one source shard. Records are sent into an open Kafka transaction
 * (begun with the first record of a batch); {@link #commit} adds the position reached to the
 * offsets topic and commits both in one transaction, so the topic never holds records whose
 * position is not stored, nor a position ahead of its records.
 *
 * <p>{@code transactional.id} is fixed per shard: constructing a publisher calls {@code
 * initTransactions}, which fences any older producer with the same id and aborts its open
 * transaction. The fenced producer's next call fails with {@link CaptureFencedException}.
 *
 * <p>Used by one thread at a time ({@link PipelinedPublisher}'s publisher thread); not thread-safe.
 */
final class KafkaPublisher implements AutoCloseable {
  /** Kafka's default {@code transaction.timeout.ms}. */
  private static final String DEFAULT_TRANSACTION_TIMEOUT = "60000";

  /**
   * The producer's {@code batch.size} unless overridden: 256 KiB instead of Kafka's 16 KiB. Capture
   * sends up to 5,000 small records per transaction as fast as it can encode them; bigger batches
   * mean fewer requests and fewer lz4 frames (each with a 64 KiB block buffer), measured ~10 % of
   * capture's CPU at 16 KiB.
   */
  static final String DEFAULT_BATCH_SIZE = Integer.toString(256 * 1024);

  private final CaptureConfig config;
  private final String changeTopic;
  private final String offsetsTopic;
  private final KafkaProducer<byte[], byte[]> producer;
  private final byte[] offsetsKey;
  private final RecordLimits limits;
  private final long transactionTimeoutNanos;
  private final AtomicReference<Exception> sendFailure = new AtomicReference<>();
  private boolean open;
  private long batchStartNanos;

  /** Kafka's default {@code buffer.memory}, the least capture gives its producer. */
  static final long DEFAULT_BUFFER_MEMORY = 32L * 1024 * 1024;

  /**
   * Unless set with {@code kafka.producer.*}, the producer's {@code max.request.size} is the larger
   * of {@code recordBytes} and the topic's {@code max.message.bytes}, and its {@code buffer.memory}
   * at least that (Kafka's defaults, 1 MiB and 32 MiB, would refuse records the topic accepts).
   *
   * @param recordBytes the largest record capture is sized for
   * @param topic the change topic's and the brokers' limits
   * @throws CdcException fenced, retriable (broker unreachable) or not (authorization)
   */
  KafkaPublisher(
      CaptureConfig config, byte[] offsetsKey, int recordBytes, KafkaTopics.Limits topic) {
    this.config = config;
    this.changeTopic = config.changeTopic();
    this.offsetsTopic = config.offsetsTopic();
    this.offsetsKey = offsetsKey;
    Properties p = new Properties();
    p.putAll(config.producerOverrides());
    p.putIfAbsent(
        ProducerConfig.MAX_REQUEST_SIZE_CONFIG,
        Long.toString(Math.min(Integer.MAX_VALUE, Math.max(recordBytes, topic.maxMessageBytes()))));
    p.putIfAbsent(
        ProducerConfig.BUFFER_MEMORY_CONFIG,
        Long.toString(
            Math.max(
                DEFAULT_BUFFER_MEMORY,
                Long.parseLong(p.getProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)))));
    p.putIfAbsent(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, DEFAULT_BATCH_SIZE);
    // tiny back-to-back transactions wait out CONCURRENT_TRANSACTIONS retries: keep them short
    p.putIfAbsent(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10");
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, config.transactionalId());
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    this.limits =
        RecordLimits.of(
            config,
            Long.parseLong(p.getProperty(ProducerConfig.MAX_REQUEST_SIZE_CONFIG)),
            Long.parseLong(p.getProperty(ProducerConfig.BUFFER_MEMORY_CONFIG)),
            topic);
    this.transactionTimeoutNanos =
        java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
            Long.parseLong(
                p.getProperty(
                    ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, DEFAULT_TRANSACTION_TIMEOUT)));
    this.producer = new KafkaProducer<>(p);
    try {
      producer.initTransactions();
    } catch (RuntimeException e) {
      producer.close(Duration.ZERO);
      throw translate(e, "initialising the transactional producer");
    }
  }

  /**
   * Checks that a record fits the topic; called before it is queued, so that a record too large is
   * refused on the engine thread, naming it, before anything after it is published.
   *
   * @throws UnsupportedChangeException if the record is larger than the topic accepts
   */
  void checkSize(OutRecord r) {
    long size = r.sizeBytes();
    if (size > limits.maxRecordBytes()) {
      throw new UnsupportedChangeException(
          "the change of "
              + r.describe()
              + " is "
              + size
              + " bytes encoded, more than the "
              + limits.maxRecordBytes()
              + " bytes capture can publish to "
              + config.changeTopic()
              + ": "
              + limits.exceeded(size)
              + "; then start capture again (it publishes this change and the rest of its"
              + " transaction once)");
    }
  }

  /** The limits records are checked against, for the start-up log. */
  RecordLimits limits() {
    return limits;
  }

  /**
   * Sends one record into the open Kafka transaction, beginning one if needed. Its size was checked
   * with {@link #checkSize} before it was queued.
   */
  void send(OutRecord r) {
    begin();
    ProducerRecord<byte[], byte[]> record =
        new ProducerRecord<>(changeTopic, 0, r.key(), r.value());
    record.headers().add(ChangeRecords.KIND_HEADER, KIND_BYTES[r.kind().ordinal()]);
    if (r.schema() != null) {
      record.headers().add(ChangeRecords.SCHEMA_HEADER, r.schema());
    }
    try {
      producer.send(
          record,
          (meta, e) -> {
            if (e != null) {
              sendFailure.compareAndSet(null, e);
            }
          });
    } catch (RuntimeException e) {
      throw translate(e, "sending " + r.describe());
    }
  }

  /**
   * Writes {@code position} to the offsets topic and commits the open transaction (beginning one if
   * nothing was sent, so a position alone can be stored).
   */
  void commit(CapturePosition position) {
    begin();
    try {
      producer.send(new ProducerRecord<>(offsetsTopic, 0, offsetsKey, position.toJson()));
      producer.commitTransaction();
    } catch (RuntimeException e) {
      throw translate(e, "committing up to " + position);
    }
    Exception failed = sendFailure.getAndSet(null);
    if (failed != null) {
      throw translate(failed, "a send before the commit");
    }
    open = false;
  }

  /** Aborts the open transaction, if any; best effort (used on the way out of a failure). */
  void abort() {
    if (open) {
      open = false;
      try {
        producer.abortTransaction();
      } catch (RuntimeException ignored) {
        // fenced or broken: the coordinator aborts it when the next producer initialises
      }
    }
  }

  private long batchAgeNanos() {
    return open ? System.nanoTime() - batchStartNanos : 0;
  }

  /**
   * Closes the producer at once, making a call blocked in it fail; for a publisher thread that does
   * not end in time. Safe from any thread.
   */
  void forceClose() {
    producer.close(Duration.ZERO);
  }

  @Override
  public void close() {
    abort();
    producer.close(Duration.ofSeconds(5));
  }

  private void begin() {
    if (!open) {
      try {
        producer.beginTransaction();
      } catch (RuntimeException e) {
        throw translate(e, "beginning a Kafka transaction");
      }
      open = true;
      batchStartNanos = System.nanoTime();
    }
  }

  /** Maps a Kafka error to fenced, fatal or retriable. */
  private CdcException translate(Exception e, String doing) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidProducerEpochException
          && batchAgeNanos() >= transactionTimeoutNanos) {
        // the coordinator aborted a transaction open longer than transaction.timeout.ms
        return new CdcException.Retriable(
            "Kafka aborted a transaction open longer than transaction.timeout.ms while " + doing,
            e);
      }
      if (t instanceof ProducerFencedException || t instanceof InvalidProducerEpochException) {
        // a newer producer with the same transactional.id: with Kafka 4 transactions this
        // arrives as InvalidProducerEpochException (measured), before as ProducerFencedException
        return new CaptureFencedException(config.transactionalId(), e);
      }
      if (t instanceof AuthorizationException
          || t instanceof TransactionalIdAuthorizationException) {
        return new CdcException(
            "Kafka refused "
                + doing
                + " for transactional.id "
                + config.transactionalId()
                + ": "
                + t.getMessage()
                + "; grant the capture principal write access to "
                + config.changeTopic()
                + " and "
                + config.offsetsTopic(),
            false,
            e);
      }
      if (t instanceof RecordTooLargeException) {
        return new UnsupportedChangeException(
            "Kafka refused a record as too large while "
                + doing
                + ": "
                + t.getMessage()
                + "; capture's limits are "
                + limits.describe()
                + "; raise the smallest ones (see docs/cdc-capture.md, Limits)");
      }
    }
    String message = e instanceof KafkaException ? e.getMessage() : e.toString();
    return new CdcException.Retriable("Kafka failed while " + doing + ": " + message, e);
  }

  /** The kind header's value of each {@link RecordKind}, by ordinal (headers copy nothing). */
  private static final byte[][] KIND_BYTES =
      java.util.Arrays.stream(RecordKind.values())
          .map(k -> k.headerValue().getBytes(StandardCharsets.UTF_8))
          .toArray(byte[][]::new);
}
