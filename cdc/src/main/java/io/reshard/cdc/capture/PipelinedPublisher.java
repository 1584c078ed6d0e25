package io.reshard.cdc.capture;

import io.reshard.cdc.CaptureListener;
import io.reshard.cdc.CdcException;
import io.reshard.cdc.RecordKind;
import io.reshard.core.position.CapturePosition;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Capture's Kafka side on a thread of its own: the engine thread collects a batch's records and
 * hands the whole batch, with the position it reaches, to the publisher thread, which sends it in
 * one Kafka transaction and commits it ({@link KafkaPublisher}) while the engine thread already
 * encodes the next batch.
 *
 * <p><b>Why.</b> {@code commitTransaction} blocks until the batch is acknowledged and the
 * transaction's markers are written: about 5 ms per batch on the benchmark's broker, measured as
 * 5.5 s of a 12 s run of 1,000 batches, during which a single-threaded capture encoded nothing.
 *
 * <p><b>What stays as it was.</b> Batches are published strictly in the order they were handed
 * over, each in its own Kafka transaction holding its records and its position, so the topic and
 * the offsets topic still change together, batch by batch (the exactly-once argument does not
 * depend on which thread calls Kafka). At most {@link #MAX_QUEUED} batches wait for the publisher
 * thread, so memory stays bounded by a few times {@code batch.max.bytes} and a slow Kafka slows the
 * engine thread, which slows the binlog reader.
 *
 * <p><b>Group commit.</b> A batch handed over while another still waits for the publisher thread
 * joins the waiting one, as long as the two together stay within {@code batch.max.rows} and {@code
 * batch.max.bytes}: one Kafka transaction with the records of both, in order, and the later
 * position. That is what one larger batch would have been, so nothing changes for exactly-once or
 * resume; but while a commit is slow, the small transactions of a busy source (each handed over at
 * once when the binlog goes quiet) no longer queue one commit each behind it. A switch's catch-up
 * waits for the last of them. A failure on the publisher thread (fenced, Kafka unreachable, a
 * listener that threw) is kept, nothing after it is published, its open transaction is aborted, and
 * the engine thread gets the same exception from its next call.
 *
 * <p>{@link CaptureListener#beforeCommit} and {@link CaptureListener#afterCommit} run on the
 * publisher thread, once per batch, in order: the first after every record of the batch was sent,
 * the second once the commit returned.
 *
 * <p>Every method but {@link #close} is for the engine thread only.
 */
final class PipelinedPublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PipelinedPublisher.class);

  /** Batches handed over and not yet committed, at most: one being published, one waiting. */
  static final int MAX_QUEUED = 2;

  /** How long {@link #close} waits for the batches already handed over before giving up (s). */
  static final long CLOSE_WAIT_SECONDS = 10;

  /**
   * A batch handed over: its records in order, the position it reaches, its row changes and bytes.
   */
  private record Batch(List<OutRecord> records, CapturePosition position, int rows, long bytes) {
    /** This batch followed by {@code next}, in one: {@code next}'s position. */
    Batch then(Batch next) {
      List<OutRecord> all = new ArrayList<>(records.size() + next.records.size());
      all.addAll(records);
      all.addAll(next.records);
      return new Batch(all, next.position, rows + next.rows, bytes + next.bytes);
    }
  }

  private final KafkaPublisher kafka;
  private final CaptureListener listener;
  private final int maxRows;
  private final long maxBytes;
  private final Thread thread;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // guarded by lock
  private final ArrayDeque<Batch> queue = new ArrayDeque<>();
  private boolean publishing;
  private boolean closing;
  private volatile RuntimeException failure;

  // the batch being collected: engine thread only
  private List<OutRecord> records = new ArrayList<>();
  private boolean open;
  private int batchRows;
  private long batchBytes;
  private long batchStartNanos;

  /**
   * Starts the publisher thread.
   *
   * @param kafka the producer side; from now on used by the publisher thread only, and closed by it
   * @param name the thread's name
   * @param maxRows most row changes of batches joined into one ({@code batch.max.rows})
   * @param maxBytes most bytes of batches joined into one ({@code batch.max.bytes})
   */
  PipelinedPublisher(
      KafkaPublisher kafka, CaptureListener listener, String name, int maxRows, long maxBytes) {
    this.kafka = kafka;
    this.listener = listener;
    this.maxRows = maxRows;
    this.maxBytes = maxBytes;
    this.thread = new Thread(this::publishLoop, name);
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Checks that a record fits the topic, without adding it.
   *
   * @throws io.reshard.cdc.UnsupportedChangeException if it is larger than the topic accepts,
   *     naming the change and the settings to raise
   */
  void checkSize(OutRecord r) {
    kafka.checkSize(r);
  }

  /**
   * Adds a record to the batch being collected.
   *
   * @throws io.reshard.cdc.UnsupportedChangeException if the record is larger than the topic
   *     accepts
   * @throws RuntimeException the publisher thread's failure, if it failed
   */
  void send(OutRecord r) {
    throwIfFailed();
    kafka.checkSize(r);
    if (!open) {
      open = true;
      batchStartNanos = System.nanoTime();
    }
    records.add(r);
    batchRows += r.kind() == RecordKind.DATA ? 1 : 0;
    batchBytes += r.sizeBytes();
  }

  /**
   * Hands the batch being collected over with {@code position} (a batch with no record stores the
   * position alone): it joins the batch still waiting for the publisher thread if the two fit in
   * one (group commit), else it waits while {@link #MAX_QUEUED} batches are still being published.
   * The commit itself happens later on the publisher thread; {@link #flush} waits for it.
   *
   * @return the row changes in the batch
   * @throws RuntimeException the publisher thread's failure, if it failed
   * @throws CdcException.Retriable if interrupted while waiting for room
   */
  int commit(CapturePosition position) {
    Batch b = new Batch(records, position, batchRows, batchBytes);
    lock.lock();
    try {
      while (failure == null) {
        Batch waiting = queue.peekLast();
        if (waiting != null && fitsWith(waiting, b)) {
          queue.pollLast();
          queue.add(waiting.then(b));
          break;
        }
        if (queue.size() + (publishing ? 1 : 0) < MAX_QUEUED) {
          queue.add(b);
          break;
        }
        awaitChange();
      }
      throwIfFailed();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    records = new ArrayList<>(Math.max(16, records.size()));
    open = false;
    batchRows = 0;
    batchBytes = 0;
    return b.rows();
  }

  /** True if {@code waiting} and {@code next} together stay within the batch limits. */
  private boolean fitsWith(Batch waiting, Batch next) {
    return waiting.rows() + next.rows() <= maxRows && waiting.bytes() + next.bytes() <= maxBytes;
  }

  /**
   * Waits until every batch handed over is committed.
   *
   * @throws RuntimeException the publisher thread's failure, if it failed
   */
  void flush() {
    lock.lock();
    try {
      while ((publishing || !queue.isEmpty()) && failure == null) {
        awaitChange();
      }
    } finally {
      lock.unlock();
    }
    throwIfFailed();
  }

  /** Waits on {@link #changed} (lock held); an interrupt ends the session as a retriable error. */
  private void awaitChange() {
    try {
      changed.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CdcException.Retriable("interrupted while waiting for the Kafka publisher", e);
    }
  }

  /** Throws the publisher thread's failure, if it failed. A volatile read otherwise. */
  void throwIfFailed() {
    RuntimeException f = failure;
    if (f != null) {
      throw f;
    }
  }

  /** True if records were collected since the last {@link #commit}. */
  boolean hasOpenBatch() {
    return open;
  }

  /** The row changes collected since the last {@link #commit}. */
  int batchRows() {
    return batchRows;
  }

  /** The encoded bytes collected since the last {@link #commit}. */
  long batchBytes() {
    return batchBytes;
  }

  /** Nanoseconds since the first record collected after the last {@link #commit}; 0 if none. */
  long batchAgeNanos() {
    return open ? System.nanoTime() - batchStartNanos : 0;
  }

  /**
   * Drops the batch being collected, lets the publisher thread commit the batches already handed
   * over (each is complete, with its position), then aborts any open transaction and closes the
   * producer. If that takes longer than {@value #CLOSE_WAIT_SECONDS} s (Kafka unreachable), the
   * producer is closed at once and what was not committed is lost, which a restart publishes again.
   */
  @Override
  public void close() {
    records = new ArrayList<>();
    open = false;
    signalAfter(() -> closing = true);
    boolean interrupted = false;
    try {
      thread.join(TimeUnit.SECONDS.toMillis(CLOSE_WAIT_SECONDS));
    } catch (InterruptedException e) {
      interrupted = true;
    }
    if (thread.isAlive()) {
      LOG.warn(
          "{}: the publisher did not finish in {} s; closing the producer at once",
          thread.getName(),
          CLOSE_WAIT_SECONDS);
      kafka.forceClose();
      thread.interrupt();
      try {
        thread.join(TimeUnit.SECONDS.toMillis(5));
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void publishLoop() {
    try {
      Batch b;
      while ((b = next()) != null) {
        try {
          if (failure == null) {
            publish(b);
          }
        } catch (RuntimeException e) {
          failure = e; // waiters see it when signalled below
          kafka.abort();
        } finally {
          signalAfter(() -> publishing = false);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      kafka.close();
    }
  }

  /** Makes {@code change} under the lock and wakes every waiter. */
  private void signalAfter(Runnable change) {
    lock.lock();
    try {
      change.run();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The next batch to publish, or null once closing and nothing is left. */
  private Batch next() throws InterruptedException {
    lock.lock();
    try {
      while (queue.isEmpty() && !closing) {
        changed.await();
      }
      Batch b = queue.poll();
      publishing = b != null;
      return b;
    } finally {
      lock.unlock();
    }
  }

  private void publish(Batch b) {
    for (OutRecord r : b.records()) {
      kafka.send(r);
    }
    listener.beforeCommit(b.position(), b.rows());
    kafka.commit(b.position());
    listener.afterCommit(b.position(), b.rows());
  }
}
