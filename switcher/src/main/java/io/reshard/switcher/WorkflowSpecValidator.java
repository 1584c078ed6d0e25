package io.reshard.switcher;

import io.reshard.router.KeyRange;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The rules a request for a new workflow must pass before its {@link WorkflowSpec} exists and
 * before anything is written: a usable name not taken yet, the keyspace's shard map and the source
 * shard in it, no other unfinished workflow on that shard, and one known server of its own per
 * target that holds no shard of the keyspace (one database per keyspace per server, DESIGN 2). The
 * checks that need the shard servers themselves are {@link CreatePhase}'s.
 *
 * <p>Errors: {@link IllegalArgumentException} for a malformed request (a bad name, a missing or
 * malformed parameter, an unknown server, as many target servers as targets) and {@link
 * SwitchRefusedException} for one that the keyspace's state refuses; the first problem found ends
 * the check, in the order above. Thread-safe if its collaborators are.
 */
public final class WorkflowSpecValidator {
  /** Workflow names: they key the workflows topic and name the copy state in the targets. */
  private static final String NAME_PATTERN = "[A-Za-z0-9][A-Za-z0-9_.-]{0,63}";

  /** Chooses the servers of a new workflow's targets when the request names none. */
  @FunctionalInterface
  public interface DefaultTargets {
    /**
     * @param keyspace the keyspace
     * @param targets the target shard names
     * @param inUse the servers that already hold a shard of the keyspace
     * @return one server per target, in order
     * @throws IllegalArgumentException if there are not enough
     */
    List<String> defaultTargets(String keyspace, List<String> targets, Set<String> inUse);
  }

