package io.reshard.switcher;

import java.util.Locale;

/**
 * What {@code workflow create} does with a moved table that has an AUTO_INCREMENT column ({@code
 * --auto-increment}). After a split every target goes on from the same AUTO_INCREMENT value, so ids
 * the servers choose would be the same on two shards (DESIGN 4.11).
 */
public enum AutoIncrementMode {
  /**
   * The default: such a table needs a sequence in the vschema ({@code "auto_increment"}), from
   * which router-lib fills the ids; one without is refused. The write switch raises the sequence
   * above every id copied.
   */
  SEQUENCE,
  /** The application assigns ids itself: no table is refused for its AUTO_INCREMENT column. */
  LEAVE;

  /** The create request's parameter (and the CLI option's value). */
  public static final String PARAM = "auto_increment";

  /**
   * Parses the request's {@code auto_increment} parameter: absent means {@link #SEQUENCE}.
   *
   * @throws IllegalArgumentException naming the value and the choices
   */
  public static AutoIncrementMode parse(String value) {
    if (value == null || value.isBlank()) {
      return SEQUENCE;
    }
    try {
      return valueOf(value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "--auto-increment must be leave (the application assigns ids) or sequence (the default:"
              + " ids from the vschema's sequences), not '"
              + value
              + "'");
    }
  }
}
