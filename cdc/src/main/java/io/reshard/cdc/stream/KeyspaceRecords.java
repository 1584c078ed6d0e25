package io.reshard.cdc.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.cdc.ChangeRecord;
import io.reshard.cdc.ChangeRecords;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.core.placement.ShardingKey;
import io.reshard.core.schema.TableRefusedException;
import io.reshard.core.schema.TableSchema;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.UnmappableValueException;
import io.reshard.router.VSchema;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one source transaction read from a shard's change topic into the keyspace topic's records
 * (DESIGN 4.10): each row change of the keyspace's sharded tables goes, unchanged (key, envelope
 * and headers), to the partition of its keyspace id; an update that changes the primary key, or
 * whose before and after images fall in different partitions, becomes a delete of the old row (in
 * its partition) and a create of the new one (in its), as Debezium's connectors write a key change.
 * A transaction that wrote reshard's own progress rows ({@code _reshard.streams}, {@code
 * copy_state}, {@code diff_state}) is the copy's, a stream's or a diff repair's, never the
 * application's, and gives nothing. Not thread-safe.
 */
public final class KeyspaceRecords {
  private static final Logger LOG = LoggerFactory.getLogger(KeyspaceRecords.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Set<String> PROGRESS_TABLES = Set.of("streams", "copy_state", "diff_state");

  private final String keyspace;
  private final String topic;
  private final KeyspacePartitions partitions;
  private final KeyspaceStreamConfig.Format format;
  private final Map<String, Placed> keys = new HashMap<>();
  private final Set<String> leftOut = new java.util.HashSet<>();
  private VSchema vschema;

  /**
   * @param keyspace the keyspace (its database on every shard)
   * @param topic the keyspace topic
   * @param partitions its partitions
   * @param format the records' form
   */
  public KeyspaceRecords(
      String keyspace,
      String topic,
      KeyspacePartitions partitions,
      KeyspaceStreamConfig.Format format) {
    this.keyspace = keyspace;
    this.topic = topic;
    this.partitions = partitions;
    this.format = format;
  }

  /** Places rows by {@code v} from now on. */
  public void vschema(VSchema v) {
    if (v != vschema) {
      vschema = v;
      keys.clear();
    }
  }

  /** True if the transaction's records include a write of reshard's own progress rows. */
  public static boolean writtenByReshard(List<ChangeRecord> records) {
    for (ChangeRecord r : records) {
      if ("_reshard".equals(r.database()) && PROGRESS_TABLES.contains(r.table())) {
        return true;
      }
    }
    return false;
  }

  /**
   * The keyspace topic's records for one application transaction of shard {@code shard}.
   *
   * @param parsed the transaction's row changes, parsed
   * @param raw the same records as read, in the same order
   */
  public List<ProducerRecord<byte[], byte[]>> of(
      String shard, List<ChangeRecord> parsed, List<ConsumerRecord<byte[], byte[]>> raw) {
    List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
    for (int i = 0; i < parsed.size(); i++) {
      ChangeRecord r = parsed.get(i);
      if (!keyspace.equals(r.database()) || r.table() == null) {
        continue; // _reshard's fence rows and other databases
      }
      if ("t".equals(r.op())) {
        truncate(shard, r, raw.get(i), out);
        continue;
      }
      ShardingKey key = key(r);
      if (key == null) {
        continue;
      }
      Integer before = r.before() == null ? null : partition(key, r, r.before());
      Integer after = r.after() == null ? null : partition(key, r, r.after());
      ConsumerRecord<byte[], byte[]> in = raw.get(i);
      if (before != null && after != null && (!before.equals(after) || keyChanged(r))) {
        out.add(split(in, before, "d", r));
        out.add(split(in, after, "c", r));
      } else {
        int p = after != null ? after : before;
        out.add(record(p, in.key(), in.value(), r.value(), r, in.headers()));
      }
    }
    return out;
  }

  /**
   * True if an update changed the row's primary key: as Debezium's connectors do, it is a delete of
   * the old key and a create of the new one (a sink keyed by the primary key would otherwise keep
   * the old row).
   */
  private static boolean keyChanged(ChangeRecord r) {
    if (r.key() == null) {
      return false;
    }
    JsonNode before = r.value().get("before");
    JsonNode after = r.value().get("after");
    for (String column : r.key().keySet()) {
      if (before == null || after == null || !before.path(column).equals(after.path(column))) {
        return true;
      }
    }
    return false;
  }

  /** A truncate empties the table's rows of one shard: every partition of that shard's range. */
  private void truncate(
      String shard,
      ChangeRecord r,
      ConsumerRecord<byte[], byte[]> in,
      List<ProducerRecord<byte[], byte[]>> out) {
    KeyRange range = KeyRange.parse(shard);
    for (int p = 0; p < partitions.count(); p++) {
      if (range.intersects(partitionRange(p))) {
        out.add(record(p, in.key(), in.value(), r.value(), r, in.headers()));
      }
    }
  }

  private KeyRange partitionRange(int p) {
    String start = p == 0 ? "" : boundary(p);
    String end = p == partitions.count() - 1 ? "" : boundary(p + 1);
    return KeyRange.parse(start + "-" + end);
  }

  /** The smallest 4-byte keyspace id of partition {@code p}, in hex. */
  private String boundary(int p) {
    long k = ((long) p << 32) / partitions.count();
    while (((k * partitions.count()) >>> 32) < p) {
      k++;
    }
    String hex = String.format("%08x", k);
    while (hex.length() > 2 && hex.endsWith("00")) {
      hex = hex.substring(0, hex.length() - 2);
    }
    return hex;
  }

  private ShardingKey key(ChangeRecord r) {
    if (vschema == null || r.schema() == null) {
      return null;
    }
    TableSchema schema = r.schema();
    Placed placed = keys.get(r.table());
    if (placed != null && placed.schema() == schema) {
      return placed.key();
    }
    if (vschema.table(r.table()).isEmpty()) {
      if (leftOut.add(r.table())) {
        LOG.info(
            "keyspace stream {}: table {} is not in the vschema; its changes are left out",
            topic,
            r.table());
      }
      return null;
    }
    try {
      ShardingKey k = ShardingKey.of(vschema, schema);
      keys.put(r.table(), new Placed(schema, k));
      return k;
    } catch (TableRefusedException e) {
      if (leftOut.add(r.table())) {
        LOG.warn("keyspace stream {}: changes of {} are left out: {}", topic, r.table(), e);
      }
      return null;
    }
  }

  /** A table's sharding key, for the schema it was made from. */
  private record Placed(TableSchema schema, ShardingKey key) {}

  private int partition(ShardingKey key, ChangeRecord r, Map<String, Object> image) {
    try {
      KeyspaceId ksid = key.keyspaceIdOf(image);
      return partitions.of(ksid);
    } catch (UnmappableValueException e) {
      // a row no router could have placed: it stays visible, in partition 0, and the log says so
      LOG.warn(
          "keyspace stream {}: {} offset {}: {}; written to partition 0",
          topic,
          r.table(),
          r.offset(),
          e.getMessage());
      return 0;
    }
  }

  /** One side of an update that moves a row to another partition: its delete, or its create. */
  private ProducerRecord<byte[], byte[]> split(
      ConsumerRecord<byte[], byte[]> in, int partition, String op, ChangeRecord r) {
    ObjectNode value = ((ObjectNode) r.value()).deepCopy();
    value.put("op", op);
    byte[] key = in.key();
    if ("d".equals(op)) {
      value.putNull("after");
      value.remove("after_raw");
      key = keyOf(r, value.get("before"), in.key());
    } else {
      value.putNull("before");
      value.remove("before_raw");
    }
    return record(
        partition, key, value.toString().getBytes(StandardCharsets.UTF_8), value, r, in.headers());
  }

  /** The delete's key: the primary key's values of the before image, in the key's own order. */
  private static byte[] keyOf(ChangeRecord r, JsonNode before, byte[] afterKey) {
    if (afterKey == null || before == null || r.key() == null) {
      return afterKey;
    }
    ObjectNode key = JSON.createObjectNode();
    for (String column : r.key().keySet()) {
      key.set(column, before.get(column));
    }
    return key.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** One record of the keyspace topic, in the stream's form. */
  private ProducerRecord<byte[], byte[]> record(
      int partition, byte[] key, byte[] value, JsonNode valueJson, ChangeRecord r, Headers in) {
    if (format == KeyspaceStreamConfig.Format.ENVELOPE) {
      return new ProducerRecord<>(
          topic, partition, null, key, value, new RecordHeaders(in.toArray()));
    }
    ConnectJson.Converted c = ConnectJson.of(key, valueJson, r.schema());
    Headers headers = new RecordHeaders(in.toArray());
    headers.remove(ChangeRecords.SCHEMA_HEADER); // the schema is in the record; a header would not
    // be read by Connect's default header converter
    return new ProducerRecord<>(topic, partition, null, c.key(), c.value(), headers);
  }
}
