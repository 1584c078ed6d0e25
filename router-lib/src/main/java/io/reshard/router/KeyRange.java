package io.reshard.router;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A key range {@code [start, end)} over {@link KeyspaceId}s, and the name of the shard that owns
 * it, exactly as Vitess defines them ({@code go/vt/key/key.go}).
 *
 * <p><b>Names.</b> A range is named {@code start-end} with each side in hex: {@code -80}, {@code
 * 40-80}, {@code c0-}, and {@code -} for the whole keyspace. An empty start is the minimum, an
 * empty end is beyond the maximum. Names are parsed case-insensitively and printed in lower case.
 * Trailing zero bytes of a boundary are insignificant: {@code -80} equals {@code -8000} and {@code
 * 00-80} equals {@code -80}. The printed {@link #name()} keeps the boundary bytes as written (so
 * {@code -8000} prints as {@code -8000}), except that a range covering everything always prints
 * {@code -}. As in Vitess, the name {@code 0} (the single shard of an unsharded keyspace) is
 * accepted as {@code -}.
 *
 * <p><b>Order.</b> {@link #compareTo} orders by start, then by end (Vitess's {@code
 * KeyRangeCompare}); {@link #equals} agrees with it.
 *
 * <p>Immutable and thread-safe.
 */
public final class KeyRange implements Comparable<KeyRange> {
  private static final byte[] NONE = new byte[0];

  /** The whole keyspace, {@code -}. */
  public static final KeyRange FULL = new KeyRange(NONE, NONE);

  /**
   * Exact split boundaries are searched up to this many bytes beyond the widest boundary: a split
   * into at most 2^31 parts needs at most 31 more bits, so 4 bytes always suffice for a power of
   * two.
   */
  private static final int MAX_EXTRA_SPLIT_BYTES = 4;

  /** Start bytes as written; empty or all zeros = minimum. */
  private final byte[] start;

  /** End bytes as written; empty = beyond the maximum. Never all zeros. */
  private final byte[] end;

  private KeyRange(byte[] start, byte[] end) {
    this.start = start;
    this.end = end;
  }

  /**
   * Builds {@code [start, end)} from raw boundaries, checking that it is not empty.
   *
   * @param start empty for the minimum; not copied
   * @param end empty for beyond the maximum; not copied
   * @param input names the input in error messages
   */
  static KeyRange of(byte[] start, byte[] end, String input) {
    if (end.length > 0 && KeyspaceId.normalizedLength(end) == 0) {
      throw new IllegalArgumentException(
          "invalid key range \"" + input + "\": the end is the minimum, so the range is empty");
    }
    if (end.length > 0 && KeyspaceId.compareNormalized(start, end) >= 0) {
      throw new IllegalArgumentException(
          "invalid key range \"" + input + "\": start must be less than end");
    }
    return new KeyRange(start, end);
  }

  /**
   * Parses a shard name such as {@code -80}, {@code 40-80}, {@code C0-} or {@code -}.
   *
   * @throws IllegalArgumentException naming the input if it has no or several {@code -}, a side
   *     with an odd number of hex digits or a non-hex character, or a start not below its end
   */
  public static KeyRange parse(String name) {
    Objects.requireNonNull(name, "key range name");
    if (name.equals("0")) {
      return FULL; // Vitess's name for the only shard of an unsharded keyspace
    }
    int dash = name.indexOf('-');
    if (dash < 0 || name.indexOf('-', dash + 1) >= 0) {
      throw new IllegalArgumentException(
          "invalid key range \""
              + name
              + "\": expected exactly one '-' between two hex boundaries, as in -80, 40-80, c0-, -");
    }
    String startHex = name.substring(0, dash);
    String endHex = name.substring(dash + 1);
    byte[] start = KeyspaceId.parseHex(startHex, "key range \"" + name + "\" start");
    byte[] end = KeyspaceId.parseHex(endHex, "key range \"" + name + "\" end");
    return of(start, end, name);
  }

  /**
   * Returns the {@code n} equal shards of a keyspace in order, as Vitess's {@code
   * EvenShardsKeyRange}: {@code 1 → -}, {@code 2 → -80, 80-}, {@code 4 → -40, 40-80, 80-c0, c0-},
   * {@code 256 → -01, 01-02, ..., ff-}, {@code 512 → -0080, 0080-0100, ...}.
   *
   * @param n a power of two, at least 1
   * @throws IllegalArgumentException if {@code n} is not a positive power of two
   */
  public static List<KeyRange> evenShards(int n) {
    if (n < 1 || Integer.bitCount(n) != 1) {
      throw new IllegalArgumentException(
          "the number of even shards must be a positive power of two (1, 2, 4, ...); got " + n);
    }
    return FULL.split(n);
  }

  /**
   * Merges a contiguous run of ranges, given in any order, into one ({@code -40, 40-80 → -80}).
   *
   * @throws IllegalArgumentException if {@code ranges} is empty, or, naming both ranges, if two
   *     neighbours in start order are not adjacent (a gap or an overlap between them)
   */
  public static KeyRange mergeAll(Collection<KeyRange> ranges) {
    if (ranges.isEmpty()) {
      throw new IllegalArgumentException("no key ranges to merge");
    }
    List<KeyRange> sorted = ranges.stream().sorted().toList();
    KeyRange merged = sorted.get(0);
    for (KeyRange next : sorted.subList(1, sorted.size())) {
      merged = merged.merge(next);
    }
    return merged;
  }

  /** Returns the start, or empty if it is the minimum. */
  public Optional<KeyspaceId> start() {
    return isMinimumStart() ? Optional.empty() : Optional.of(KeyspaceId.of(start));
  }

  /** Returns the end, or empty if the range reaches beyond the maximum. */
  public Optional<KeyspaceId> end() {
    return end.length == 0 ? Optional.empty() : Optional.of(KeyspaceId.of(end));
  }

  /** True if this is the whole keyspace ({@code -}). */
  public boolean isFull() {
    return isMinimumStart() && end.length == 0;
  }

  /** Returns the shard name in lower-case hex, e.g. {@code 40-80}; {@code -} for everything. */
  public String name() {
    return isFull() ? "-" : KeyspaceId.toHex(start) + "-" + KeyspaceId.toHex(end);
  }

  /** True if {@code ksid} is in {@code [start, end)} (Vitess's {@code KeyRangeContains}). */
  public boolean contains(KeyspaceId ksid) {
    byte[] k = ksid.rawBytes();
    return KeyspaceId.compareNormalized(k, start) >= 0
        && (end.length == 0 || KeyspaceId.compareNormalized(k, end) < 0);
  }

  /** True if every ksid of {@code other} is in this range. */
  public boolean contains(KeyRange other) {
    return KeyspaceId.compareNormalized(other.start, start) >= 0
        && compareEnds(other.end, end) <= 0;
  }

  /** True if some ksid is in both ranges (Vitess's {@code KeyRangeIntersect}). */
  public boolean intersects(KeyRange other) {
    return (end.length == 0 || KeyspaceId.compareNormalized(other.start, end) < 0)
        && (other.end.length == 0 || KeyspaceId.compareNormalized(start, other.end) < 0);
  }

  /**
   * True if {@code next} starts exactly where this range ends (Vitess's {@code
   * KeyRangeContiguous}): {@code -40} is contiguous with {@code 40-80}, not the other way round.
   */
  public boolean isContiguousWith(KeyRange next) {
    return end.length > 0 && KeyspaceId.compareNormalized(end, next.start) == 0;
  }

  /** True if the two ranges touch without overlapping, in either order. */
  public boolean isAdjacentTo(KeyRange other) {
    return isContiguousWith(other) || other.isContiguousWith(this);
  }

  /**
   * Returns the union of this range and an adjacent one, in either order (Vitess's {@code
   * KeyRangeAdd}): {@code 40-80 + -40 → -80}.
   *
   * @throws IllegalArgumentException naming both ranges if they are not adjacent
   */
  public KeyRange merge(KeyRange other) {
    if (isContiguousWith(other)) {
      return new KeyRange(start, other.end);
    }
    if (other.isContiguousWith(this)) {
      return new KeyRange(other.start, end);
    }
    throw new IllegalArgumentException(
        "cannot merge key ranges "
            + name()
            + " and "
            + other.name()
            + ": they are not adjacent ("
            + (intersects(other) ? "they overlap" : "there is a gap between them")
            + ")");
  }

  /**
   * Splits this range into {@code parts} contiguous ranges of equal width, in order: {@code 80-}
   * into 2 gives {@code 80-c0, c0-}; {@code -} into 4 gives {@code -40, 40-80, 80-c0, c0-}.
   *
   * <p>Boundaries are written with the fewest bytes, at least as many as this range's widest
   * boundary, at which the parts are exactly equal; this always exists when {@code parts} is a
   * power of two. When it does not exist ({@code parts} with an odd factor that does not divide the
   * width, e.g. {@code -} into 3), boundaries use the fewest bytes giving every part at least one
   * value, and are rounded down, so widths differ by at most one unit of the last byte: {@code -}
   * into 3 gives {@code -55, 55-aa, aa-}, as Vitess's {@code GenerateShardRanges}.
   *
   * @param parts at least 1
   * @throws IllegalArgumentException if {@code parts < 1}
   */
  public List<KeyRange> split(int parts) {
    if (parts < 1) {
      throw new IllegalArgumentException(
          "cannot split key range " + name() + " into " + parts + " parts: need at least 1");
    }
    if (parts == 1) {
      return List.of(this);
    }
    int width = splitWidth(parts);
    BigInteger lo = toUnsigned(start, width);
    BigInteger span = upperBound(width).subtract(lo);
    BigInteger n = BigInteger.valueOf(parts);
    List<KeyRange> out = new ArrayList<>(parts);
    byte[] previous = start;
    for (int i = 1; i <= parts; i++) {
      byte[] next =
          i == parts ? end : toBytes(lo.add(span.multiply(BigInteger.valueOf(i)).divide(n)), width);
      out.add(new KeyRange(previous, next));
      previous = next;
    }
    return out;
  }

  /** Orders by start, then end (the maximum last), as Vitess's {@code KeyRangeCompare}. */
  @Override
  public int compareTo(KeyRange other) {
    int c = KeyspaceId.compareNormalized(start, other.start);
    return c != 0 ? c : compareEnds(end, other.end);
  }

  /**
   * True if both boundaries are equal, trailing zero bytes ignored ({@code -80} = {@code -8000}).
   */
  @Override
  public boolean equals(Object other) {
    return other instanceof KeyRange r && compareTo(r) == 0;
  }

  @Override
  public int hashCode() {
    return 31 * KeyspaceId.normalizedHash(start) + KeyspaceId.normalizedHash(end);
  }

  /** Returns {@link #name()}. */
  @Override
  public String toString() {
    return name();
  }

  // ---- package-private, for KeyRangePartition ----

  byte[] rawStart() {
    return start;
  }

  byte[] rawEnd() {
    return end;
  }

  /** Builds a range from boundaries already known to be ordered (gaps and overlaps found). */
  static KeyRange unchecked(byte[] start, byte[] end) {
    return new KeyRange(start, end);
  }

  /** Compares two end boundaries, an empty end being beyond every other. */
  static int compareEnds(byte[] a, byte[] b) {
    if (a.length == 0 || b.length == 0) {
      return Boolean.compare(a.length == 0, b.length == 0);
    }
    return KeyspaceId.compareNormalized(a, b);
  }

  // ---- private ----

  private boolean isMinimumStart() {
    return KeyspaceId.normalizedLength(start) == 0;
  }

  /** The byte width of split boundaries: see {@link #split}. */
  private int splitWidth(int parts) {
    int base = Math.max(1, Math.max(start.length, end.length));
    BigInteger n = BigInteger.valueOf(parts);
    for (int w = base; w <= base + MAX_EXTRA_SPLIT_BYTES; w++) {
      if (upperBound(w).subtract(toUnsigned(start, w)).mod(n).signum() == 0) {
        return w;
      }
    }
    int w = base;
    while (upperBound(w).subtract(toUnsigned(start, w)).compareTo(n) < 0) {
      w++;
    }
    return w;
  }

  /** The end as an unsigned integer of {@code width} bytes; 256^width for the maximum. */
  private BigInteger upperBound(int width) {
    return end.length == 0 ? BigInteger.ONE.shiftLeft(8 * width) : toUnsigned(end, width);
  }

  /** {@code b} right-padded with zero bytes to {@code width}, as an unsigned integer. */
  private static BigInteger toUnsigned(byte[] b, int width) {
    return new BigInteger(1, b).shiftLeft(8 * (width - b.length));
  }

  /** The {@code width} low bytes of {@code v}, big-endian. */
  private static byte[] toBytes(BigInteger v, int width) {
    byte[] raw = v.toByteArray();
    byte[] out = new byte[width];
    int copy = Math.min(raw.length, width);
    System.arraycopy(raw, raw.length - copy, out, width - copy, copy);
    return out;
  }
}
