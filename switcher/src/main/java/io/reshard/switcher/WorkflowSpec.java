package io.reshard.switcher;

import io.reshard.router.VSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a workflow moves and where its infrastructure is. Immutable.
 *
 * @param name the workflow's name
 * @param keyspace the keyspace (a database of that name on every shard server)
 * @param vschema the keyspace's vschema; its sharded tables are the moved tables
 * @param sources the source shards (one for a split)
 * @param targets the target shards; their ranges must partition the sources' ranges
 * @param bootstrap Kafka bootstrap servers
 * @param topicPrefix the change topics' prefix
 * @param shardMapTopic the shard map topic
 * @param maxLag the largest apply lag at which writes may switch
 * @param fenceLockWait how long the fence update may wait for router transactions in flight
 * @param catchUpTimeout how long the switch waits for the targets to apply G before rolling back
 * @param autoIncrement whether create refuses a moved AUTO_INCREMENT table without a sequence
 * @param sequenceServers the server of each sequence keyspace the vschema's {@code auto_increment}s
 *     name, by keyspace (the one shard {@code -} of that unsharded keyspace); one not known here is
 *     a reason {@code create} refuses
 * @param triggers what the workflow does with triggers on moved tables (DESIGN 4.11)
 */
public record WorkflowSpec(
    String name,
    String keyspace,
    VSchema vschema,
    List<ShardServer> sources,
    List<ShardServer> targets,
    String bootstrap,
    String topicPrefix,
    String shardMapTopic,
    Duration maxLag,
    Duration fenceLockWait,
    Duration catchUpTimeout,
    AutoIncrementMode autoIncrement,
    Map<String, ShardServer> sequenceServers,
    TriggerMode triggers) {

  /** Copies the lists and maps; a null trigger mode is {@link TriggerMode#REFUSE}. */
  public WorkflowSpec {
    sources = List.copyOf(sources);
    targets = List.copyOf(targets);
    sequenceServers = Map.copyOf(sequenceServers);
    triggers = triggers == null ? TriggerMode.REFUSE : triggers;
  }

  /**
   * A spec with {@link AutoIncrementMode#SEQUENCE}, no sequence server known, and {@link
   * TriggerMode#REFUSE}.
   */
  public WorkflowSpec(
      String name,
      String keyspace,
      VSchema vschema,
      List<ShardServer> sources,
      List<ShardServer> targets,
      String bootstrap,
      String topicPrefix,
      String shardMapTopic,
      Duration maxLag,
      Duration fenceLockWait,
      Duration catchUpTimeout) {
    this(
        name,
        keyspace,
        vschema,
        sources,
        targets,
        bootstrap,
        topicPrefix,
        shardMapTopic,
        maxLag,
        fenceLockWait,
        catchUpTimeout,
        AutoIncrementMode.SEQUENCE,
        Map.of(),
        TriggerMode.REFUSE);
  }

  /** This spec with another {@code --auto-increment} choice and the sequence keyspaces' servers. */
  public WorkflowSpec withAutoIncrement(
      AutoIncrementMode mode, Map<String, ShardServer> sequenceServers) {
    return new WorkflowSpec(
        name,
        keyspace,
        vschema,
        sources,
        targets,
        bootstrap,
        topicPrefix,
        shardMapTopic,
        maxLag,
        fenceLockWait,
        catchUpTimeout,
        mode,
        sequenceServers,
        triggers);
  }

  /** This spec with another trigger mode (a create's {@code --triggers}, or the record's). */
  public WorkflowSpec withTriggers(TriggerMode mode) {
    return new WorkflowSpec(
        name,
        keyspace,
        vschema,
        sources,
        targets,
        bootstrap,
        topicPrefix,
        shardMapTopic,
        maxLag,
        fenceLockWait,
        catchUpTimeout,
        autoIncrement,
        sequenceServers,
        mode);
  }

  /** This spec with another catch-up timeout (a switch's {@code --timeout}). */
  public WorkflowSpec withCatchUpTimeout(Duration timeout) {
    return new WorkflowSpec(
        name,
        keyspace,
        vschema,
        sources,
        targets,
        bootstrap,
        topicPrefix,
        shardMapTopic,
        maxLag,
        fenceLockWait,
        timeout,
        autoIncrement,
        sequenceServers,
        triggers);
  }

  /** The sources, then the targets. */
  public List<ShardServer> servers() {
    List<ShardServer> all = new java.util.ArrayList<>(sources);
    all.addAll(targets);
    return all;
  }

  /**
   * The key under which the copy and the diff of {@code source} keep their progress on the targets
   * ({@code _reshard.copy_state}, {@code _reshard.diff_state}): the workflow's name for a workflow
   * of one source, {@code NAME/SOURCE} when several sources write into one target.
   */
  public String stateKey(ShardServer source) {
    return sources.size() == 1 ? name : name + "/" + source.shard();
  }

  /** The longest {@link #stateKey} the targets' state tables can hold. */
  public static final int MAX_STATE_KEY = 64;

  /** The moved tables: every table with a primary vindex in the vschema. */
  public List<String> tables() {
    return vschema.tables().values().stream()
        .filter(t -> t.primaryVindex().isPresent())
        .map(io.reshard.router.VSchemaTable::name)
        .toList();
  }

  /** The targets whose ranges meet {@code source}'s: those it copies, streams and diffs into. */
  public List<ShardServer> targetsOverlapping(ShardServer source) {
    return overlapping(targets, source);
  }

  /** The sources whose ranges meet {@code target}'s: those it receives rows from. */
  public List<ShardServer> sourcesOverlapping(ShardServer target) {
    return overlapping(sources, target);
  }

  private static List<ShardServer> overlapping(List<ShardServer> shards, ShardServer of) {
    return shards.stream().filter(s -> s.range().intersects(of.range())).toList();
  }
}
