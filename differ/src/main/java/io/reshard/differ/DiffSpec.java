package io.reshard.differ;

import io.reshard.copier.CopyTarget;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.VSchema;
import java.util.List;
import java.util.Objects;

/**
 * What one diff compares: the tables of a keyspace on one source shard against one target shard,
 * the source's rows restricted to the target's key range by keyspace id.
 *
 * <p>Immutable and thread-safe.
 *
 * @param workflow the workflow; keys the diff state on the target
 * @param keyspace the keyspace, which is also the database name on every shard
 * @param source the source shard's server
 * @param target the target shard: its range and server
 * @param tables the tables to compare
 * @param vschema the keyspace's vschema: each table's primary vindex places its rows
 */
public record DiffSpec(
    String workflow,
    String keyspace,
    JdbcEndpoint source,
    CopyTarget target,
    List<String> tables,
    VSchema vschema) {

  /** Checks the spec. */
  public DiffSpec {
    Objects.requireNonNull(workflow, "workflow");
    Objects.requireNonNull(keyspace, "keyspace");
    Objects.requireNonNull(source, "source");
    Objects.requireNonNull(target, "target");
    Objects.requireNonNull(vschema, "vschema");
    tables = List.copyOf(tables);
    if (tables.isEmpty()) {
      throw new IllegalArgumentException("diff of workflow " + workflow + " names no table");
    }
  }
}
