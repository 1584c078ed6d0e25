package io.reshard.router;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * One version of a keyspace's shard map (DESIGN 4.2): the vschema and, per shard, its range,
 * endpoint, epoch and whether it serves reads and writes. Routers send a row's reads to the read
 * shard and its writes to the write shard whose range contains the row's ksid.
 *
 * <p><b>Invariants</b>, checked on every construction ({@link ShardMapException} listing every
 * violation): a non-blank keyspace; version ≥ 1; no two shards with the same range ({@code -80} and
 * {@code -8000} are the same); every endpoint non-blank; every epoch in {@code [1, version]}; the
 * read shards form a {@link KeyRangePartition}, and so do the write shards, so a scatter read never
 * returns a row twice even while a workflow holds it on both sides.
 *
 * <p><b>Epochs.</b> {@link #next} builds version v+1 and gives epoch v+1 only to shards whose write
 * ownership changed: a shard new in the map, or one whose {@code serves_writes} flipped. Every
 * other shard keeps its epoch, so writes to untouched shards are never disturbed. A changed
 * endpoint or {@code serves_reads} alone does not change the epoch: epochs fence writes, and the
 * switcher sets a new epoch in a fence row only when it moves writes.
 *
 * <p><b>JSON</b> ({@link #toJson}, {@link #fromJson}):
 *
 * <pre>{@code
 * {"keyspace": "commerce", "version": 3, "vschema": {...Vitess vschema...},
 *  "shards": [{"name": "-80", "endpoint": "shard-0", "epoch": 1,
 *              "serves_reads": true, "serves_writes": true}, ...]}
 * }</pre>
 *
 * Every key shown is required; unknown keys are ignored, so an older router reads a newer map.
 *
 * <p>Immutable and thread-safe.
 */
public final class ShardMap {
  private final String keyspace;
  private final long version;
  private final VSchema vschema;
  private final List<Shard> shards;
  private final KeyRangePartition readPartition;
  private final KeyRangePartition writePartition;
  private final Map<KeyRange, Shard> readShards = new HashMap<>();
  private final Map<KeyRange, Shard> writeShards = new HashMap<>();

  private ShardMap(String keyspace, long version, VSchema vschema, List<Shard> shards) {
    this.keyspace = keyspace;
    this.version = version;
    this.vschema = vschema;
    this.shards = shards.stream().sorted((a, b) -> a.range().compareTo(b.range())).toList();
    List<String> problems = new ArrayList<>();
    checkFields(problems);
    readPartition = partition("read", Shard::servesReads, readShards, problems);
    writePartition = partition("write", Shard::servesWrites, writeShards, problems);
    if (!problems.isEmpty()) {
      throw new ShardMapException(subject(), problems, null);
    }
  }

  /**
   * Returns a shard map with exactly these fields, as read from a document.
   *
   * @throws ShardMapException listing every violated invariant
   */
  public static ShardMap of(String keyspace, long version, VSchema vschema, List<Shard> shards) {
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(vschema, "vschema");
    return new ShardMap(keyspace, version, vschema, List.copyOf(shards));
  }

  /**
   * Returns version 1 of a keyspace's map; every shard has epoch 1.
   *
   * @throws ShardMapException listing every violated invariant
   */
  public static ShardMap first(
      String keyspace, VSchema vschema, Collection<ShardAssignment> assignments) {
    return of(keyspace, 1, vschema, assignments.stream().map(a -> withEpoch(a, 1)).toList());
  }

  /**
   * Returns version v+1 of this map (v = {@link #version()}) with these shards and vschema; the
   * epochs follow the rule in the class description.
   *
   * @throws ShardMapException listing every violated invariant of the new version
   */
  public ShardMap next(VSchema vschema, Collection<ShardAssignment> assignments) {
    long next = Math.addExact(version, 1);
    List<Shard> nextShards = new ArrayList<>();
    for (ShardAssignment a : assignments) {
      Optional<Shard> before = shard(a.range());
      boolean ownershipKept = before.isPresent() && before.get().servesWrites() == a.servesWrites();
      nextShards.add(withEpoch(a, ownershipKept ? before.get().epoch() : next));
    }
    return of(keyspace, next, vschema, nextShards);
  }

  /**
   * Parses a shard map document.
   *
   * @throws ShardMapException if it is not a valid document or violates an invariant
   * @throws VSchemaException if its vschema is not valid
   */
  public static ShardMap fromJson(String json) {
    return ShardMapJson.read(json);
  }

  /** Returns the document, indented, in the format of the class description. */
  public String toJson() {
    return ShardMapJson.write(this);
  }

  /** Returns the keyspace name. */
  public String keyspace() {
    return keyspace;
  }

  /** Returns the map version, 1 or more. */
  public long version() {
    return version;
  }

  /** Returns the keyspace's vschema. */
  public VSchema vschema() {
    return vschema;
  }

  /** Returns every shard, in range order (by start, then end). */
  public List<Shard> shards() {
    return shards;
  }

  /** Returns the shard with exactly this range ({@code -80} finds {@code -8000}), if any. */
  public Optional<Shard> shard(KeyRange range) {
    return shards.stream().filter(s -> s.range().equals(range)).findFirst();
  }

  /** Returns the ranges of the shards serving reads. */
  public KeyRangePartition readPartition() {
    return readPartition;
  }

  /** Returns the ranges of the shards serving writes. */
  public KeyRangePartition writePartition() {
    return writePartition;
  }

  /** Returns the shard that serves reads of rows with this ksid; there is always exactly one. */
  public Shard readShardFor(KeyspaceId ksid) {
    return readShards.get(readPartition.rangeFor(ksid));
  }

  /** Returns the shard that serves writes of rows with this ksid; there is always exactly one. */
  public Shard writeShardFor(KeyspaceId ksid) {
    return writeShards.get(writePartition.rangeFor(ksid));
  }

  /** True if keyspace, version, vschema and shards are all equal. */
  @Override
  public boolean equals(Object other) {
    return other instanceof ShardMap m
        && keyspace.equals(m.keyspace)
        && version == m.version
        && vschema.equals(m.vschema)
        && shards.equals(m.shards);
  }

  @Override
  public int hashCode() {
    return Objects.hash(keyspace, version, vschema, shards);
  }

  /** Returns e.g. {@code shard map commerce v3 [-80 (r w e1), 80- (r w e3)]}. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder(subject()).append(" [");
    for (int i = 0; i < shards.size(); i++) {
      Shard s = shards.get(i);
      sb.append(i == 0 ? "" : ", ")
          .append(s.name())
          .append(" (")
          .append(s.servesReads() ? "r " : "")
          .append(s.servesWrites() ? "w " : "")
          .append("e")
          .append(s.epoch())
          .append(")");
    }
    return sb.append("]").toString();
  }

  // ---- private ----

  private String subject() {
    return "shard map " + keyspace + " v" + version;
  }

  private static Shard withEpoch(ShardAssignment a, long epoch) {
    return new Shard(a.range(), a.endpoint(), epoch, a.servesReads(), a.servesWrites());
  }

  private void checkFields(List<String> problems) {
    if (keyspace.isBlank()) {
      problems.add("the keyspace name is blank");
    }
    if (version < 1) {
      problems.add("version " + version + " is not 1 or more");
    }
    Map<KeyRange, Shard> seen = new HashMap<>();
    for (Shard s : shards) {
      Shard previous = seen.put(s.range(), s);
      if (previous != null) {
        problems.add("shards " + previous.name() + " and " + s.name() + " have the same range");
      }
      if (s.endpoint().isBlank()) {
        problems.add("shard " + s.name() + " has a blank endpoint");
      }
      if (s.epoch() < 1 || s.epoch() > version) {
        problems.add(
            "shard " + s.name() + " has epoch " + s.epoch() + ", not in [1, " + version + "]");
      }
    }
  }

  /** The partition formed by the shards that pass {@code serves}, or null with a problem. */
  private KeyRangePartition partition(
      String role, Predicate<Shard> serves, Map<KeyRange, Shard> byRange, List<String> problems) {
    List<Shard> serving = shards.stream().filter(serves).toList();
    serving.forEach(s -> byRange.putIfAbsent(s.range(), s));
    try {
      return KeyRangePartition.of(serving.stream().map(Shard::range).toList());
    } catch (KeyRangePartitionException e) {
      problems.add(role + " shards: " + e.getMessage());
      return null;
    }
  }
}
