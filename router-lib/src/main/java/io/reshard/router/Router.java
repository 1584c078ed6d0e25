package io.reshard.router;

import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What an application embeds to use a sharded keyspace: it routes each query by the row's sharding
 * key to the shard that holds it, under the newest shard map its {@link ShardMapSource} has seen.
 *
 * <ul>
 *   <li>Targeted reads ({@link #query}): one shard, chosen by the table's primary vindex.
 *   <li>Lookup reads ({@link #queryByLookup}): the lookup table's shard, then the row's shard.
 *   <li>Scatter reads ({@link #scatter}, {@link #scatterOrdered}, {@link #scatterCount}): every
 *       shard of the read partition in parallel, merged; with an order and a limit each shard is
 *       asked for the limit and the merge keeps the first {@code limit}. Only the read partition is
 *       asked, so a row held on both sides of a running workflow is never returned twice.
 *   <li>Writes ({@link #inTransaction}, {@link #insert}, {@link #delete}): fenced per shard ({@link
 *       RouterTransaction}), retried and buffered across cutovers ({@link WriteRetry}).
 *   <li>Ids ({@link #nextId}, and {@link #insert} for a row without its id): from the {@link
 *       Sequence} the table's {@link AutoIncrement} names, in a sequence keyspace given to {@link
 *       RouterBuilder#sequenceKeyspace}.
 * </ul>
 *
 * <p>Reads are not fenced: a router that has not yet seen a new map reads the old owner, which may
 * be stale but never loses a row (DESIGN 4.3). Thread-safe; close it to release its pools.
 */
public final class Router implements AutoCloseable {
  private final ShardMapSource maps;
  private final RouterConfig config;
  private final ShardPools pools;
  private final RouterMetrics metrics;
  private final Scatter scatter;
  private final WriteRetry writes;
  private final Sequences sequences;
  private final String keyspace;

  Router(
      ShardMapSource maps,
      EndpointResolver endpoints,
      RouterConfig config,
      MeterRegistry registry,
      List<ShardMapSource> sequenceKeyspaces) {
    this.maps = maps;
    this.config = config;
    this.keyspace = maps.current().keyspace();
    this.sequences = new Sequences(sequenceKeyspaces, endpoints, config);
    this.pools = new ShardPools(keyspace, endpoints, config);
    this.metrics = new RouterMetrics(registry, keyspace);
    this.scatter = new Scatter(this, config.scatterThreads());
    this.writes = new WriteRetry(this, config);
    // pools for every server a map names, before the first query needs one: the targets of a
    // workflow appear in the map (reads switched) before writes move to them
    maps.addListener(pools::warm);
    pools.warm(maps.current());
  }

  /**
   * A router for the keyspace of {@code maps}' current map.
   *
   * @throws ReshardException if {@code maps} has no map yet
   */
  public static Router create(
      ShardMapSource maps, EndpointResolver endpoints, RouterConfig config) {
    return builder(maps, endpoints).config(config).build();
  }

  /**
   * As {@link #create(ShardMapSource, EndpointResolver, RouterConfig)}, with metrics bound to
   * {@code registry}.
   */
  public static Router create(
      ShardMapSource maps,
      EndpointResolver endpoints,
      RouterConfig config,
      MeterRegistry registry) {
    return builder(maps, endpoints).config(config).meterRegistry(registry).build();
  }

  /**
   * A builder of a router for the keyspace of {@code maps}' current map, whose endpoints {@code
   * endpoints} resolves (those of its sequence keyspaces too).
   */
  public static RouterBuilder builder(ShardMapSource maps, EndpointResolver endpoints) {
    return new RouterBuilder(maps, endpoints);
  }

  public String keyspace() {
    return keyspace;
  }

  /** The newest shard map seen. */
  public ShardMap shardMap() {
    return maps.current();
  }

  public RouterMetrics metrics() {
    return metrics;
  }

  /**
   * A targeted read: runs {@code sql} on the shard that serves reads for {@code shardingKey} of
   * {@code table}.
   *
   * @throws UnmappableValueException if the key has no keyspace id (NULL, wrong type)
   * @throws ShardQueryException if the query fails
   */
  public List<Map<String, Object>> query(
      String table, Object shardingKey, String sql, Object... params) {
    ShardMap map = maps.current();
    Shard shard = map.readShardFor(keyspaceId(map, table, shardingKey));
    metrics.read("targeted", 1);
    return onShard(shard, sql, params);
  }

  /**
   * Resolves {@code value} of {@code column} through the table's lookup vindex to the row's primary
   * vindex value (one query on the lookup table's shard).
   *
   * <p>A lookup row whose data row is gone (a crash between the two deletes, see {@link #delete})
   * still resolves; {@link #queryByLookup} then finds no row, which is the right answer.
   *
   * @return the primary vindex value, or empty if the lookup table has no row for {@code value}
   */
  public Optional<Object> lookup(String table, String column, Object value) {
    ShardMap map = maps.current();
    LookupVindexSpec spec = Lookups.spec(map.vschema(), table, column);
    String lookupTable = Lookups.tableName(spec);
    Shard shard = map.readShardFor(keyspaceId(map, lookupTable, value));
    List<Map<String, Object>> rows =
        onShard(
            shard,
            "SELECT "
                + q(spec.toColumn())
                + " FROM "
                + q(lookupTable)
                + " WHERE "
                + q(spec.fromColumns().get(0))
                + " = ?",
            value);
    return rows.isEmpty()
        ? Optional.empty()
        : Optional.ofNullable(rows.get(0).values().iterator().next());
  }

  /**
   * A read through a lookup vindex: resolves {@code value} of {@code column} to the row's shard,
   * then runs {@code sql} there. Two shard queries, or one if the lookup finds nothing.
   */
  public List<Map<String, Object>> queryByLookup(
      String table, String column, Object value, String sql, Object... params) {
    Optional<Object> key = lookup(table, column, value);
    if (key.isEmpty()) {
      metrics.read("lookup", 1);
      return List.of();
    }
    ShardMap map = maps.current();
    LookupVindexSpec spec = Lookups.spec(map.vschema(), table, column);
    KeyspaceId ksid =
        "keyspace_id".equalsIgnoreCase(spec.toColumn())
            ? KeyspaceId.of((byte[]) key.get())
            : keyspaceId(map, table, key.get());
    Shard shard = map.readShardFor(ksid);
    metrics.read("lookup", 2);
    return onShard(shard, sql, params);
  }

  /** A scatter read: {@code sql} on every read shard, rows concatenated in shard order. */
  public List<Map<String, Object>> scatter(String sql, Object... params) {
    return scatter.all(maps.current(), sql, params);
  }

  /**
   * A scatter read with an order and a limit: {@code sql} must itself end in {@code ORDER BY ...
   * LIMIT limit} so that each shard returns at most {@code limit} rows; the merge sorts them by
   * {@code order} and keeps the first {@code limit}.
   */
  public List<Map<String, Object>> scatterOrdered(
      String sql, Comparator<Map<String, Object>> order, int limit, Object... params) {
    return scatter.ordered(maps.current(), sql, order, limit, params);
  }

  /** A scatter count: {@code sql} returns one number per shard; the result is their sum. */
  public long scatterCount(String sql, Object... params) {
    return scatter.count(maps.current(), sql, params);
  }

  /**
   * Runs a fenced write transaction, committing at the end. Refusals by a fence are retried on the
   * new owner once a newer shard map arrives (buffered up to the buffer window); deadlocks are
   * retried; attempts are bounded.
   *
   * @throws ShardSwitchingException if no newer map arrived within the buffer window
   * @throws CrossShardTransactionException in single mode, if the work touches two shards
   * @throws StaleShardMapException if every attempt was refused
   */
  public <T> T inTransaction(TransactionWork<T> work) {
    return writes.run(work);
  }

  /** A fenced transaction under the current map, without retries or buffering: close it. */
  public RouterTransaction begin() {
    return new RouterTransaction(this, maps.current());
  }

  /**
   * The next id of {@code table}'s auto_increment column, from the sequence its vschema names
   * ({@link AutoIncrement}): unique across every router, thread and restart ({@link Sequence}).
   * Most calls take it from a block held in memory; one in {@code cache} reserves the next block in
   * one short transaction on the sequence keyspace's server.
   *
   * @throws IllegalArgumentException if the vschema has no such table or it has no auto_increment
   * @throws ReshardException if the sequence keyspace was not given to the builder, or the sequence
   *     table cannot be used (the message says why and what to do)
   */
  public long nextId(String table) {
    VSchemaTable t =
        maps.current()
            .vschema()
            .table(table)
            .orElseThrow(
                () -> new IllegalArgumentException("the vschema has no table \"" + table + "\""));
    AutoIncrement ai =
        t.autoIncrement()
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "table "
                            + table
                            + " has no \"auto_increment\" in the vschema, so no sequence gives"
                            + " its ids"));
    return sequences.of(table, ai).next();
  }

  /**
   * Inserts {@code row} into {@code table}: first the row of every lookup vindex of the table, each
   * in its own transaction on its lookup table's shard, then the data row. A crash in between
   * leaves a lookup row without a data row, which reads tolerate (the lookup leads to a shard that
   * has no such row); never a data row that its lookup cannot find.
   *
   * <p>If the table has an {@code auto_increment} and {@code row} leaves its column out or passes
   * NULL, the column is filled with {@link #nextId} first (it may be the sharding column: the row
   * is placed by the id it gets). A value the row passes is written as it is, as in Vitess.
   *
   * @return the row as written, with the id filled in
   */
  public Map<String, Object> insert(String table, Map<String, Object> row) {
    row = withId(table, row);
    ShardMap map = maps.current();
    Object key = row.get(Lookups.primaryColumn(map.vschema(), table));
    for (LookupVindexSpec spec : Lookups.specs(map.vschema(), table)) {
      String lt = Lookups.tableName(spec);
      Object from = row.get(spec.fromColumns().get(0));
      Object to = Lookups.toValue(spec, map, table, key);
      inTransaction(
          tx ->
              tx.update(
                  lt,
                  from,
                  "INSERT INTO "
                      + q(lt)
                      + " ("
                      + q(spec.fromColumns().get(0))
                      + ", "
                      + q(spec.toColumn())
                      + ") VALUES (?, ?)",
                  from,
                  to));
    }
    String columns = String.join(", ", row.keySet().stream().map(Router::q).toList());
    String marks = String.join(", ", row.keySet().stream().map(c -> "?").toList());
    Object[] values = row.values().toArray();
    inTransaction(
        tx ->
            tx.update(
                table,
                key,
                "INSERT INTO " + q(table) + " (" + columns + ") VALUES (" + marks + ")",
                values));
    return row;
  }

  /** {@code row}, or a copy with its auto_increment column filled from the sequence. */
  private Map<String, Object> withId(String table, Map<String, Object> row) {
    Optional<AutoIncrement> ai =
        maps.current().vschema().table(table).flatMap(VSchemaTable::autoIncrement);
    if (ai.isEmpty() || row.get(ai.get().column()) != null) {
      return row;
    }
    Map<String, Object> filled = new LinkedHashMap<>(row);
    filled.put(ai.get().column(), nextId(table));
    return filled;
  }

  /**
   * Deletes the rows of {@code table} equal to {@code row} on every given column, then their lookup
   * rows (the reverse order of {@link #insert}).
   *
   * @param row must hold the primary vindex column and every lookup vindex's column
   * @return the number of data rows deleted
   */
  public int delete(String table, Map<String, Object> row) {
    ShardMap map = maps.current();
    Object key = row.get(Lookups.primaryColumn(map.vschema(), table));
    String where = String.join(" AND ", row.keySet().stream().map(c -> q(c) + " = ?").toList());
    int deleted =
        inTransaction(
            tx ->
                tx.update(
                    table,
                    key,
                    "DELETE FROM " + q(table) + " WHERE " + where,
                    row.values().toArray()));
    for (LookupVindexSpec spec : Lookups.specs(map.vschema(), table)) {
      String lt = Lookups.tableName(spec);
      Object from = row.get(spec.fromColumns().get(0));
      inTransaction(
          tx ->
              tx.update(
                  lt,
                  from,
                  "DELETE FROM " + q(lt) + " WHERE " + q(spec.fromColumns().get(0)) + " = ?",
                  from));
    }
    return deleted;
  }

  @Override
  public void close() {
    scatter.close();
    pools.close();
    sequences.close();
  }

  // --- for the package: routing, connections, config

  KeyspaceId keyspaceId(ShardMap map, String table, Object shardingKey) {
    metrics.key(table, shardingKey);
    return map.vschema().primaryVindex(table).functional().keyspaceId(shardingKey);
  }

  Shard writeShard(ShardMap map, String table, Object shardingKey) {
    return map.writeShardFor(keyspaceId(map, table, shardingKey));
  }

  List<Map<String, Object>> onShard(Shard shard, String sql, Object... params) {
    metrics.shardQuery(shard.name());
    try (Connection c = pools.connect(shard)) {
      return Rows.query(c, sql, params);
    } catch (SQLException e) {
      throw new ShardQueryException(shard.name(), "query `" + sql + "`", e);
    }
  }

  ShardPools pools() {
    return pools;
  }

  RouterConfig config() {
    return config;
  }

  ShardMapSource shardMaps() {
    return maps;
  }

  static String q(String identifier) {
    return "`" + identifier.replace("`", "``") + "`";
  }
}
