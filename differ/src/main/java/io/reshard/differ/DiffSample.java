package io.reshard.differ;

import java.util.List;
import java.util.Map;

/**
 * One row the diff found different, for the report.
 *
 * @param table the table
 * @param kind what was found
 * @param key the row's primary key, column to value (text if clean UTF-8, else {@code 0x}-hex)
 * @param columns the columns whose bytes differ (mismatched rows only; empty otherwise)
 */
public record DiffSample(String table, Kind kind, Map<String, String> key, List<String> columns) {

  /** Copies the key and columns. */
  public DiffSample {
    key = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(key));
    columns = List.copyOf(columns);
  }

  /** What the diff found for one key. */
  public enum Kind {
    /** On both sides with different bytes in some column. */
    MISMATCHED,
    /** On the source (in the target's range), not on the target. */
    EXTRA_SOURCE,
    /** On the target, not on the source (or not in the target's range there). */
    EXTRA_TARGET
  }
}
