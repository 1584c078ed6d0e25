package io.reshard.core.config;

import io.reshard.router.KeyRange;
import java.util.List;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The value checks that configuration keys are declared with. Each returns a problem description
 * phrased to follow the key (e.g. "must be between 1 and 10"), or null if the value is fine.
 * Stateless.
 */
public final class Validators {
  /** A keyspace, database or table name. */
  public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_$]{1,64}");

  /** A Kafka topic name. */
  public static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,200}");

  /** A host name or address (IPv6 in brackets, with a zone). */
  public static final Pattern HOST = Pattern.compile("[A-Za-z0-9.:_%\\[\\]-]{1,253}");

  private Validators() {}

  /** Any value. */
  public static Function<String, String> any() {
    return v -> null;
  }

  /** Anything but blank text. */
  public static Function<String, String> nonBlank() {
    return v -> v.isBlank() ? "must not be blank" : null;
  }

  /** Matches {@code p}: "is not WHAT (PATTERN)" otherwise. */
  public static Function<String, String> matches(Pattern p, String what) {
    return v -> p.matcher(v).matches() ? null : "is not " + what + " (" + p.pattern() + ")";
  }

  /** Matches {@code p}: "must match PATTERN" otherwise. */
  public static Function<String, String> matches(Pattern p) {
    return v -> p.matcher(v).matches() ? null : "must match " + p.pattern();
  }

  /** Empty, or matches {@code p}: "is not WHAT" otherwise. */
  public static Function<String, String> emptyOrMatches(Pattern p, String what) {
    return v -> v.isEmpty() || p.matcher(v).matches() ? null : "is not " + what;
  }

  /** One of {@code allowed}, exactly. */
  public static Function<String, String> oneOf(String... allowed) {
    List<String> list = List.of(allowed);
    return v -> list.contains(v) ? null : "must be one of " + list;
  }

  /** {@code true} or {@code false}. */
  public static Function<String, String> bool() {
    return oneOf("true", "false");
  }

  /** An int within {@code [min, max]}. */
  public static Function<String, String> intRange(int min, int max) {
    return v -> {
      try {
        int n = Integer.parseInt(v);
        return n < min || n > max ? "must be between " + min + " and " + max : null;
      } catch (NumberFormatException e) {
        return "is not an integer";
      }
    };
  }

  /** A long within {@code [min, max]}. */
  public static Function<String, String> longRange(long min, long max) {
    return v -> {
      try {
        long n = Long.parseLong(v);
        return n < min || n > max ? "must be between " + min + " and " + max : null;
      } catch (NumberFormatException e) {
        return "is not an integer";
      }
    };
  }

  /** A shard name as Vitess writes it ({@code -80}, {@code 40-80}, {@code c0-}, {@code -}). */
  public static Function<String, String> shardName() {
    return v -> {
      try {
        KeyRange.parse(v);
        return null;
      } catch (RuntimeException e) {
        return "is not a shard name like -80, 40-80, c0- or - (" + e.getMessage() + ")";
      }
    };
  }

  /** Empty, or at least {@code min} characters: a token short enough to guess is refused. */
  public static Function<String, String> emptyOrAtLeast(int min) {
    return v ->
        v.isEmpty() || v.length() >= min
            ? null
            : "must be empty (mutating calls off) or at least " + min + " characters";
  }
}
