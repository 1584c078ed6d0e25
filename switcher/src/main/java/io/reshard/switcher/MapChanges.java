package io.reshard.switcher;

import io.reshard.router.KeyRange;
import io.reshard.router.Shard;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shard map versions a workflow publishes. Each returns version v+1 of {@code current} with the
 * workflow's sources and targets serving what that step says; every other shard is copied
 * unchanged, so its epoch stays and its writes are never disturbed (DESIGN 4.2).
 */
final class MapChanges {
  private MapChanges() {}

  /** Reads of the moved range on the targets; writes still on the sources. */
  static ShardMap targetsRead(ShardMap current, WorkflowSpec spec) {
    return next(current, spec, false, true, true, false);
  }

  /** Reads and writes on the targets; the sources serve nothing. */
  static ShardMap targetsServe(ShardMap current, WorkflowSpec spec) {
    return next(current, spec, false, false, true, true);
  }

  /** Reads and writes back on the sources; the targets stay in the map serving nothing. */
  static ShardMap sourcesServe(ShardMap current, WorkflowSpec spec) {
    return next(current, spec, true, true, false, false);
  }

  /** The sources retired: out of the map. */
  static ShardMap withoutSources(ShardMap current, WorkflowSpec spec) {
    Map<KeyRange, ShardAssignment> a = assignments(current);
    spec.sources().forEach(s -> a.remove(s.range()));
    return current.next(current.vschema(), new ArrayList<>(a.values()));
  }

  /** The targets abandoned: out of the map, the sources serving as before the workflow. */
  static ShardMap withoutTargets(ShardMap current, WorkflowSpec spec) {
    Map<KeyRange, ShardAssignment> a = assignments(current);
    spec.targets().forEach(t -> a.remove(t.range()));
    for (ShardServer s : spec.sources()) {
      a.put(s.range(), new ShardAssignment(s.range(), s.endpointRef(), true, true));
    }
    return current.next(current.vschema(), new ArrayList<>(a.values()));
  }

  private static ShardMap next(
      ShardMap current,
      WorkflowSpec spec,
      boolean srcReads,
      boolean srcWrites,
      boolean tgtReads,
      boolean tgtWrites) {
    Map<KeyRange, ShardAssignment> a = assignments(current);
    for (ShardServer s : spec.sources()) {
      a.put(s.range(), new ShardAssignment(s.range(), s.endpointRef(), srcReads, srcWrites));
    }
    for (ShardServer t : spec.targets()) {
      a.put(t.range(), new ShardAssignment(t.range(), t.endpointRef(), tgtReads, tgtWrites));
    }
    return current.next(current.vschema(), new ArrayList<>(a.values()));
  }

  private static Map<KeyRange, ShardAssignment> assignments(ShardMap map) {
    Map<KeyRange, ShardAssignment> a = new LinkedHashMap<>();
    for (Shard s : map.shards()) {
      a.put(s.range(), s.assignment());
    }
    return a;
  }

  /**
   * {@code current} if it already has {@code next}'s assignments (a restarted step published it
   * before), else {@code next}: what a step opens fences for, and publishes unless it is current.
   */
  static ShardMap unlessPublished(ShardMap current, ShardMap next) {
    return sameAssignments(current, next) ? current : next;
  }

  /** True if both maps assign the same ranges to the same servers with the same roles. */
  static boolean sameAssignments(ShardMap a, ShardMap b) {
    return assignments(a).equals(assignments(b));
  }

  /** The epoch {@code map} gives {@code shard}. */
  static long epochOf(ShardMap map, ShardServer shard) {
    return map.shard(shard.range()).orElseThrow().epoch();
  }

  static List<String> names(List<ShardServer> servers) {
    return servers.stream().map(ShardServer::shard).toList();
  }
}
