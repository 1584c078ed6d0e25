package io.reshard.bench.chaos;

import io.reshard.router.KeyRange;
import io.reshard.router.Vindex;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The end checks of one lifecycle, from the rows found with plain SQL on the shards that own writes
 * in the final shard map, against what the application was told ({@link AckLedger}):
 *
 * <ul>
 *   <li><b>lost</b>: an id whose write was acknowledged is on no owner, or holds a value older than
 *       its last acknowledged one (and not a later one of unknown outcome);
 *   <li><b>duplicated</b>: an id on two owners, or twice;
 *   <li><b>misplaced</b>: a row whose keyspace id lies outside its shard's range;
 *   <li><b>phantom</b>: a row holding a value whose write was refused, or an id never written;
 *   <li><b>stale owner</b>: an acknowledged write accepted by a shard that no longer owned its row
 *       ({@link MapTimeline#staleOwner}).
 * </ul>
 *
 * Each count keeps a few samples for the report. Immutable.
 *
 * @param ids ids the ledger knows (loaded or written)
 * @param rows rows found on the owners
 * @param lost acknowledged writes lost
 * @param duplicated ids found more than once
 * @param misplaced rows on a shard whose range does not hold their keyspace id
 * @param phantom rows that no acknowledged or unknown write explains
 * @param staleOwner acknowledged writes accepted by a stale owner
 * @param samples up to {@link #SAMPLES} descriptions per non-zero count, by check name
 */
record EndChecks(
    long ids,
    long rows,
    long lost,
    long duplicated,
    long misplaced,
    long phantom,
    long staleOwner,
    Map<String, List<String>> samples) {

  /** Samples kept per check. */
  static final int SAMPLES = 5;

  /** A row as found on an owner. */
  record Row(long id, long k, long val) {}

  /** The rows of one owner shard. */
  record OwnerRows(String shard, KeyRange range, List<Row> rows) {}

  /** True if every count is 0. */
  boolean clean() {
    return lost == 0 && duplicated == 0 && misplaced == 0 && phantom == 0 && staleOwner == 0;
  }

  /**
   * Evaluates the checks.
   *
   * @param owners the rows of every shard that serves writes in the final map
   * @param ledger what the application was told
   * @param timeline the maps seen, for the stale-owner check
   * @param vindex the table's primary vindex
   * @param keyOf the sharding key each id was written with
   */
  static EndChecks evaluate(
      List<OwnerRows> owners,
      AckLedger ledger,
      MapTimeline timeline,
      Vindex vindex,
      java.util.function.LongUnaryOperator keyOf) {
    Map<String, List<String>> samples = new LinkedHashMap<>();
    Map<Long, List<Row>> found = new HashMap<>();
    long rows = 0;
    long misplaced = 0;
    for (OwnerRows o : owners) {
      for (Row r : o.rows()) {
        rows++;
        found.computeIfAbsent(r.id(), k -> new ArrayList<>()).add(r);
        if (!o.range().contains(vindex.keyspaceId(r.k()))) {
          misplaced++;
          sample(samples, "misplaced", "id " + r.id() + " (k " + r.k() + ") on " + o.shard());
        }
      }
    }
    long lost = 0;
    long duplicated = 0;
    long phantom = 0;
    for (long id : ledger.ids()) {
      AckLedger.Entry e = ledger.get(id);
      List<Row> at = found.getOrDefault(id, List.of());
      if (at.size() > 1) {
        duplicated++;
        sample(samples, "duplicated", "id " + id + " found " + at.size() + " times");
        continue;
      }
      long acked = e.acked();
      if (at.isEmpty()) {
        if (acked != AckLedger.NONE) {
          lost++;
          sample(samples, "lost", "id " + id + " (acknowledged value " + acked + ") missing");
        }
        continue;
      }
      Row r = at.get(0);
      if (r.k() != keyOf.applyAsLong(id)) {
        lost++;
        sample(samples, "lost", "id " + id + " holds sharding key " + r.k());
      } else if (e.wasRefused(r.val())) {
        phantom++;
        sample(samples, "phantom", "id " + id + " holds refused value " + r.val());
      } else if (!e.mayHold(r.val())) {
        lost++;
        sample(samples, "lost", "id " + id + " holds " + r.val() + ", acknowledged " + acked);
      }
    }
    for (long id : found.keySet()) {
      if (ledger.get(id) == null) {
        phantom++;
        sample(samples, "phantom", "id " + id + " was never written");
      }
    }
    long stale = 0;
    for (AckLedger.Write w : ledger.writes()) {
      var why = timeline.staleOwner(w, vindex.keyspaceId(keyOf.applyAsLong(w.id())));
      if (why.isPresent()) {
        stale++;
        sample(samples, "stale_owner", why.get() + " [" + w.router() + " router]");
      }
    }
    return new EndChecks(
        ledger.ids().size(), rows, lost, duplicated, misplaced, phantom, stale, samples);
  }

  private static void sample(Map<String, List<String>> samples, String check, String text) {
    List<String> l = samples.computeIfAbsent(check, k -> new ArrayList<>());
    if (l.size() < SAMPLES) {
      l.add(text);
    }
  }
}
