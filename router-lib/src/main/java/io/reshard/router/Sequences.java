package io.reshard.router;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The sequences a {@link Router} hands out ids from, one {@link Sequence} per sequence table, and
 * the unsharded keyspaces that hold them: for each, its shard map source (one shard, {@code -},
 * serving writes) and a pool for its database on that shard's server. Thread-safe.
 */
final class Sequences implements AutoCloseable {
  private final Map<String, ShardMapSource> keyspaces = new LinkedHashMap<>();
  private final Map<String, ShardPools> pools = new LinkedHashMap<>();
  private final Map<String, Sequence> sequences = new ConcurrentHashMap<>();

  /**
   * @param sources the shard map sources of the sequence keyspaces, one per keyspace
   * @throws IllegalArgumentException if two sources are of the same keyspace
   */
  Sequences(List<ShardMapSource> sources, EndpointResolver endpoints, RouterConfig config) {
    for (ShardMapSource s : sources) {
      String ks = s.current().keyspace();
      if (keyspaces.put(ks, s) != null) {
        throw new IllegalArgumentException(
            "sequence keyspace " + ks + " was given twice; give each keyspace's source once");
      }
      pools.put(ks, new ShardPools(ks, endpoints, config));
    }
  }

  /**
   * The sequence of {@code table}'s auto_increment.
   *
   * @throws ReshardException if the router was built without the sequence's keyspace, or that
   *     keyspace is not unsharded or does not declare the sequence table
   */
  Sequence of(String table, AutoIncrement ai) {
    return sequences.computeIfAbsent(ai.sequence(), name -> open(table, ai));
  }

  private Sequence open(String table, AutoIncrement ai) {
    String ks = ai.sequenceKeyspace();
    ShardMapSource source = keyspaces.get(ks);
    if (source == null) {
      throw new ReshardException(
          "table "
              + table
              + " takes its "
              + ai.column()
              + " from sequence "
              + ai.sequence()
              + ", but this router was built without keyspace "
              + ks
              + " (known: "
              + keyspaces.keySet()
              + "); build it with Router.builder(...).sequenceKeyspace(<the shard map source of "
              + ks
              + ">), or pass "
              + ai.column()
              + " in the row");
    }
    VSchema vschema = source.current().vschema();
    boolean declared =
        vschema.table(ai.sequenceTable()).map(VSchemaTable::isSequence).orElse(false);
    if (vschema.sharded() || !declared) {
      throw new ReshardException(
          "sequence "
              + ai.sequence()
              + " of table "
              + table
              + ": keyspace "
              + ks
              + " must be unsharded and declare the table as \""
              + ai.sequenceTable()
              + "\": {\"type\": \"sequence\"} in its vschema ("
              + (vschema.sharded() ? "it is sharded" : "it does not")
              + "); set it with `reshard keyspace set-vschema --keyspace "
              + ks
              + "`");
    }
    ShardPools pool = pools.get(ks);
    return new Sequence(ks, ai.sequenceTable(), () -> pool.connect(onlyShard(source.current())));
  }

  /** The one shard of an unsharded keyspace's map. */
  private static Shard onlyShard(ShardMap map) {
    List<Shard> writable = map.shards().stream().filter(Shard::servesWrites).toList();
    if (writable.size() != 1) {
      throw new ReshardException(
          "keyspace "
              + map.keyspace()
              + " holds sequences and must have one shard (-), but "
              + map
              + " has "
              + writable.size()
              + " shards serving writes");
    }
    return writable.get(0);
  }

  @Override
  public void close() {
    pools.values().forEach(ShardPools::close);
  }
}
