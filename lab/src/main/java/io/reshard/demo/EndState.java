package io.reshard.demo;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.Vindex;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * The end-state checks, done with plain SQL on every shard that serves writes in the final map (not
 * through the router): every expected message id exactly once and on the shard its keyspace id
 * names, lookup rows equal to the messages, accounts' credits, and no row outside a shard's range.
 */
final class EndState {
  long expectedIds;
  long idsFoundOnce;
  long idsMissing;
  long idsDuplicated;
  long rowsWrongShard;
  long lookupMismatches;
  long credits;

  static EndState check(
      ClusterDescriptor cluster, ShardMap map, Vindex hash, Map<Long, Long> expected)
      throws SQLException {
    EndState e = new EndState();
    e.expectedIds = expected.size();
    Map<Long, Integer> seen = new HashMap<>();
    Map<Long, Long> lookup = new HashMap<>();
    for (Shard shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      ClusterDescriptor.Server s =
          cluster.mariadb().stream()
              .filter(x -> x.name().equals(shard.endpoint()))
              .findFirst()
              .orElseThrow();
      try (Connection c = DriverManager.getConnection(s.jdbcUrl(ChatKeyspace.NAME), s.user(), "");
          Statement st = c.createStatement()) {
        try (ResultSet rs = st.executeQuery("SELECT id, channel_id FROM messages")) {
          while (rs.next()) {
            long id = rs.getLong(1);
            seen.merge(id, 1, Integer::sum);
            if (!shard.range().contains(hash.keyspaceId(rs.getLong(2)))) {
              e.rowsWrongShard++;
            }
            Long want = expected.get(id);
            if (want != null && want != rs.getLong(2)) {
              e.lookupMismatches++; // a message whose channel changed would show here; the demo
              // never moves channels
            }
          }
        }
        try (ResultSet rs = st.executeQuery("SELECT id, channel_id FROM message_lookup")) {
          while (rs.next()) {
            if (!shard.range().contains(hash.keyspaceId(rs.getLong(1)))) {
              e.rowsWrongShard++;
            }
            if (lookup.put(rs.getLong(1), rs.getLong(2)) != null) {
              e.lookupMismatches++;
            }
          }
        }
        try (ResultSet rs = st.executeQuery("SELECT id, credits FROM accounts")) {
          while (rs.next()) {
            if (!shard.range().contains(hash.keyspaceId(rs.getLong(1)))) {
              e.rowsWrongShard++;
            }
            e.credits += rs.getLong(2);
          }
        }
      }
    }
    for (Map.Entry<Long, Long> x : expected.entrySet()) {
      Integer n = seen.get(x.getKey());
      if (n == null) {
        e.idsMissing++;
      } else if (n == 1) {
        e.idsFoundOnce++;
      } else {
        e.idsDuplicated++;
      }
      if (!x.getValue().equals(lookup.get(x.getKey()))) {
        e.lookupMismatches++;
      }
    }
    for (Long id : seen.keySet()) {
      if (!expected.containsKey(id)) {
        e.idsDuplicated++; // a row that must not exist (deleted, or never acknowledged)
      }
    }
    for (Long id : lookup.keySet()) {
      if (!expected.containsKey(id)) {
        e.lookupMismatches++;
      }
    }
    return e;
  }

  boolean ok() {
    return idsMissing == 0
        && idsDuplicated == 0
        && rowsWrongShard == 0
        && lookupMismatches == 0
        && idsFoundOnce == expectedIds;
  }
}
