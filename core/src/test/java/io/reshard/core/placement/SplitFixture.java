package io.reshard.core.placement;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.KeyspaceId;
import io.reshard.testkit.TestCluster;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A split on a test cluster: source shard {@code c0-} on db4, targets {@code c0-e0} on db5 and
 * {@code e0-} on db6, in the test class's database. Public for the differ's tests.
 */
public final class SplitFixture {
  /** The source shard's range. */
  public static final KeyRange SOURCE_RANGE = KeyRange.parse("c0-");

  /** The targets' ranges, in order. */
  public static final List<KeyRange> TARGET_RANGES =
      List.of(KeyRange.parse("c0-e0"), KeyRange.parse("e0-"));

  public final TestCluster cluster;
  public final ClusterDescriptor.Server source;
  public final List<ClusterDescriptor.Server> targets;

  public SplitFixture(TestCluster cluster) {
    this.cluster = cluster;
    this.source = server("db4");
    this.targets = List.of(server("db5"), server("db6"));
  }

  public ClusterDescriptor.Server server(String name) {
    return cluster.descriptor().mariadb().stream()
        .filter(s -> s.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  public static JdbcEndpoint endpoint(ClusterDescriptor.Server s) {
    return new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), "");
  }

  /** The source and the two targets. */
  public List<ClusterDescriptor.Server> all() {
    return List.of(source, targets.get(0), targets.get(1));
  }

  /** Runs the statements on the source and on both targets. */
  public void everywhere(String... sql) throws SQLException {
    for (ClusterDescriptor.Server s : all()) {
      cluster.execute(s, sql);
    }
  }

  /** Runs the statements on {@code s} with {@code sql_mode = ''} (zero dates and the like). */
  public void loose(ClusterDescriptor.Server s, String... sql) throws SQLException {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION sql_mode = '', time_zone = '+00:00'");
      for (String q : sql) {
        st.execute(q);
      }
    }
  }

  /**
   * The two targets of the split, as a workflow names them: {@code c0-e0} on db5, {@code e0-} on
   * db6.
   */
  public List<TargetShard> targetShards() {
    return List.of(
        new TargetShard(TARGET_RANGES.get(0), endpoint(targets.get(0))),
        new TargetShard(TARGET_RANGES.get(1), endpoint(targets.get(1))));
  }

  /** The index of the target whose range holds {@code ksid}, or -1. */
  public static int targetOf(KeyspaceId ksid) {
    for (int i = 0; i < TARGET_RANGES.size(); i++) {
      if (TARGET_RANGES.get(i).contains(ksid)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The rows of a query on {@code s}: first column as the key, the rest as strings (NULL as
   * "NULL"), in the query's order.
   */
  public Map<String, List<String>> rows(ClusterDescriptor.Server s, String sql)
      throws SQLException {
    Map<String, List<String>> out = new LinkedHashMap<>();
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement()) {
      st.execute("SET SESSION time_zone = '+00:00'");
      try (ResultSet rs = st.executeQuery(sql)) {
        int n = rs.getMetaData().getColumnCount();
        while (rs.next()) {
          List<String> values = new ArrayList<>();
          for (int i = 2; i <= n; i++) {
            String v = rs.getString(i);
            values.add(v == null ? "NULL" : v);
          }
          if (out.put(rs.getString(1), values) != null) {
            throw new AssertionError("key " + rs.getString(1) + " twice in " + sql);
          }
        }
      }
    }
    return out;
  }

  /** One long value of a query on {@code s}. */
  public long number(ClusterDescriptor.Server s, String sql) throws SQLException {
    try (Connection c = cluster.connect(s);
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * Checks that every source row of {@code sql} (key first) is on exactly the target {@code
   * placement} names, with equal values, and that the targets hold nothing else.
   *
   * @param placement the target index of a source row's key, -1 for "on no target"
   * @return the number of rows found on each target
   */
  public int[] assertPlacedExactly(String sql, Function<String, Integer> placement)
      throws SQLException {
    Map<String, List<String>> src = rows(source, sql);
    List<Map<String, List<String>>> tgt = new ArrayList<>();
    for (ClusterDescriptor.Server t : targets) {
      tgt.add(rows(t, sql));
    }
    int[] found = new int[targets.size()];
    for (Map.Entry<String, List<String>> e : src.entrySet()) {
      int want = placement.apply(e.getKey());
      for (int i = 0; i < targets.size(); i++) {
        List<String> there = tgt.get(i).remove(e.getKey());
        if (i == want) {
          if (there == null) {
            throw new AssertionError(
                "row " + e.getKey() + " missing on target " + TARGET_RANGES.get(i));
          }
          if (!there.equals(e.getValue())) {
            throw new AssertionError(
                "row "
                    + e.getKey()
                    + " differs on target "
                    + TARGET_RANGES.get(i)
                    + ":\n source "
                    + e.getValue()
                    + "\n target "
                    + there);
          }
          found[i]++;
        } else if (there != null) {
          throw new AssertionError(
              "row " + e.getKey() + " is on target " + TARGET_RANGES.get(i) + " too");
        }
      }
    }
    for (int i = 0; i < targets.size(); i++) {
      if (!tgt.get(i).isEmpty()) {
        throw new AssertionError(
            "target "
                + TARGET_RANGES.get(i)
                + " has rows not on the source: "
                + tgt.get(i).keySet());
      }
    }
    return found;
  }
}
