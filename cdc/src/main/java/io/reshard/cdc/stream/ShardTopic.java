package io.reshard.cdc.stream;

import io.reshard.cdc.ChangeRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * One shard's change topic as the keyspace stream reads it: the records polled and not yet taken,
 * the source transaction being gathered (a transaction enters the keyspace topic whole, so it is
 * held until its END), the offset up to which everything is taken (what the stream commits), and
 * the {@link ShardProgress}. Mutable; one loop thread.
 */
public final class ShardTopic {
  final String shard;
  final TopicPartition partition;
  final Deque<ConsumerRecord<byte[], byte[]>> polled = new ArrayDeque<>();
  ShardProgress progress;

  /** The next offset after everything taken: no transaction of it is held. */
  long committable;

  /** The transaction being gathered, or null. */
  Open open;

  /** A source transaction being gathered, with the verdict taken at its BEGIN. */
  static final class Open {
    final String gtid;
    final boolean owned;
    final List<ChangeRecord> parsed = new ArrayList<>();
    final List<ConsumerRecord<byte[], byte[]>> raw = new ArrayList<>();

    Open(String gtid, boolean owned) {
      this.gtid = gtid;
      this.owned = owned;
    }
  }

  ShardTopic(String shard, String topic, long committed, ShardProgress progress) {
    this.shard = shard;
    this.partition = new TopicPartition(topic, 0);
    this.committable = committed;
    this.progress = progress;
  }

  /** The shard's name. */
  public String shard() {
    return shard;
  }

  /** How far the stream has read this shard. */
  public ShardProgress progress() {
    return progress;
  }
}
