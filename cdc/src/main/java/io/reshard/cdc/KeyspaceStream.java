package io.reshard.cdc;

import io.reshard.cdc.stream.StreamLoop;
import io.reshard.router.VSchema;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The keyspace change stream (DESIGN 4.10, docs/keyspace-stream.md): one topic per keyspace, {@code
 * <prefix>.<keyspace>}, into which every committed application transaction of every shard enters
 * once, atomically, each row in the partition of its keyspace id and, across every reshard, in
 * commit order: the old owner's changes up to the hand-over, then the new owner's. Rows written by
 * the copy, the streams and diff repairs never enter.
 *
 * <p>{@link #run} runs the consume-transform-produce loop in the caller's thread until {@link
 * #stop}, and ends with the exception of any failure (Kafka down, another stream of the keyspace
 * fencing this one, a record it cannot read); a new stream then goes on exactly from what the last
 * one committed. A keyspace must have one stream at a time: a second one fences the first ({@link
 * org.apache.kafka.common.errors.ProducerFencedException}).
 */
public final class KeyspaceStream {
  private final StreamLoop loop;

  /**
   * @param config where it reads and writes
   * @param handOvers the keyspace's hand-overs of write ownership, from the workflow journal
   * @param vschema the keyspace's newest vschema, empty while it has none (nothing is taken then)
   */
  public KeyspaceStream(
      KeyspaceStreamConfig config, HandOverLog handOvers, Supplier<Optional<VSchema>> vschema) {
    this.loop = new StreamLoop(config, handOvers, vschema);
  }

  /**
   * Runs the loop until {@link #stop}.
   *
   * @throws Exception whatever ended it
   */
  public void run() throws Exception {
    loop.run();
  }

  /** Ends {@link #run} after its current iteration. */
  public void stop() {
    loop.stop();
  }

  /** Row changes this stream wrote to the keyspace topic. */
  public long recordsWritten() {
    return loop.recordsWritten();
  }

  /** Application transactions this stream wrote. */
  public long transactionsWritten() {
    return loop.transactionsWritten();
  }

  /** Transactions read and left out (reshard's own writes, or a shard that did not own writes). */
  public long transactionsLeftOut() {
    return loop.transactionsLeftOut();
  }

  /** The keyspace topic's partition count, 0 until the stream has found it. */
  public int partitionCount() {
    return loop.partitionCount();
  }

  /** Per shard, how far this stream has read its topic. */
  public Map<String, String> progress() {
    return loop.progress();
  }
}
