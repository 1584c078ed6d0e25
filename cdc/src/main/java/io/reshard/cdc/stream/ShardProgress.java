package io.reshard.cdc.stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.reshard.core.position.GtidPosition;
import java.io.IOException;

/**
 * How far the keyspace stream has read one shard's change topic: the position its heartbeats and
 * transactions reached and the last transaction it read. Kept in the consumer offset's metadata,
 * committed in the same Kafka transaction as what the stream wrote, so that a restart knows which
 * hand-overs it has already passed. Mutable; one loop thread.
 */
public final class ShardProgress {
  private static final ObjectMapper JSON = new ObjectMapper();
  // the broker's default offset.metadata.max.bytes is 4096; a longer MySQL GTID set is left out
  // (the last transaction alone says which positions were passed, once one was read)
  private static final int MAX_REACHED_CHARS = 3000;

  private GtidPosition reached = GtidPosition.EMPTY;
  private String lastGtid;

  /** Read past {@code gtid}'s transaction. */
  public void read(String gtid) {
    lastGtid = gtid;
    if (!reached.contains(gtid)) {
      reached = reached.with(gtid);
    }
  }

  /** Read past a heartbeat or gap that says capture reached {@code position}. */
  public void reached(GtidPosition position) {
    if (position.covers(reached)) {
      reached = position;
    }
  }

  /**
   * True once everything of the topic up to {@code position} has been read: the reached position
   * covers it, or the topic's last transaction read comes after it.
   */
  public boolean passed(GtidPosition position) {
    return reached.covers(position) || (lastGtid != null && !position.contains(lastGtid));
  }

  /** The offset metadata that stores this progress. */
  public String toMetadata() {
    ObjectNode n = JSON.createObjectNode();
    if (lastGtid != null) {
      n.put("last", lastGtid);
    }
    String r = reached.toString();
    if (r.length() <= MAX_REACHED_CHARS) {
      n.put("reached", r);
    }
    return n.toString();
  }

  /** The progress stored in {@code metadata}; none for null or empty. */
  public static ShardProgress fromMetadata(String metadata) {
    ShardProgress p = new ShardProgress();
    if (metadata == null || metadata.isBlank()) {
      return p;
    }
    try {
      JsonNode n = JSON.readTree(metadata);
      if (n.hasNonNull("last")) {
        p.lastGtid = n.get("last").asText();
      }
      if (n.hasNonNull("reached") && !n.get("reached").asText().isEmpty()) {
        p.reached = GtidPosition.parse(n.get("reached").asText());
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalStateException(
          "the keyspace stream's stored progress is not readable: " + metadata, e);
    }
    return p;
  }

  @Override
  public String toString() {
    return "reached " + reached + (lastGtid == null ? "" : ", last " + lastGtid);
  }
}
