package io.reshard.switcher;

import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapConflictException;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Replaces a keyspace's vschema ({@code reshard keyspace set-vschema}): publishes the next version
 * of its shard map with the same shards, servers, roles and epochs and the new vschema ({@link
 * ShardMap#next} keeps every epoch, since no shard's write ownership changes), through the
 * keyspace's fenced {@link ShardMapPublisher}. Routers pick the new vschema up with the new
 * version. The rows stay where they are: a vschema that places a table's rows differently from how
 * they were placed makes routers look for them on other shards.
 *
 * <p>Refuses, naming every reason at once and with nothing written anywhere: a keyspace name
 * outside {@link NameRules}; a keyspace without a shard map; an unfinished workflow of the keyspace
 * (its copy, streams and diff place rows by the vschema they started with); and everything {@link
 * VSchemaCheck} finds in the new vschema and on the server of every shard in the map, existing rows
 * included. The map and the workflows are read without writing; the publisher, whose opening fences
 * every other publisher of the keyspace, is opened only once every check has passed. A version
 * published by someone else in between is caught by the publisher's version check, and nothing is
 * written then either.
 *
 * <p>Not thread-safe; run once.
 */
public final class SetVSchemaPhase implements Phase {

  /** The server of a shard the map names by its endpoint reference. */
  @FunctionalInterface
  public interface ServerResolver {
    /**
     * @param endpointRef the shard map's reference to the server
     * @param shard the shard's name
     * @throws IllegalArgumentException if no such server is known
     */
    ShardServer server(String endpointRef, String shard);
  }

  /**
   * What the step did.
   *
   * @param map the keyspace's newest map now
   * @param published false if that map already had this vschema, so nothing was published
   */
  public record Result(ShardMap map, boolean published) {}

  private final String keyspace;
  private final VSchema vschema;
  private final ShardMapTopicConfig topic;
  private final WorkflowStore workflows;
  private final ServerResolver servers;

  /**
   * @param keyspace the keyspace
   * @param vschema its new vschema
   * @param topic the shard map topic
   * @param workflows the stored workflows, as the daemon keeps them
   * @param servers the servers of the map's shards
   */
  public SetVSchemaPhase(
      String keyspace,
      VSchema vschema,
      ShardMapTopicConfig topic,
      WorkflowStore workflows,
      ServerResolver servers) {
    this.keyspace = keyspace;
    this.vschema = vschema;
    this.topic = topic;
    this.workflows = workflows;
    this.servers = servers;
  }

  @Override
  public String name() {
    return "keyspace set-vschema";
  }

  /**
   * Runs the step.
   *
   * @return the newest map and whether this step published it
   * @throws SwitchRefusedException naming every reason it is refused; nothing was written
   * @throws SQLException if a shard's server cannot be read
   */
  public Result run() throws SQLException {
    String subject = "the vschema of keyspace " + keyspace + " not replaced";
    RefusalReasons reasons = new RefusalReasons();
    NameRules.keyspaceProblem(keyspace).ifPresent(reasons::add);
    reasons.throwIfAny(subject);
    List<ShardMap> history = ShardMapTopic.history(topic, keyspace);
    if (history.isEmpty()) {
      reasons.add(RefusalReasons.noShardMap(keyspace));
      reasons.throwIfAny(subject);
    }
    ShardMap current = history.get(history.size() - 1);
    unfinishedWorkflows().forEach(reasons::add);
    VSchemaCheck check = new VSchemaCheck(keyspace, vschema, reasons);
    check.document();
    check.shards(shardServers(current, reasons));
    reasons.throwIfAny(subject);
    if (current.vschema().equals(vschema)) {
      return new Result(current, false);
    }
    ShardMap next =
        current.next(vschema, current.shards().stream().map(Shard::assignment).toList());
    try (ShardMapPublisher publisher = ShardMapPublisher.open(topic, keyspace)) {
      publisher.publish(next);
    } catch (ShardMapConflictException e) {
      throw new SwitchRefusedException(
          subject
              + ": another version of its shard map was published after version "
              + current.version()
              + " was checked ("
              + e.getMessage()
              + "); run the command again. Nothing was written");
    }
    return new Result(next, true);
  }

  /** A workflow that has not finished moves rows by the vschema it started with. */
  private List<String> unfinishedWorkflows() {
    List<String> problems = new ArrayList<>();
    for (Workflow w : workflows.list()) {
      if (w.keyspace().equals(keyspace) && !w.state().isTerminal()) {
        problems.add(
            "workflow "
                + w.name()
                + " ("
                + w.state()
                + ") moves keyspace "
                + keyspace
                + " and places its rows by the vschema it started with; complete or cancel it"
                + " first");
      }
    }
    return problems;
  }

  /** The server of every shard in {@code map}; a shard whose server is unknown is a reason. */
  private List<ShardServer> shardServers(ShardMap map, RefusalReasons reasons) {
    List<ShardServer> out = new ArrayList<>();
    for (Shard s : map.shards()) {
      try {
        out.add(servers.server(s.endpoint(), s.name()));
      } catch (IllegalArgumentException e) {
        reasons.add(
            "shard "
                + s.name()
                + " is on server "
                + s.endpoint()
                + ", which is not known here ("
                + e.getMessage()
                + "); name it in the configuration");
      }
    }
    return out;
  }
}
