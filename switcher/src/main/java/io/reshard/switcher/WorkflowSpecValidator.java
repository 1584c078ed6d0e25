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
 * before anything is written: a workflow name ({@link NameRules}) not taken yet, a keyspace name
 * ({@link NameRules}) with a shard map and the source shards in it (one for a split, several
 * adjacent ones for a merge or a re-partition), targets that divide the sources' range exactly
 * ({@link TargetRanges}: each target equal to a source's range or outside it named on its own), no
 * other unfinished workflow on those shards, and one known server of its own per target that holds
 * no shard of the keyspace (one database per keyspace per server, DESIGN 2). The checks that need
 * the shard servers themselves are {@link CreatePhase}'s.
 *
 * <p>Errors: {@link IllegalArgumentException} for a malformed request (a bad workflow name, a
 * missing or malformed parameter, an unknown server, not as many target servers as targets), the
 * first one found; otherwise one {@link SwitchRefusedException} naming every reason the keyspace's
 * state refuses it. Thread-safe if its collaborators are.
 */
public final class WorkflowSpecValidator {
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
   * @param sources the source shards' names (lower case), in the request's order
   * @param targets the target shards' names (lower case), in the request's order
   * @param targetServers the target shards' servers, in the same order
   * @param servers the server of every shard of the workflow, the sources first
   */
  public record Request(
      String name,
      String keyspace,
      List<String> sources,
      List<String> targets,
      List<String> targetServers,
      Map<String, String> servers) {

    /** Copies the collections. */
    public Request {
      sources = List.copyOf(sources);
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
    NameRules.workflowProblem(name)
        .ifPresent(
            p -> {
              throw new IllegalArgumentException(p);
            });
  }

  /**
   * Checks a request for a new workflow.
   *
   * @param name the workflow's name
   * @param params {@code keyspace}, {@code source} and {@code targets} (each comma-separated shard
   *     names) and optionally {@code target_servers} (comma-separated, one per target)
   * @return the request with every shard's server
   * @throws IllegalArgumentException if the request is malformed
   * @throws SwitchRefusedException naming every reason the keyspace's state refuses it; nothing was
   *     written
   */
  public Request validate(String name, Map<String, String> params) {
    checkName(name);
    String keyspace = required(params, "keyspace");
    List<String> sources = shardList(required(params, "source"));
    List<String> targets = shardList(required(params, "targets"));
    List<KeyRange> sourceRanges = sources.stream().map(KeyRange::parse).toList();
    List<KeyRange> targetRanges = targets.stream().map(KeyRange::parse).toList();
    Optional<List<String>> given = givenTargetServers(params, targets);

    RefusalReasons reasons = new RefusalReasons();
    if (store.load(name).isPresent()) {
      reasons.add("a workflow named " + name + " exists already; choose another name");
    }
    NameRules.keyspaceProblem(keyspace).ifPresent(reasons::add);
    if (new HashSet<>(sources).size() != sources.size()) {
      reasons.add("--source names a shard twice: " + sources + "; name each source once");
    } else {
      reasons.addAll(TargetRanges.problems(sourceRanges, targetRanges));
    }
    Optional<ShardMap> map = maps.apply(keyspace);
    Map<String, Shard> from = new LinkedHashMap<>();
    List<String> targetServers = List.of();
    if (map.isEmpty()) {
      reasons.add(RefusalReasons.noShardMap(keyspace));
    } else {
      for (int i = 0; i < sources.size(); i++) {
        Optional<Shard> shard = map.get().shard(sourceRanges.get(i));
        if (shard.isPresent()) {
          from.put(sources.get(i), shard.get());
        } else {
          reasons.add(
              "keyspace "
                  + keyspace
                  + " has no shard "
                  + sources.get(i)
                  + "; its shards are "
                  + map.get().shards().stream().map(WorkflowSpecValidator::described).toList());
        }
      }
    }
    if (map.isPresent() && from.size() == sources.size()) {
      List<String> moving = new ArrayList<>();
      sources.forEach(source -> moving.addAll(sourceMoving(keyspace, source)));
      reasons.addAll(moving);
      Set<String> inUse = serversInUse(keyspace, map.get());
      try {
        targetServers =
            given.orElseGet(() -> defaultTargets.defaultTargets(keyspace, targets, inUse));
        reasons.addAll(sharedServers(keyspace, targetServers, inUse));
        reasons.addAll(reusedNames(store.list(), keyspace, targets, targetServers));
      } catch (IllegalArgumentException noFreeServer) {
        // one reason among the others (they would stay hidden behind it); unless the workflow
        // moving the source holds the spares: the refusal above already says why
        if (moving.isEmpty()) {
          reasons.add(noFreeServer.getMessage());
        }
      }
    }
    reasons.throwIfAny("workflow " + name + " not created");
    Map<String, String> servers = new LinkedHashMap<>();
    from.forEach((source, shard) -> servers.put(source, shard.endpoint()));
    for (int i = 0; i < targets.size(); i++) {
      servers.put(targets.get(i), targetServers.get(i));
    }
    return new Request(name, keyspace, sources, targets, targetServers, servers);
  }

  /** A shard's name, marked when it serves neither reads nor writes (a source being retired). */
  private static String described(Shard s) {
    return s.servesReads() || s.servesWrites() ? s.name() : s.name() + " (serves nothing)";
  }

  /** A comma-separated list of shard names, lower case, each stripped. */
  private static List<String> shardList(String value) {
    return List.of(value.toLowerCase(Locale.ROOT).split(",")).stream().map(String::strip).toList();
  }

  /**
   * The request's {@code target_servers}, one known server per target, if it names them.
   *
   * @throws IllegalArgumentException if their number is not the targets' or one is unknown
   */
  private Optional<List<String>> givenTargetServers(
      Map<String, String> params, List<String> targets) {
    if (!params.containsKey("target_servers")) {
      return Optional.empty();
    }
    List<String> servers =
        List.of(params.get("target_servers").split(",")).stream().map(String::strip).toList();
    if (servers.size() != targets.size()) {
      throw new IllegalArgumentException(
          "--targets names "
              + targets.size()
              + (targets.size() == 1 ? " shard" : " shards")
              + " but --target-servers "
              + servers.size()
              + (servers.size() == 1 ? " server" : " servers")
              + ": give one server per target, in the same order; nothing was written");
    }
    for (String s : servers) {
      if (!knownServer.test(s)) {
        throw new IllegalArgumentException(
            "target server "
                + s
                + " is not known to this daemon (it knows the servers of its cluster directory or"
                + " --config): name one of those, or add the server there and restart the daemon;"
                + " nothing was written");
      }
    }
    return Optional.of(servers);
  }

  /** One workflow at a time moves a shard: a second one would copy into the same targets' rows. */
  private List<String> sourceMoving(String keyspace, String source) {
    List<String> problems = new ArrayList<>();
    for (Workflow w : store.list()) {
      if (w.keyspace().equals(keyspace)
          && !w.state().isTerminal()
          && (w.sources().contains(source) || w.targets().contains(source))) {
        problems.add(
            "shard "
                + source
                + " of "
                + keyspace
                + " is already in workflow "
                + w.name()
                + " ("
                + w.state()
                + "); complete or cancel that one first");
      }
    }
    return problems;
  }

  /**
   * Each target needs a server of its own that holds no shard of the keyspace: one database per
   * keyspace per server (DESIGN 2).
   */
  private static List<String> sharedServers(
      String keyspace, List<String> targetServers, Set<String> inUse) {
    List<String> problems = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String t : targetServers) {
      if (!seen.add(t)) {
        problems.add(
            "server " + t + " is named for two targets; each target needs a server of its own");
      } else if (inUse.contains(t)) {
        problems.add(
            "server "
                + t
                + " already holds a shard of "
                + keyspace
                + " (in the shard map or in a workflow); each target needs a server of its own");
      }
    }
    return problems;
  }

  /**
   * A target may not take the name of an earlier shard of the keyspace that was captured on another
   * server (DESIGN 6). A shard's change topic and its stored capture position are named by keyspace
   * and shard: a new shard of that name on another server would resume capture from the old
   * server's binlog position, and its streams would take the old server's changes in the topic for
   * its own. A shard was captured if it was a workflow's source, or a target of a workflow that
   * recorded a hand-over of writes; a target of a workflow cancelled before any switch never was.
   *
   * @param targetServers one per target, in order
   */
  static List<String> reusedNames(
      List<Workflow> workflows, String keyspace, List<String> targets, List<String> targetServers) {
    List<String> problems = new ArrayList<>();
    for (int i = 0; i < targets.size(); i++) {
      String target = targets.get(i);
      String server = targetServers.get(i);
      for (Workflow w : workflows) {
        String before = w.servers().get(target);
        boolean captured =
            w.sources().contains(target)
                || (w.targets().contains(target) && !w.handOvers().isEmpty());
        if (w.keyspace().equals(keyspace) && captured && before != null && !before.equals(server)) {
          problems.add(
              "target "
                  + target
                  + " has the name of an earlier shard of "
                  + keyspace
                  + ", captured on "
                  + before
                  + " (workflow "
                  + w.name()
                  + "): its change topic and stored capture position hold that server's changes"
                  + " and binlog position, which a new "
                  + target
                  + " on "
                  + server
                  + " would take for its own. Giving a shard's name to another server is not"
                  + " supported yet, so a merge back onto a retired range is not possible; choose"
                  + " targets no earlier shard had, e.g. merge with a neighbouring shard into a"
                  + " wider range, or keep the shards as they are (docs/workflow.md \"Shard"
                  + " names\")");
          break;
        }
      }
    }
    return problems;
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
