package io.reshard.daemon;

import io.reshard.router.KeyRange;
import java.util.function.Function;
import java.util.regex.Pattern;

/** The value checks that {@link DaemonConfig}'s keys are declared with. Stateless. */
final class Validators {
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9_$]{1,64}");
  static final Pattern TOPIC = Pattern.compile("[A-Za-z0-9._-]{1,200}");
  static final Pattern HOST = Pattern.compile("[A-Za-z0-9.:_%\\[\\]-]{1,253}");

  private Validators() {}

  static Function<String, String> any() {
    return v -> null;
  }

  static Function<String, String> nonBlank() {
    return v -> v.isBlank() ? "must not be blank" : null;
  }

  static Function<String, String> matches(Pattern p, String what) {
    return v -> p.matcher(v).matches() ? null : "is not " + what + " (" + p.pattern() + ")";
  }

  static Function<String, String> intRange(int min, int max) {
    return v -> {
      try {
        int n = Integer.parseInt(v);
        return n < min || n > max ? "must be between " + min + " and " + max : null;
      } catch (NumberFormatException e) {
        return "is not an integer";
      }
    };
  }

  static Function<String, String> longRange(long min, long max) {
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
  static Function<String, String> shardName() {
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
  static Function<String, String> emptyOrAtLeast(int min) {
    return v ->
        v.isEmpty() || v.length() >= min
            ? null
            : "must be empty (mutating calls off) or at least " + min + " characters";
  }
}
