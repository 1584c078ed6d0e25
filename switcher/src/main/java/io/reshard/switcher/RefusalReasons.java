package io.reshard.switcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Every reason a step is refused, collected before anything is written so that one {@link
 * SwitchRefusedException} names them all, each with what to do (DESIGN 6). A reason found on
 * several servers is listed once, naming each of them: a column missing on all four shards is one
 * line, not four. Reasons keep the order in which they were first found. Not thread-safe.
 */
final class RefusalReasons {
  /** Each reason, and where it was found (empty for a reason about the request itself). */
  private final Map<String, Set<String>> reasons = new LinkedHashMap<>();

  /** The reason a step on a keyspace without a shard map is refused, with the command to run. */
  static String noShardMap(String keyspace) {
    return "keyspace "
        + keyspace
        + " has no shard map; publish one first with `reshard keyspace init --keyspace "
        + keyspace
        + " --vschema FILE --shards=RANGES` (docs/workflow.md)";
  }

  /** Adds a reason about the request, the vschema document or the keyspace's state. */
  void add(String reason) {
    reasons.computeIfAbsent(reason, r -> new LinkedHashSet<>());
  }

  /**
   * Adds a reason found on one server.
   *
   * @param where the server, as messages name it, e.g. {@code "source c0-"} or {@code "-40 on db1"}
   */
  void add(String reason, String where) {
    reasons.computeIfAbsent(reason, r -> new LinkedHashSet<>()).add(where);
  }

  /** Adds every reason of {@code more}, each about the request. */
  void addAll(List<String> more) {
    more.forEach(this::add);
  }

  /** True if nothing was found. */
  boolean isEmpty() {
    return reasons.isEmpty();
  }

  /** The reasons, each followed by the servers it was found on, in the order found. */
  List<String> list() {
    List<String> out = new ArrayList<>();
    reasons.forEach(
        (reason, where) ->
            out.add(where.isEmpty() ? reason : reason + " (on " + String.join(", ", where) + ")"));
    return out;
  }

  /**
   * Refuses if any reason was found.
   *
   * @param subject what was refused, e.g. {@code "workflow split1 not created"}
   * @throws SwitchRefusedException listing every reason: inline for one, one numbered line each for
   *     several; the message ends by saying that nothing was written
   */
  void throwIfAny(String subject) {
    if (reasons.isEmpty()) {
      return;
    }
    List<String> all = list();
    if (all.size() == 1) {
      throw new SwitchRefusedException(subject + ": " + all.get(0) + ". Nothing was written");
    }
    StringBuilder m = new StringBuilder(subject).append(", for ").append(all.size());
    m.append(" reasons (nothing was written):");
    for (int i = 0; i < all.size(); i++) {
      m.append("\n  ").append(i + 1).append(". ").append(all.get(i));
    }
    throw new SwitchRefusedException(m.toString());
  }
}
