package io.reshard.differ;

import io.reshard.core.placement.TargetShard;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.router.VSchema;
import java.util.List;
import java.util.Objects;

/**
 * What one diff compares: the tables of a keyspace on one source shard against one or more target
 * shards of a workflow. The source is read once; each source row is routed by its keyspace id to
 * the target whose range holds it, and a row that no listed target holds is not expected anywhere.
 *
 * <p>The targets keep the order given (the order of the {@link StreamControl}s passed to {@link
 * Differ} and of the reports it returns); their ranges must not overlap, and need not cover the
 * source range (a diff of one target of a split leaves the other target's rows out).
 *
 * <p>Immutable and thread-safe.
 *
 * @param workflow the workflow; keys the diff state on every target
 * @param keyspace the keyspace, which is also the database name on every shard
 * @param source the source shard's server
 * @param targets the target shards: their ranges and servers, at least one, none overlapping
 * @param tables the tables to compare
 * @param vschema the keyspace's vschema: each table's primary vindex places its rows
 * @param sourceRange the source shard's range when a target also holds rows of other sources (a
 *     merge): a target row whose keyspace id is outside it belongs to another source's diff and is
 *     left out; null to compare every target row (a split, whose targets hold only this source's
 *     rows)
 */
public record DiffSpec(
    String workflow,
    String keyspace,
    JdbcEndpoint source,
    List<TargetShard> targets,
    List<String> tables,
    VSchema vschema,
    KeyRange sourceRange) {

  /**
   * Checks the spec.
   *
   * @throws IllegalArgumentException if there is no table or no target, or two targets overlap
   */
  public DiffSpec {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(vschema, "vschema");
    targets = List.copyOf(targets);
    tables = List.copyOf(tables);
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("diff of workflow " + workflow + " names no table");
    }
    if (targets.isEmpty()) {
      throw new IllegalArgumentException("diff of workflow " + workflow + " names no target");
    }
    for (int i = 0; i < targets.size(); i++) {
      for (int j = i + 1; j < targets.size(); j++) {
        if (targets.get(i).range().intersects(targets.get(j).range())) {
          throw new IllegalArgumentException(
              "diff of workflow "
                  + workflow
                  + ": target ranges "
                  + targets.get(i).name()
                  + " and "
                  + targets.get(j).name()
                  + " overlap");
        }
      }
    }
  }

  /** A diff whose targets hold only this source's rows: every target row is compared. */
  public DiffSpec(
      String workflow,
      String keyspace,
      JdbcEndpoint source,
      List<TargetShard> targets,
      List<String> tables,
      VSchema vschema) {
    this(workflow, keyspace, source, targets, tables, vschema, null);
  }

  /** The diff of one target: the source's rows restricted to that target's range. */
  public DiffSpec(
      String workflow,
      String keyspace,
      JdbcEndpoint source,
      TargetShard target,
      List<String> tables,
      VSchema vschema) {
    this(
        workflow,
        keyspace,
        source,
        List.of(Objects.requireNonNull(target, "target")),
        tables,
        vschema);
  }

  /**
   * The only target of a one-target spec.
   *
   * @throws IllegalStateException if the spec has several targets
   */
  public TargetShard target() {
    if (targets.size() != 1) {
      throw new IllegalStateException(
          "diff of workflow " + workflow + " has " + targets.size() + " targets, not one");
    }
    return targets.get(0);
  }

  /** Whether a target row of keyspace id {@code ksid} is this diff's to compare. */
  public boolean comparesTargetRow(KeyspaceId ksid) {
    return sourceRange == null || sourceRange.contains(ksid);
  }

  /** The index in {@link #targets()} of the target whose range holds {@code ksid}, or -1. */
  public int targetIndexOf(KeyspaceId ksid) {
    for (int i = 0; i < targets.size(); i++) {
      if (targets.get(i).range().contains(ksid)) {
        return i;
      }
    }
    return -1;
  }

  /** The targets' shard names, in order, e.g. {@code [-80, 80-]}. */
  public List<String> targetNames() {
    return targets.stream().map(TargetShard::name).toList();
  }
}
