package io.reshard.core.config;

import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The checked values of one {@link ConfigDef}: every key's stripped text (its default if not
 * given), read through typed getters. Frozen: immutable and thread-safe. A secret's value is read
 * only with {@link #password}; {@link #toString()} shows it as {@code [hidden]}.
 */
public final class ConfigValues {
  private final ConfigDef def;
  private final Map<String, String> values;

  ConfigValues(ConfigDef def, Map<String, String> values) {
    this.def = def;
    this.values = Map.copyOf(values);
  }

  /** True if {@code key} has a value (false for a key whose value was refused). */
  public boolean has(String key) {
    return values.containsKey(key);
  }

  /**
   * The value of a declared non-secret key, as text.
   *
   * @throws IllegalArgumentException for an undeclared key, a secret, or a key without a value
   */
  public String get(String key) {
    ConfigKey k =
        def.find(key).orElseThrow(() -> new IllegalArgumentException("undeclared key " + key));
    if (k.secret()) {
      throw new IllegalArgumentException(key + " is a secret: use password()");
    }
    return value(key);
  }

  /** The value of a secret key. Send it where it is needed; never log or print it. */
  public String password(String key) {
    ConfigKey k =
        def.find(key).orElseThrow(() -> new IllegalArgumentException("undeclared key " + key));
    if (!k.secret()) {
      throw new IllegalArgumentException(key + " is not a secret: use get()");
    }
    return value(key);
  }

  /** An {@code int} key's value. */
  public int getInt(String key) {
    return Integer.parseInt(get(key));
  }

  /** A {@code long} key's value. */
  public long getLong(String key) {
    return Long.parseLong(get(key));
  }

  /** A {@code boolean} key's value. */
  public boolean getBoolean(String key) {
    return Boolean.parseBoolean(get(key));
  }

  /** A key in milliseconds ({@code *.ms}), as a duration. */
  public Duration getMillis(String key) {
    return Duration.ofMillis(getLong(key));
  }

  private String value(String key) {
    String v = values.get(key);
    if (v == null) {
      throw new IllegalArgumentException(key + " has no value: it was refused");
    }
    return v;
  }

  /** {@code key = value} of every key in declaration order, secrets as {@code [hidden]}. */
  @Override
  public String toString() {
    StringJoiner j = new StringJoiner(", ", "{", "}");
    for (ConfigKey k : def.keys()) {
      if (values.containsKey(k.name())) {
        String v = values.get(k.name());
        j.add(k.name() + " = " + (k.secret() ? (v.isEmpty() ? "[not set]" : "[hidden]") : v));
      }
    }
    return j.toString();
  }
}
