package io.reshard.core.position;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A set of executed transactions, as a server reports it in {@code @@gtid_binlog_pos} (MariaDB) or
 * {@code @@gtid_executed} (MySQL), and as capture stores it: everything up to and including this
 * position has been seen, so a binlog stream started here begins with the next transaction (a
 * MariaDB GTID start is exclusive).
 *
 * <p>Two text shapes, both parsed by {@link #parse(String)}:
 *
 * <ul>
 *   <li>MariaDB: a comma-separated list of {@code domain-server-sequence}, at most one entry per
 *       domain, e.g. {@code 0-1-100,7-3-12}. Domain and server are unsigned 32-bit numbers, the
 *       sequence an unsigned 64-bit number. The entry of a domain is the last transaction of that
 *       domain; sequences only grow within a domain (strict mode).
 *   <li>MySQL: a comma-separated list of {@code uuid:interval[:interval...]}, each interval {@code
 *       n} or {@code a-b} (inclusive), e.g. {@code 3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7}.
 *       Tagged GTIDs (MySQL 8.4 {@code uuid:tag:n}) are refused.
 * </ul>
 *
 * The empty text is the empty position of either flavor. {@link #toString()} is canonical (domains
 * and uuids sorted, intervals merged) and parses back to an equal position.
 *
 * <p>Immutable and thread-safe.
 */
public final class GtidPosition {

  /** Which server family's GTID format a position holds. */
  public enum Flavor {
    /** {@code domain-server-sequence} lists. */
    MARIADB,
    /** {@code uuid:intervals} sets. */
    MYSQL
  }

  /** The last transaction of one MariaDB replication domain. */
  private record MariaDbGtid(long domain, long server, long sequence) {
    @Override
    public String toString() {
      return domain + "-" + server + "-" + Long.toUnsignedString(sequence);
    }
  }

  /** An inclusive range of MySQL transaction numbers. */
  private record Interval(long start, long end) {
    @Override
    public String toString() {
      return start == end ? Long.toString(start) : start + "-" + end;
    }
  }

  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  /** The empty position: no transaction seen yet (a stream from the oldest binlog). */
  public static final GtidPosition EMPTY = new GtidPosition(null, Map.of(), Map.of());

  private final Flavor flavor; // null only for EMPTY
  private final Map<Long, MariaDbGtid> domains; // sorted by domain
  private final Map<String, List<Interval>> uuids; // sorted by uuid, intervals merged

  private GtidPosition(
      Flavor flavor, Map<Long, MariaDbGtid> domains, Map<String, List<Interval>> uuids) {
    this.flavor = flavor;
    this.domains = domains;
    this.uuids = uuids;
  }

  /**
   * Parses either flavor: text with a {@code :} is a MySQL set, anything else a MariaDB list.
   *
   * @param text the position; blank for {@link #EMPTY}
   * @throws IllegalArgumentException naming the bad entry if the text is malformed
   */
  public static GtidPosition parse(String text) {
    Objects.requireNonNull(text, "text");
    if (text.isBlank()) {
      return EMPTY;
    }
    return text.contains(":") ? parseMySql(text) : parseMariaDb(text);
  }

  /**
   * Parses a MariaDB GTID list such as {@code 0-1-100,7-3-12}.
   *
   * @throws IllegalArgumentException if an entry is not three unsigned numbers or a domain repeats
   */
  public static GtidPosition parseMariaDb(String text) {
    TreeMap<Long, MariaDbGtid> domains = new TreeMap<>();
    for (String raw : text.split(",")) {
      String entry = raw.strip();
      if (entry.isEmpty()) {
        continue;
      }
      MariaDbGtid gtid = parseMariaDbGtid(entry);
      if (domains.put(gtid.domain(), gtid) != null) {
        throw new IllegalArgumentException(
            "GTID position '" + text + "' lists domain " + gtid.domain() + " twice");
      }
    }
    return domains.isEmpty()
        ? EMPTY
        : new GtidPosition(Flavor.MARIADB, Collections.unmodifiableMap(domains), Map.of());
  }

  /**
   * Parses a MySQL GTID set such as {@code uuid:1-5:7,uuid2:1-9} (whitespace and newlines between
   * entries are allowed, as MySQL prints them).
   *
   * @throws IllegalArgumentException if a uuid or interval is malformed, or a tag is present
   */
  public static GtidPosition parseMySql(String text) {
    TreeMap<String, List<Interval>> uuids = new TreeMap<>();
    for (String raw : text.split(",")) {
      String entry = raw.strip().toLowerCase(Locale.ROOT);
      if (entry.isEmpty()) {
        continue;
      }
      String[] parts = entry.split(":");
      if (!UUID.matcher(parts[0]).matches() || parts.length < 2) {
        throw new IllegalArgumentException(
            "'" + raw.strip() + "' is not uuid:interval in GTID set '" + text + "'");
      }
      for (int i = 1; i < parts.length; i++) {
        if (!parts[i].isEmpty() && Character.isLetter(parts[i].charAt(0))) {
          throw new IllegalArgumentException(
              "GTID set '"
                  + text
                  + "' holds the tagged GTIDs '"
                  + raw.strip()
                  + "' (MySQL 8.4's uuid:tag:n); reshard does not support tagged GTIDs: stop"
                  + " writing transactions with a tag (SET gtid_next = 'AUTOMATIC:tag') on this"
                  + " source");
        }
      }
      List<Interval> intervals = new ArrayList<>(uuids.getOrDefault(parts[0], List.of()));
      for (int i = 1; i < parts.length; i++) {
        intervals.add(parseInterval(parts[i], text));
      }
      uuids.put(parts[0], merge(intervals));
    }
    return uuids.isEmpty()
        ? EMPTY
        : new GtidPosition(Flavor.MYSQL, Map.of(), Collections.unmodifiableMap(uuids));
  }

  /** This position's flavor; empty for {@link #EMPTY}, which belongs to both. */
  public java.util.Optional<Flavor> flavor() {
    return java.util.Optional.ofNullable(flavor);
  }

  /** True if no transaction is in this position. */
  public boolean isEmpty() {
    return flavor == null;
  }

  /**
   * Returns this position plus one transaction.
   *
   * @param gtid a MariaDB {@code domain-server-sequence} (it replaces its domain's entry) or a
   *     MySQL {@code uuid:n} (added to that uuid's intervals)
   * @throws IllegalArgumentException if the GTID is malformed or of the other flavor
   */
  public GtidPosition with(String gtid) {
    if (gtid.contains(":")) {
      requireFlavor(Flavor.MYSQL, gtid);
      String[] parts = gtid.strip().toLowerCase(Locale.ROOT).split(":");
      if (parts.length != 2 || !UUID.matcher(parts[0]).matches()) {
        throw new IllegalArgumentException("'" + gtid + "' is not a MySQL GTID uuid:n");
      }
      Interval one = parseInterval(parts[1], gtid);
      TreeMap<String, List<Interval>> copy = new TreeMap<>(uuids);
      List<Interval> intervals = new ArrayList<>(copy.getOrDefault(parts[0], List.of()));
      intervals.add(one);
      copy.put(parts[0], merge(intervals));
      return new GtidPosition(Flavor.MYSQL, Map.of(), Collections.unmodifiableMap(copy));
    }
    requireFlavor(Flavor.MARIADB, gtid);
    MariaDbGtid one = parseMariaDbGtid(gtid.strip());
    TreeMap<Long, MariaDbGtid> copy = new TreeMap<>(domains);
    copy.put(one.domain(), one);
    return new GtidPosition(Flavor.MARIADB, Collections.unmodifiableMap(copy), Map.of());
  }

  /**
   * True if the transaction {@code gtid} is in this position: for MariaDB, its domain's sequence is
   * at most this position's sequence for that domain; for MySQL, its number is in an interval.
   */
  public boolean contains(String gtid) {
    return covers(parse(gtid));
  }

  /**
   * True if every transaction of {@code other} is in this position, i.e. a stream that has reached
   * this position has seen everything up to {@code other} ("published past P0"). The empty position
   * is covered by every position; positions of different flavors never cover each other.
   */
  public boolean covers(GtidPosition other) {
    if (other.isEmpty()) {
      return true;
    }
    if (other.flavor != flavor) {
      return false;
    }
    for (MariaDbGtid theirs : other.domains.values()) {
      MariaDbGtid ours = domains.get(theirs.domain());
      if (ours == null || Long.compareUnsigned(ours.sequence(), theirs.sequence()) < 0) {
        return false;
      }
    }
    for (Map.Entry<String, List<Interval>> e : other.uuids.entrySet()) {
      List<Interval> ours = uuids.getOrDefault(e.getKey(), List.of());
      for (Interval theirs : e.getValue()) {
        if (ours.stream().noneMatch(i -> i.start() <= theirs.start() && theirs.end() <= i.end())) {
          return false;
        }
      }
    }
    return true;
  }

  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    domains.values().forEach(g -> parts.add(g.toString()));
    uuids.forEach(
        (uuid, intervals) -> {
          StringBuilder b = new StringBuilder(uuid);
          intervals.forEach(i -> b.append(':').append(i));
          parts.add(b.toString());
        });
    return String.join(",", parts);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof GtidPosition p && toString().equals(p.toString());
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  private void requireFlavor(Flavor wanted, String gtid) {
    if (flavor != null && flavor != wanted) {
      throw new IllegalArgumentException(
          "GTID '" + gtid + "' is not of this position's flavor " + flavor + ": " + this);
    }
  }

  private static MariaDbGtid parseMariaDbGtid(String entry) {
    String[] f = entry.split("-", -1);
    if (f.length != 3) {
      throw new IllegalArgumentException(
          "'" + entry + "' is not a MariaDB GTID domain-server-sequence");
    }
    try {
      long domain = Long.parseLong(f[0]);
      long server = Long.parseLong(f[1]);
      long sequence = Long.parseUnsignedLong(f[2]);
      if (domain < 0 || domain > 0xFFFF_FFFFL || server < 0 || server > 0xFFFF_FFFFL) {
        throw new NumberFormatException("out of range");
      }
      return new MariaDbGtid(domain, server, sequence);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "'" + entry + "' is not a MariaDB GTID domain-server-sequence (" + e.getMessage() + ")",
          e);
    }
  }

  private static Interval parseInterval(String text, String whole) {
    String[] ends = text.split("-", -1);
    try {
      if (ends.length == 1) {
        long n = Long.parseLong(ends[0]);
        return checked(new Interval(n, n), whole);
      }
      if (ends.length == 2) {
        return checked(new Interval(Long.parseLong(ends[0]), Long.parseLong(ends[1])), whole);
      }
    } catch (NumberFormatException e) {
      // falls through to the message below: a tag or garbage
    }
    throw new IllegalArgumentException(
        "'"
            + text
            + "' in GTID set '"
            + whole
            + "' is not an interval n or a-b"
            + " (tagged GTIDs are not supported)");
  }

  private static Interval checked(Interval i, String whole) {
    if (i.start() < 1 || i.end() < i.start()) {
      throw new IllegalArgumentException("interval " + i + " in '" + whole + "' is empty or < 1");
    }
    return i;
  }

  /** Sorts and merges overlapping or adjacent intervals. */
  private static List<Interval> merge(List<Interval> intervals) {
    List<Interval> sorted = new ArrayList<>(intervals);
    sorted.sort((a, b) -> Long.compare(a.start(), b.start()));
    List<Interval> out = new ArrayList<>();
    for (Interval i : sorted) {
      Interval last = out.isEmpty() ? null : out.get(out.size() - 1);
      if (last != null && i.start() <= last.end() + 1) {
        out.set(out.size() - 1, new Interval(last.start(), Math.max(last.end(), i.end())));
      } else {
        out.add(i);
      }
    }
    return List.copyOf(out);
  }
}
