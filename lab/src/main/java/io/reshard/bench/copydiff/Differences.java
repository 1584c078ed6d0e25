package io.reshard.bench.copydiff;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.differ.DiffReport;
import io.reshard.differ.DiffSample;
import io.reshard.differ.TableDiff;
import io.reshard.router.KeyRange;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;

/**
 * Three differences the benchmark injects into a copy of its {@code messages} table, all in the
 * {@code -80} half (db2): a changed column, a missing row and an extra row. Checks that a diff
 * report, or pt-table-sync's printed statements, name each by key and nothing else.
 *
 * @param changed the id whose body differs on the copy
 * @param missing the id the copy lacks
 * @param extra the id only the copy has
 */
record Differences(long changed, long missing, long extra) {
  private static final Vindex HASH = Vindex.of(VindexType.HASH);
  private static final KeyRange LEFT = KeyRange.parse("-80");

  /** Ids in -80 at about a third and half of the table, and one past its end. */
  static Differences pick(VSchema unused, int rows) {
    return new Differences(inLeft(rows / 3 + 1), inLeft(rows / 2 + 1), inLeft(rows + 1));
  }

  private static long inLeft(long from) {
    for (long k = from; ; k++) {
      if (LEFT.contains(HASH.keyspaceId(k))) {
        return k;
      }
    }
  }

  /** How many differences there are. */
  int count() {
    return 3;
  }

  /** Makes the differences in {@code database.messages} on {@code s}. */
  void inject(ClusterDescriptor.Server s, String database) throws Exception {
    try (Connection c = DriverManager.getConnection(s.jdbcUrl(database), s.user(), "");
        Statement st = c.createStatement()) {
      st.execute("UPDATE messages SET body = CONCAT(body, '!') WHERE id = " + changed);
      st.execute("DELETE FROM messages WHERE id = " + missing);
      st.execute(
          "INSERT INTO messages VALUES ("
              + extra
              + ", 1, 1, '2026-01-01 00:00:00', 'only on the copy')");
    }
  }

  /**
   * Checks the reports of the diff of both targets: -80 names exactly the three keys, 80- is clean.
   */
  void checkNamed(List<DiffReport> reports) {
    TableDiff left = reports.get(0).table("messages");
    boolean ok =
        left.mismatched() == 1
            && left.extraSource() == 1
            && left.extraTarget() == 1
            && left.samples()
                .contains(
                    new DiffSample(
                        "messages",
                        DiffSample.Kind.MISMATCHED,
                        Map.of("id", "" + changed),
                        List.of("body")))
            && left.samples()
                .contains(
                    new DiffSample(
                        "messages",
                        DiffSample.Kind.EXTRA_SOURCE,
                        Map.of("id", "" + missing),
                        List.of()))
            && left.samples()
                .contains(
                    new DiffSample(
                        "messages",
                        DiffSample.Kind.EXTRA_TARGET,
                        Map.of("id", "" + extra),
                        List.of()))
            && reports.get(1).isClean();
    if (!ok) {
      throw new IllegalStateException(
          "the diff did not name exactly "
              + this
              + ":\n"
              + reports.get(0).toTable()
              + reports.get(1).toTable());
    }
  }

  /**
   * Checks pt-table-sync's printed statements: an UPDATE of the changed row, an INSERT of the
   * missing row, a DELETE of the extra row, and nothing else.
   */
  void checkNamedBy(String printed) {
    List<String> statements =
        printed.lines().filter(l -> l.matches("^(UPDATE|INSERT|REPLACE|DELETE) .*")).toList();
    boolean ok =
        statements.size() == 3
            && statements.stream().anyMatch(l -> l.startsWith("UPDATE") && names(l, changed))
            && statements.stream().anyMatch(l -> l.startsWith("INSERT") && names(l, missing))
            && statements.stream().anyMatch(l -> l.startsWith("DELETE") && names(l, extra));
    if (!ok) {
      throw new IllegalStateException(
          "pt-table-sync did not name exactly " + this + ":\n" + printed);
    }
  }

  /** Whether a printed statement is about the row with id {@code id}. */
  private static boolean names(String statement, long id) {
    return statement.contains("WHERE `id`='" + id + "'")
        || statement.contains("VALUES ('" + id + "'");
  }
}
