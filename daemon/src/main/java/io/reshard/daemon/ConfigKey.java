package io.reshard.daemon;

import java.util.function.Function;

/**
 * One declared configuration key of the daemon: its name, type, default, validator and
 * documentation. {@link DaemonConfig#KEYS} and {@link DaemonConfig#SHARD_KEYS} list them; the
 * reference table in {@code docs/daemon.md} is {@link DaemonConfig#documentation()}.
 *
 * @param name the key, e.g. {@code admin.port}
 * @param type how the value is read, and whether it is a secret
 * @param defaultValue the default as text, or null if the key is required
 * @param validator returns a problem description for a bad value (phrased to follow the key, e.g.
 *     "must be between 0 and 65535"), or null if the value is fine; it is given the stripped text
 *     and never sees a secret's reference ({@code ${env:...}}), only the resolved value
 * @param doc what the key means, with units
 */
public record ConfigKey(
    String name, Type type, String defaultValue, Function<String, String> validator, String doc) {

  /** How a value is read. */
  public enum Type {
    /** Text. */
    STRING,
    /** A 32-bit integer. */
    INT,
    /** A 64-bit integer. */
    LONG,
    /**
     * A secret text: never logged, printed or echoed in a problem; {@code ${env:NAME}} and {@code
     * ${file:PATH}} read it from an environment variable or a file, so it stays off command lines.
     */
    PASSWORD
  }

  /** True if the key has no default and must be given. */
  public boolean required() {
    return defaultValue == null;
  }

  /** True for {@link Type#PASSWORD} keys. */
  public boolean secret() {
    return type == Type.PASSWORD;
  }
}
