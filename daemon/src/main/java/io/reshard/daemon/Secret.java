package io.reshard.daemon;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A secret configuration value (a password, the admin token). Its {@link #toString()} never shows
 * it, so a secret that reaches a log line, an exception message or a status response by accident
 * prints as {@code [hidden]}; only {@link #reveal()} gives the text, for the one place that must
 * send it (a JDBC login). Immutable and thread-safe.
 */
public final class Secret {
  /** What {@link #toString()} prints for a secret that is set. */
  public static final String HIDDEN = "[hidden]";

  /** What {@link #toString()} prints for an empty secret. */
  public static final String NOT_SET = "[not set]";

  private static final Secret EMPTY = new Secret("");

  private final String value;

  private Secret(String value) {
    this.value = value;
  }

  /** A secret holding {@code value}; null or empty gives the empty secret. */
  public static Secret of(String value) {
    return value == null || value.isEmpty() ? EMPTY : new Secret(value);
  }

  /** The empty secret. */
  public static Secret empty() {
    return EMPTY;
  }

  /** True if no value is set. */
  public boolean isEmpty() {
    return value.isEmpty();
  }

  /** The secret's text. Send it where it is needed; never log or print it. */
  public String reveal() {
    return value;
  }

  /**
   * True if {@code candidate} equals this secret, compared in time that depends on neither the
   * position of the first difference nor the secret's length: both sides are hashed with SHA-256
   * and the digests compared with {@link MessageDigest#isEqual}. An empty secret matches nothing.
   */
  public boolean matches(String candidate) {
    if (value.isEmpty() || candidate == null) {
      return false;
    }
    return MessageDigest.isEqual(sha256(value), sha256(candidate));
  }

  private static byte[] sha256(String s) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always present", e);
    }
  }

  /** {@code [hidden]}, or {@code [not set]} if empty; never the value. */
  @Override
  public String toString() {
    return value.isEmpty() ? NOT_SET : HIDDEN;
  }

  /** Secrets are equal if their values are (compared in constant time). */
  @Override
  public boolean equals(Object o) {
    return o instanceof Secret s
        && MessageDigest.isEqual(
            value.getBytes(StandardCharsets.UTF_8), s.value.getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public int hashCode() {
    return 0; // a hash of the value would leak a little of it; secrets are never map keys
  }
}
