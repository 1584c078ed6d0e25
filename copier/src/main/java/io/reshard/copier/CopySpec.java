package io.reshard.copier;

import io.reshard.core.placement.TargetShard;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.VSchema;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * What one copy moves: the tables of a keyspace from one source shard to the target shards of a
 * workflow.
 *
 * <p>The targets must not overlap and must together cover the source range (they may reach beyond
 * it, as in a merge, where one target covers several sources); every target must overlap the source
 * range. Otherwise the constructor refuses (DESIGN 6). A source row whose keyspace id falls outside
 * the source range belongs to no target: it is not this shard's row, so it is counted and skipped,
 * never copied.
 *
 * <p>Immutable and thread-safe.
 *
 * @param workflow the workflow's name; keys the copy state on the targets
 * @param keyspace the keyspace, which is also the database name on every shard
 * @param source the source shard's server
 * @param sourceRange the source shard's key range
 * @param targets the target shards, in any order
 * @param tables the tables to copy, each present in the vschema and on the source
 * @param vschema the keyspace's vschema: each table's primary vindex places its rows
 * @param startPosition P0: the source's position ({@code ServerPositions.current}) read when the
 *     workflow was created; no chunk is copied before the change stream covers it (DESIGN 4.6 point
 *     1)
 */
public record CopySpec(
    String workflow,
    String keyspace,
    JdbcEndpoint source,
    KeyRange sourceRange,
    List<TargetShard> targets,
    List<String> tables,
    VSchema vschema,
    String startPosition) {

  /**
   * Checks the spec and sorts the targets by range.
   *
   * @throws CopyRefusedException if the targets overlap, leave a gap, miss part of the source range
   *     or miss it entirely
   * @throws IllegalArgumentException if there is no table, or a name is blank
   */
  public CopySpec {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(sourceRange, "sourceRange");
    Objects.requireNonNull(vschema, "vschema");
    Objects.requireNonNull(startPosition, "startPosition");
    if (workflow.isBlank() || keyspace.isBlank()) {
      throw new IllegalArgumentException("workflow and keyspace must not be blank");
    }
    tables = List.copyOf(tables);
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("workflow " + workflow + " copies no table");
    }
    targets = targets.stream().sorted(Comparator.comparing(TargetShard::range)).toList();
    checkTargets(workflow, sourceRange, targets);
  }

  /**
   * The index in {@link #targets()} of the target whose range holds {@code ksid}, or -1 if none
   * does (the row is outside the source range).
   */
  public int targetIndexOf(KeyspaceId ksid) {
    for (int i = 0; i < targets.size(); i++) {
      if (targets.get(i).range().contains(ksid)) {
        return i;
      }
    }
    return -1;
  }

  private static void checkTargets(String workflow, KeyRange source, List<TargetShard> targets) {
    if (targets.isEmpty()) {
      throw new CopyRefusedException("workflow " + workflow + " has no target shard");
    }
    List<KeyRange> ranges = new ArrayList<>();
    for (TargetShard t : targets) {
      if (!t.range().intersects(source)) {
        throw new CopyRefusedException(
            "workflow "
                + workflow
                + ": target "
                + t.name()
                + " does not overlap source range "
                + source.name()
                + ", so it would receive no row");
      }
      ranges.add(t.range());
    }
    for (int i = 1; i < ranges.size(); i++) {
      KeyRange prev = ranges.get(i - 1);
      KeyRange next = ranges.get(i);
      if (!prev.isContiguousWith(next)) {
        throw new CopyRefusedException(
            "workflow "
                + workflow
                + ": target ranges "
                + prev.name()
                + " and "
                + next.name()
                + (prev.intersects(next) ? " overlap" : " leave a gap")
                + "; the targets must partition the source range "
                + source.name());
      }
    }
    KeyRange merged = KeyRange.mergeAll(ranges);
    if (!merged.contains(source)) {
      throw new CopyRefusedException(
          "workflow "
              + workflow
              + ": target ranges "
              + ranges
              + " cover "
              + merged.name()
              + ", not all of source range "
              + source.name());
    }
  }
}
