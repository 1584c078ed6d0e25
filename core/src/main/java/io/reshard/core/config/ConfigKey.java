package io.reshard.core.config;

import java.util.Objects;
import java.util.function.Function;

/**
 * One declared configuration key: its name, type, default, validator and documentation. A {@link
 * ConfigDef} lists a module's keys in documentation order, parses values against them and renders
 * the reference table.
 *
 * @param name the key, e.g. {@code admin.port}; units are part of it ({@code .ms}, {@code .rows})
 * @param type how the value is read, and whether it is a secret
 * @param defaultValue the default as text, or null if the key is required
 * @param validator returns a problem description for a bad value (phrased to follow the key, e.g.
 *     "must be between 0 and 65535"), or null if the value is fine; it is given the stripped text
 *     (a secret's text as given) and never sees a secret's reference ({@code ${env:...}}), only the
 *     resolved value
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
    /** {@code true} or {@code false}. */
    BOOLEAN,
    /**
     * A secret text: never logged, printed or echoed in a problem; where the caller resolves them
     * (the daemon), {@code ${env:NAME}} and {@code ${file:PATH}} read it from an environment
     * variable or a file, so it stays off command lines.
     */
    PASSWORD
  }

  /** Checks that every part but the default is given. */
  public ConfigKey {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(validator, "validator");
    Objects.requireNonNull(doc, "doc");
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
