package io.reshard.switcher;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Arrays;
import java.util.Locale;

/**
 * What a workflow does with triggers on its moved tables (DESIGN 4.11), the operator's choice at
 * {@code workflow create --triggers=...}, stored in the workflow's record.
 */
public enum TriggerMode {
  /** The default: {@code create} refuses a moved table with triggers, naming every trigger. */
  REFUSE("refuse"),
  /**
   * Each trigger lives only where writes are owned: absent on the targets while they are filled,
   * created on them and dropped from the sources in the write switch, and back on reverse traffic
   * ({@link TriggerPlacement}), so that no copied or applied row ever fires one.
   */
  FOLLOW_WRITES("follow-writes");

  private final String option;

  TriggerMode(String option) {
    this.option = option;
  }

  /** The option's value, e.g. {@code follow-writes}; also the stored form. */
  @JsonValue
  public String option() {
    return option;
  }

  /**
   * The mode an option value names; null or blank is {@link #REFUSE}.
   *
   * @throws IllegalArgumentException naming the accepted values for any other value
   */
  @JsonCreator
  public static TriggerMode parse(String value) {
    if (value == null || value.isBlank()) {
      return REFUSE;
    }
    String v = value.strip().toLowerCase(Locale.ROOT);
    return Arrays.stream(values())
        .filter(m -> m.option.equals(v))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "--triggers must be refuse or follow-writes, not '" + value + "'"));
  }
}
