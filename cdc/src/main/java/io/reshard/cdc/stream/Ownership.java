package io.reshard.cdc.stream;

import io.reshard.cdc.HandOver;
import io.reshard.core.position.GtidPosition;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which transactions of a shard's change topic are the application's, from the keyspace's
 * hand-overs of write ownership (DESIGN 4.10), and when the keyspace stream may take them.
 *
 * <p>A shard owns writes from the start unless its first hand-over is one it takes (a workflow's
 * target); it gives them up at each hand-over's {@code from} position and takes them again at each
 * {@code to} position. A transaction is the application's if the latest hand-over event it comes
 * after is a take (or none, for a shard that owned writes from the start). Outside those windows a
 * shard only receives what reshard writes: the copy and the forward streams before a target opens,
 * the reverse streams into a source after it gave up writes.
 *
 * <p>A transaction after a take may enter the stream only once every shard that gave at that
 * hand-over is read past its position (the old owner's changes up to G come first), see {@link
 * Verdict#waitFor}. Positions in a topic grow, so "after" is "not contained in".
 *
 * <p>Immutable.
 */
public final class Ownership {

  /** One hand-over event of one shard. */
  private record Event(HandOver handOver, boolean take, GtidPosition position) {}

  /**
   * What to do with one transaction.
   *
   * @param owned true if it is the application's
   * @param waitFor the hand-over whose givers must be read past their positions first, if any
   */
  public record Verdict(boolean owned, Optional<HandOver> waitFor) {
    static final Verdict OWNED = new Verdict(true, Optional.empty());
    static final Verdict NOT_OWNED = new Verdict(false, Optional.empty());
  }

  private final List<HandOver> handOvers;

  /**
   * @param handOvers the keyspace's hand-overs, in any order
   */
  public Ownership(List<HandOver> handOvers) {
    List<HandOver> sorted = new ArrayList<>(handOvers);
    sorted.sort(Comparator.comparing(HandOver::at));
    this.handOvers = List.copyOf(sorted);
  }

  /** The hand-overs, oldest first. */
  public List<HandOver> handOvers() {
    return handOvers;
  }

  /** Every shard a hand-over names, giving or taking. */
  public List<String> shards() {
    List<String> all = new ArrayList<>();
    for (HandOver h : handOvers) {
      for (String s : h.from().keySet()) {
        if (!all.contains(s)) {
          all.add(s);
        }
      }
      for (String s : h.to().keySet()) {
        if (!all.contains(s)) {
          all.add(s);
        }
      }
    }
    return all;
  }

  /** The verdict on the transaction {@code gtid} of {@code shard}'s topic. */
  public Verdict of(String shard, String gtid) {
    List<Event> events = events(shard);
    Event latest = null;
    for (Event e : events) {
      if (!e.position().contains(gtid)) {
        latest = e; // the transaction comes after this event
      }
    }
    if (latest == null) {
      boolean ownerFromStart = events.isEmpty() || !events.get(0).take();
      return ownerFromStart ? Verdict.OWNED : Verdict.NOT_OWNED;
    }
    return latest.take() ? new Verdict(true, Optional.of(latest.handOver())) : Verdict.NOT_OWNED;
  }

  private List<Event> events(String shard) {
    List<Event> events = new ArrayList<>();
    for (HandOver h : handOvers) {
      add(events, h, false, h.from(), shard);
      add(events, h, true, h.to(), shard);
    }
    return events;
  }

  private static void add(
      List<Event> events, HandOver h, boolean take, Map<String, String> side, String shard) {
    String p = side.get(shard);
    if (p != null) {
      events.add(new Event(h, take, GtidPosition.parse(p)));
    }
  }
}
