package io.reshard.demo;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The demo's verdict: one check per correctness figure, each with what it must be and what was
 * measured, and the lessons in words. The demo passes only if every check does.
 */
final class DemoChecks {
  /** One check: {@code expected} and {@code measured} as people read them. */
  record Check(String name, String expected, String measured, boolean pass, String lesson) {
    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("check", name);
      m.put("expected", expected);
      m.put("measured", measured);
      m.put("result", pass ? "PASS" : "FAIL");
      if (lesson != null) {
        m.put("lesson", lesson);
      }
      return m;
    }
  }

  static final String MULTI_LESSON =
      "multi mode commits a cross-shard transfer on one shard, then the other, without a two-phase"
          + " commit: a crash between the two commits keeps the debit and loses the credit. Exactly "
          + Transfers.AMOUNT
          + " credits lost per crash is the expected lesson, not a fault of the split.";
  static final String SINGLE_LESSON =
      "single mode refuses a transaction that spans shards, so nothing can be half-committed: keep"
          + " a transfer's accounts on one shard (one sharding key), or make it a saga.";

  private final List<Check> checks = new ArrayList<>();

  /** The checks of one run. */
  static DemoChecks of(
      EndState end,
      long creditsAfterTransfers,
      Map<String, Object> reshard,
      Transfers.Result multi,
      Transfers.Result single) {
    DemoChecks c = new DemoChecks();
    c.add(
        "every expected row found exactly once",
        number(end.expectedIds) + " rows",
        number(end.idsFoundOnce) + " rows (" + number(end.idsMissing) + " missing)",
        end.idsFoundOnce == end.expectedIds && end.idsMissing == 0,
        null);
    c.zero("no row is on two shards", end.idsDuplicated, "duplicated");
    c.zero("every row is on the shard that owns it", end.rowsWrongShard, "misplaced");
    c.zero("every lookup row points at its message", end.lookupMismatches, "wrong");
    c.add(
        "credits after the split equal those before it",
        number(creditsAfterTransfers),
        number(end.credits),
        end.credits == creditsAfterTransfers,
        null);
    c.zero(
        "application writes failed during the split",
        (long) reshard.get("writer_errors"),
        "failed");
    c.zero("lookups missed a message", (long) reshard.get("reader_misses"), "missed");
    c.zero("reads saw a message twice", (long) reshard.get("reader_duplicates"), "twice");
    c.zero("diff before the write switch", (long) reshard.get("diff_mismatches"), "differences");
    long lossPerCrash = Transfers.AMOUNT * multi.crossShardFailures();
    c.add(
        "multi mode: credits lost to crashes between commits",
        number(lossPerCrash)
            + " ("
            + multi.crossShardFailures()
            + " crashes × "
            + Transfers.AMOUNT
            + ")",
        number(multi.creditsLost()),
        multi.creditsLost() == lossPerCrash,
        MULTI_LESSON);
    c.add(
        "single mode: cross-shard transfers refused, nothing lost",
        number(single.transfers() / 2) + " refused, 0 lost",
        number(single.refused()) + " refused, " + number(single.creditsLost()) + " lost",
        single.refused() == single.transfers() / 2 && single.creditsLost() == 0,
        SINGLE_LESSON);
    return c;
  }

  private void zero(String name, long measured, String unit) {
    add(name, "0 " + unit, number(measured) + " " + unit, measured == 0, null);
  }

  private void add(String name, String expected, String measured, boolean pass, String lesson) {
    checks.add(new Check(name, expected, measured, pass, lesson));
  }

  List<Check> all() {
    return List.copyOf(checks);
  }

  boolean passed() {
    return checks.stream().allMatch(Check::pass);
  }

  List<Map<String, Object>> json() {
    return checks.stream().map(Check::json).toList();
  }

  /** The checks as a table for a terminal, then the lessons. */
  String table() {
    int w = checks.stream().mapToInt(c -> c.name().length()).max().orElse(10);
    int e = checks.stream().mapToInt(c -> c.expected().length()).max().orElse(8);
    int m = checks.stream().mapToInt(c -> c.measured().length()).max().orElse(8);
    String row = "  %-" + w + "s  %-" + e + "s  %-" + m + "s  %s%n";
    StringBuilder b = new StringBuilder();
    b.append(String.format(row, "check", "expected", "measured", "result"));
    for (Check c : checks) {
      b.append(
          String.format(row, c.name(), c.expected(), c.measured(), c.pass() ? "PASS" : "FAIL"));
    }
    for (Check c : checks) {
      if (c.lesson() != null) {
        b.append("  - ").append(c.lesson()).append(System.lineSeparator());
      }
    }
    return b.toString();
  }

  private static String number(long n) {
    return String.format("%,d", n);
  }
}
