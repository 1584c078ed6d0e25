package io.reshard.cdc;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One move of write ownership, as a workflow's journal records it (DESIGN 4.8, 4.10): the shards
 * that gave up writes and the position of each at which they did, and the shards that took them and
 * the position of each before it took its first write. A write switch gives from the sources at G
 * to the targets at their positions before they opened; a reverse traffic gives from the targets at
 * theirs to the sources.
 *
 * <p>The {@code to} side is recorded after the {@code from} side, and before any shard of it takes
 * a write; until then it is empty. The keyspace change stream reads a shard's changes only while
 * the shard owns writes, and a taker's only once every giver's changes up to its position are in
 * the stream. Immutable.
 *
 * @param at when the giving side was recorded; orders the hand-overs a shard took part in
 * @param from per giving shard, its GTID position when it gave up writes
 * @param to per taking shard, its GTID position just before it took writes; empty until recorded
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record HandOver(
    @JsonProperty("at") Instant at,
    @JsonProperty("from") Map<String, String> from,
    @JsonProperty("to") Map<String, String> to) {

  /** Checks the fields. */
  @JsonCreator
  public HandOver {
    Objects.requireNonNull(at, "at");
    from = from == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(from));
    to = to == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(to));
    if (from.isEmpty()) {
      throw new IllegalArgumentException("a hand-over needs a shard that gives up writes");
    }
  }

  /** A hand-over whose giving side is known and whose taking side is not recorded yet. */
  public static HandOver given(Instant at, Map<String, String> from) {
    return new HandOver(at, from, Map.of());
  }

  /** This hand-over with its taking side recorded. */
  public HandOver takenBy(Map<String, String> positions) {
    return new HandOver(at, from, positions);
  }

  /** True once the taking side is recorded. */
  public boolean taken() {
    return !to.isEmpty();
  }
}
