package io.reshard.demo;

import io.reshard.router.CrossShardTransactionException;
import io.reshard.router.Router;
import io.reshard.router.ShardMap;
import io.reshard.router.Vindex;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Credit transfers between accounts, as the reference experiment ran them: same-shard transfers are
 * one transaction; cross-shard ones are two commits, and a failure injected between them (2%) loses
 * the credits in {@code multi} mode, while {@code single} mode refuses cross-shard transactions
 * outright.
 */
final class Transfers {
  static final long AMOUNT = 10;

  /** The outcome of one mode. */
  record Result(
      int transfers,
      int injectedFailures,
      int crossShardFailures,
      long creditsBefore,
      long creditsAfter,
      long creditsLost,
      int refused) {
    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("transfers", transfers);
      m.put("injected_failures", injectedFailures);
      m.put("cross_shard_failures", crossShardFailures);
      m.put("credits_before", creditsBefore);
      m.put("credits_after", creditsAfter);
      m.put("credits_lost", creditsLost);
      m.put("refused", refused);
      return m;
    }
  }

  static Result run(Router router, boolean multi, int eachKind, long seed) {
    ShardMap map = router.shardMap();
    Vindex hash = map.vschema().primaryVindex("accounts").functional();
    List<long[]> same = new ArrayList<>();
    List<long[]> cross = new ArrayList<>();
    Random r = new Random(seed);
    while (same.size() < eachKind || cross.size() < eachKind) {
      long a = 1 + r.nextInt(ChatKeyspace.ACCOUNTS);
      long b = 1 + r.nextInt(ChatKeyspace.ACCOUNTS);
      boolean sameShard =
          map.writeShardFor(hash.keyspaceId(a)).equals(map.writeShardFor(hash.keyspaceId(b)));
      if (a != b) {
        (sameShard ? same : cross).add(new long[] {a, b});
      }
    }
    long before = total(router);
    int failures = 0;
    int crossFailures = 0;
    int refused = 0;
    List<long[]> all = new ArrayList<>(same.subList(0, eachKind));
    all.addAll(cross.subList(0, eachKind));
    for (long[] t : all) {
      boolean fail = r.nextInt(100) < 2 && multi; // single mode has no commit to crash between
      failures += fail ? 1 : 0;
      crossFailures += fail && isCross(router, t[0], t[1]) ? 1 : 0;
      try {
        transfer(router, multi, t[0], t[1], fail);
      } catch (CrossShardTransactionException e) {
        refused++;
      } catch (InjectedFailure e) {
        // the process "crashed" between the two commits
      }
    }
    long after = total(router);
    return new Result(all.size(), failures, crossFailures, before, after, before - after, refused);
  }

  /**
   * A transfer in one router transaction. In multi mode its two shards commit one after the other;
   * a crash between the two commits leaves exactly the first committed, which is what the injected
   * failure reproduces: the debit commits alone, then the "process" dies.
   */
  private static void transfer(
      Router router, boolean multi, long from, long to, boolean failBetweenCommits) {
    if (multi && failBetweenCommits && isCross(router, from, to)) {
      router.inTransaction(
          tx ->
              tx.update(
                  "accounts",
                  from,
                  "UPDATE accounts SET credits = credits - ? WHERE id = ?",
                  AMOUNT,
                  from));
      throw new InjectedFailure();
    }
    router.inTransaction(
        tx -> {
          tx.update(
              "accounts",
              from,
              "UPDATE accounts SET credits = credits - ? WHERE id = ?",
              AMOUNT,
              from);
          return tx.update(
              "accounts", to, "UPDATE accounts SET credits = credits + ? WHERE id = ?", AMOUNT, to);
        });
  }

  private static boolean isCross(Router router, long a, long b) {
    ShardMap map = router.shardMap();
    Vindex hash = map.vschema().primaryVindex("accounts").functional();
    return !map.writeShardFor(hash.keyspaceId(a)).equals(map.writeShardFor(hash.keyspaceId(b)));
  }

  static long total(Router router) {
    return router.scatterCount("SELECT SUM(credits) FROM accounts");
  }

  /** The injected crash between the two commits. */
  static final class InjectedFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;
  }
}
