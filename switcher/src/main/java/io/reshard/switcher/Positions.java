package io.reshard.switcher;

import io.reshard.core.position.GtidPosition;
import java.util.LinkedHashMap;
import java.util.Map;

/** Per-shard GTID positions as the workflow record stores them (text) and as streams use them. */
final class Positions {
  private Positions() {}

  static Map<String, String> strings(Map<String, GtidPosition> positions) {
    Map<String, String> m = new LinkedHashMap<>();
    positions.forEach((shard, p) -> m.put(shard, p.toString()));
    return m;
  }

  static Map<String, GtidPosition> parse(Map<String, String> positions) {
    Map<String, GtidPosition> m = new LinkedHashMap<>();
    positions.forEach((shard, p) -> m.put(shard, GtidPosition.parse(p)));
    return m;
  }
}
