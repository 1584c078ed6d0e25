package io.reshard.core.position;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How far capture of one source shard has published, stored in the offsets topic in the same Kafka
 * transaction as the records it covers, and carried by every heartbeat record.
 *
 * <p>A resumed capture connects at {@link #gtids()} (exclusive: the stream starts with the next
 * transaction). If that transaction is {@link #transaction()}, its first {@link #rowsPublished()}
 * row changes are already in the topic (a large source transaction is published in several Kafka
 * transactions) and are skipped, as is its BEGIN record.
 *
 * <p>JSON ({@link #toJson()}): {@code {"gtids":"1-1-41","txn":"1-1-42","rows":1500,
 * "table_rows":{"ks.t":1500},"file":"mariadb-bin.000003","pos":123456,"ts_ms":1700000000000}}; the
 * last four keys are informational, {@code txn}, {@code rows} and {@code table_rows} are absent
 * between transactions.
 *
 * @param gtids every source transaction completely published
 * @param transaction the GTID of the source transaction being published, or null between
 *     transactions
 * @param rowsPublished row changes of {@code transaction} already published (0 if none)
 * @param tableRows per {@code db.table}, how many of those row changes were of that table (to
 *     continue Debezium's {@code data_collection_order}); empty if none
 * @param binlogFile the binlog file of the last event covered
 * @param binlogPosition the end position of that event in its file
 * @param timestampMillis the source commit time of the last event covered, epoch milliseconds
 */
public record CapturePosition(
    GtidPosition gtids,
    String transaction,
    long rowsPublished,
    Map<String, Long> tableRows,
    String binlogFile,
    long binlogPosition,
    long timestampMillis) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Validates and copies. */
  public CapturePosition {
    Objects.requireNonNull(gtids, "gtids");
    tableRows = tableRows == null ? Map.of() : Map.copyOf(tableRows);
    if (transaction == null && rowsPublished != 0) {
      throw new IllegalArgumentException("rows published without a transaction");
    }
  }

  /** A position between transactions at {@code gtids}, with no binlog coordinates. */
  public static CapturePosition at(GtidPosition gtids) {
    return new CapturePosition(gtids, null, 0, Map.of(), null, 0, 0);
  }

  /** True if part of a source transaction is published. */
  public boolean insideTransaction() {
    return transaction != null && rowsPublished > 0;
  }

  /** The JSON object form (see the class comment). */
  public ObjectNode toJsonNode() {
    ObjectNode n = JSON.createObjectNode();
    n.put("gtids", gtids.toString());
    if (transaction != null) {
      n.put("txn", transaction);
      n.put("rows", rowsPublished);
      ObjectNode counts = n.putObject("table_rows");
      tableRows.forEach(counts::put);
    }
    if (binlogFile != null) {
      n.put("file", binlogFile);
      n.put("pos", binlogPosition);
    }
    n.put("ts_ms", timestampMillis);
    return n;
  }

  /** The JSON text form, UTF-8. */
  public byte[] toJson() {
    try {
      return JSON.writeValueAsBytes(toJsonNode());
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a position always serializes", e);
    }
  }

  /**
   * Parses the JSON form.
   *
   * @throws IllegalArgumentException if it is not a position
   */
  public static CapturePosition fromJson(byte[] json) {
    try {
      return fromJsonNode(JSON.readTree(json));
    } catch (IOException e) {
      throw new IllegalArgumentException("not a capture position: " + e.getMessage(), e);
    }
  }

  /**
   * Parses the JSON object form.
   *
   * @throws IllegalArgumentException if it is not a position
   */
  public static CapturePosition fromJsonNode(JsonNode n) {
    if (n == null || !n.hasNonNull("gtids")) {
      throw new IllegalArgumentException("not a capture position (no gtids): " + n);
    }
    Map<String, Long> counts = new LinkedHashMap<>();
    JsonNode tr = n.get("table_rows");
    if (tr != null) {
      for (Iterator<Map.Entry<String, JsonNode>> it = tr.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        counts.put(e.getKey(), e.getValue().asLong());
      }
    }
    return new CapturePosition(
        GtidPosition.parse(n.get("gtids").asText()),
        n.hasNonNull("txn") ? n.get("txn").asText() : null,
        n.path("rows").asLong(0),
        counts,
        n.hasNonNull("file") ? n.get("file").asText() : null,
        n.path("pos").asLong(0),
        n.path("ts_ms").asLong(0));
  }

  @Override
  public String toString() {
    return new String(toJson(), java.nio.charset.StandardCharsets.UTF_8);
  }
}