  /**
   * A request that passed every rule.
   *
   * @param name the workflow's name
   * @param keyspace its keyspace
   * @param source the source shard's name (lower case)
   * @param targets the target shards' names (lower case), in the request's order
   * @param targetServers the target shards' servers, in the same order
   * @param servers the server of every shard of the workflow, the source first
   */
  public record Request(
      String name,
      String keyspace,
      String source,
      List<String> targets,
      List<String> targetServers,
      Map<String, String> servers) {

    /** Copies the collections. */
    public Request {
      targets = List.copyOf(targets);
      targetServers = List.copyOf(targetServers);
      servers = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(servers));
    }
  }

  private final WorkflowStore store;
  private final Function<String, Optional<ShardMap>> maps;
  private final Predicate<String> knownServer;
  private final DefaultTargets defaultTargets;

  /**
   * @param store the stored workflows
   * @param maps the newest shard map of a keyspace, empty if it has none
   * @param knownServer whether a server of that name is known
   * @param defaultTargets the servers of targets a request does not place
   */
  public WorkflowSpecValidator(
      WorkflowStore store,
      Function<String, Optional<ShardMap>> maps,
      Predicate<String> knownServer,
      DefaultTargets defaultTargets) {
    this.store = store;
    this.maps = maps;
    this.knownServer = knownServer;
    this.defaultTargets = defaultTargets;
  }

  /**
   * Checks the rule for workflow names, which key the workflows topic and name the copy state in
   * the targets: a letter or digit, then letters, digits, '.', '_' and '-', at most 64 in all. The
   * operator CLI applies it too, before it sends a request.
   *
   * @throws IllegalArgumentException naming the rule if {@code name} breaks it
   */
  public static void checkName(String name) {
    if (!name.matches(NAME_PATTERN)) {
      throw new IllegalArgumentException(
          "workflow name " + name + ": use letters, digits, '.', '_' and '-' (at most 64)");
    }
  }

  /**
   * Checks a request for a new workflow.
   *
   * @param name the workflow's name
   * @param params {@code keyspace}, {@code source}, {@code targets} (comma-separated shard names)
   *     and optionally {@code target_servers} (comma-separated, one per target)
   * @return the request with every shard's server
   * @throws IllegalArgumentException if the request is malformed
   * @throws SwitchRefusedException if the keyspace's state refuses it; nothing was written
   */
  public Request validate(String name, Map<String, String> params) {
    checkName(name);
    if (store.load(name).isPresent()) {
      throw new SwitchRefusedException(
          "a workflow named " + name + " exists already; choose another name");
    }
    String keyspace = required(params, "keyspace");
    String source = required(params, "source").toLowerCase(Locale.ROOT);
    List<String> targets =
        List.of(required(params, "targets").toLowerCase(Locale.ROOT).split(",")).stream()
            .map(String::strip)
            .toList();
    targets.forEach(KeyRange::parse);
    ShardMap map =
        maps.apply(keyspace)
            .orElseThrow(
                () ->
                    new SwitchRefusedException(
                        "keyspace "
                            + keyspace
                            + " has no shard map; run `reshard keyspace init` first"));
    Shard from =
        map.shard(KeyRange.parse(source))
            .orElseThrow(
                () ->
                    new SwitchRefusedException(
                        "keyspace "
                            + keyspace
                            + " has no shard "
                            + source
                            + "; its shards are "
                            + map.shards().stream().map(Shard::name).toList()));
    refuseIfSourceMoving(keyspace, source);
    Set<String> inUse = serversInUse(keyspace, map);
    List<String> targetServers =
        params.containsKey("target_servers")
            ? List.of(params.get("target_servers").split(",")).stream().map(String::strip).toList()
            : defaultTargets.defaultTargets(keyspace, targets, inUse);
    if (targetServers.size() != targets.size()) {
      throw new IllegalArgumentException(
          targets.size() + " targets but " + targetServers.size() + " target servers");
    }
    refuseSharedServers(keyspace, targetServers, inUse);
    Map<String, String> servers = new LinkedHashMap<>();
    servers.put(source, from.endpoint());
    for (int i = 0; i < targets.size(); i++) {
      if (!knownServer.test(targetServers.get(i))) {
        throw new IllegalArgumentException(
            "target server " + targetServers.get(i) + " is not known to this daemon");
      }
      servers.put(targets.get(i), targetServers.get(i));
    }
    return new Request(name, keyspace, source, targets, targetServers, servers);
  }

  /** One workflow at a time moves a shard: a second one would copy into the same targets' rows. */
  private void refuseIfSourceMoving(String keyspace, String source) {
    for (Workflow w : store.list()) {
      if (w.keyspace().equals(keyspace)
          && !w.state().isTerminal()
          && (w.sources().contains(source) || w.targets().contains(source))) {
        throw new SwitchRefusedException(
            "shard "
                + source
                + " of "
                + keyspace
                + " is already in workflow "
                + w.name()
                + " ("
                + w.state()
                + "); complete or cancel that one first. Nothing was written");
      }
    }
  }

  /**
   * Each target needs a server of its own that holds no shard of the keyspace: one database per
   * keyspace per server (DESIGN 2).
   */
  private static void refuseSharedServers(
      String keyspace, List<String> targetServers, Set<String> inUse) {
    List<String> problems = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String t : targetServers) {
      if (!seen.add(t)) {
        problems.add("server " + t + " is named for two targets");
      } else if (inUse.contains(t)) {
        problems.add(
            "server "
                + t
                + " already holds a shard of "
                + keyspace
                + " (in the shard map or in a workflow)");
      }
    }
    if (!problems.isEmpty()) {
      throw new SwitchRefusedException(
          "workflow not created: "
              + String.join("; ", problems)
              + "; each target needs a server of its own. Nothing was written");
    }
  }

  /** The servers that hold a shard of {@code keyspace} now or in one of its workflows. */
  private Set<String> serversInUse(String keyspace, ShardMap map) {
    Set<String> used = new HashSet<>();
    map.shards().forEach(s -> used.add(s.endpoint()));
    for (Workflow w : store.list()) {
      if (w.keyspace().equals(keyspace) && w.state() != WorkflowState.CANCELLED) {
        used.addAll(w.servers().values());
      }
    }
    return used;
  }

  private static String required(Map<String, String> p, String key) {
    String v = p.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("parameter " + key + " is required");
    }
    return v.strip();
  }
}
