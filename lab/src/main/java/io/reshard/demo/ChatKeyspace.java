package io.reshard.demo;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.VSchema;
import io.reshard.router.Vindex;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The demo's keyspace {@code chat} on the cluster's four shards {@code -40 40-80 80-c0 c0-}: {@code
 * messages} (hash on channel_id, lookup vindex on id), {@code message_lookup} (hash on id), {@code
 * accounts} (hash on id). Loads messages in channels whose activity follows Zipf's law with
 * exponent 1 over 2,000 channels, so the busiest channel has about 12% of the messages and the top
 * ten about 36% ({@code 1/H(2000)} and {@code H(10)/H(2000)}).
 */
final class ChatKeyspace {
  static final String NAME = "chat";
  static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");
  static final int CHANNELS = 2000;
  static final int USERS = 5000;
  static final int ACCOUNTS = 1000;
  static final long CREDITS = 1000;
  static final String VSCHEMA =
      """
      {"sharded": true,
       "vindexes": {"hash": {"type": "hash"},
                    "message_lookup": {"type": "consistent_lookup_unique", "owner": "messages",
                       "params": {"table": "message_lookup", "from": "id", "to": "channel_id"}}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"},
                                                   {"column": "id", "name": "message_lookup"}]},
                  "message_lookup": {"column_vindexes": [{"column": "id", "name": "hash"}]},
                  "accounts": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}
      """;

  final ClusterDescriptor cluster;
  final VSchema vschema = VSchema.parse(VSCHEMA);
  final Vindex hash = vschema.primaryVindex("messages").functional();

  ChatKeyspace(ClusterDescriptor cluster) {
    this.cluster = cluster;
  }

  /** Creates the tables and fence rows on the four shards; returns shard map version 1. */
  ShardMap create() throws SQLException {
    List<ShardAssignment> a = new ArrayList<>();
    for (int i = 0; i < SHARDS.size(); i++) {
      ClusterDescriptor.Server s = cluster.shards().get(i);
      try (Connection c = DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
          Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE IF NOT EXISTS " + NAME);
        st.execute(
            "CREATE TABLE "
                + NAME
                + ".messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
                + " user_id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL, body VARCHAR(200) NOT NULL,"
                + " KEY by_channel (channel_id, created_at), KEY by_user (user_id, created_at)) ENGINE=InnoDB");
        st.execute(
            "CREATE TABLE "
                + NAME
                + ".message_lookup (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL) ENGINE=InnoDB");
        st.execute(
            "CREATE TABLE "
                + NAME
                + ".accounts (id BIGINT PRIMARY KEY, credits BIGINT NOT NULL) ENGINE=InnoDB");
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, NAME, SHARDS.get(i), 1, true);
      }
      a.add(new ShardAssignment(KeyRange.parse(SHARDS.get(i)), s.name(), true, true));
    }
    return ShardMap.first(NAME, vschema, a);
  }

  /**
   * A message row's {@code created_at}, whichever driver read it (MariaDB Connector/J gives a
   * {@code Timestamp}, MySQL Connector/J a {@code LocalDateTime}).
   */
  static LocalDateTime createdAt(Map<String, Object> row) {
    Object v = row.get("created_at");
    return v instanceof Timestamp t ? t.toLocalDateTime() : (LocalDateTime) v;
  }

  EndpointResolver endpoints() {
    Map<String, JdbcEndpoint> m = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.mariadb()) {
      m.put(s.name(), new JdbcEndpoint(s.jdbcUrl(""), s.user(), ""));
    }
    return EndpointResolver.of(m);
  }

  /** Zipf(1) channel sampler over 1..CHANNELS, by inverse CDF. */
  static final class Channels {
    private final double[] cdf = new double[CHANNELS];

    Channels() {
      double h = 0;
      for (int k = 1; k <= CHANNELS; k++) {
        h += 1.0 / k;
        cdf[k - 1] = h;
      }
      for (int k = 0; k < CHANNELS; k++) {
        cdf[k] /= h;
      }
    }

    long next(Random r) {
      int i = java.util.Arrays.binarySearch(cdf, r.nextDouble());
      return (i >= 0 ? i : -i - 1) + 1;
    }
  }

  /**
   * Loads {@code messages} messages (ids 1..n) with their lookup rows and the accounts, straight
   * onto their shards with batched inserts. Deterministic for a seed.
   *
   * @return the channel of every message, indexed by id - 1
   */
  long[] load(ShardMap map, int messages, long seed) throws SQLException {
    Random r = new Random(seed);
    Channels channels = new Channels();
    long[] channelOf = new long[messages];
    Map<String, Connection> conns = new HashMap<>();
    Map<String, PreparedStatement> msg = new HashMap<>();
    Map<String, PreparedStatement> lkp = new HashMap<>();
    Map<String, PreparedStatement> acc = new HashMap<>();
    try {
      for (ClusterDescriptor.Server s : cluster.shards()) {
        Connection c = DriverManager.getConnection(s.jdbcUrl(NAME), s.user(), "");
        c.setAutoCommit(false);
        conns.put(s.name(), c);
        msg.put(s.name(), c.prepareStatement("INSERT INTO messages VALUES (?, ?, ?, ?, ?)"));
        lkp.put(s.name(), c.prepareStatement("INSERT INTO message_lookup VALUES (?, ?)"));
        acc.put(s.name(), c.prepareStatement("INSERT INTO accounts VALUES (?, ?)"));
      }
      long t0 = 1_767_225_600_000L; // 2026-01-01
      for (int id = 1; id <= messages; id++) {
        long ch = channels.next(r);
        channelOf[id - 1] = ch;
        PreparedStatement m = msg.get(map.writeShardFor(hash.keyspaceId(ch)).endpoint());
        m.setLong(1, id);
        m.setLong(2, ch);
        m.setLong(3, 1 + r.nextInt(USERS));
        m.setTimestamp(4, new Timestamp(t0 + id * 1000L));
        m.setString(5, "message " + id + " in channel " + ch + " " + "lorem ipsum ".repeat(8));
        m.addBatch();
        PreparedStatement l = lkp.get(map.writeShardFor(hash.keyspaceId((long) id)).endpoint());
        l.setLong(1, id);
        l.setLong(2, ch);
        l.addBatch();
        if (id % 5000 == 0 || id == messages) {
          flush(conns, msg, lkp);
        }
      }
      for (int id = 1; id <= ACCOUNTS; id++) {
        PreparedStatement p = acc.get(map.writeShardFor(hash.keyspaceId((long) id)).endpoint());
        p.setLong(1, id);
        p.setLong(2, CREDITS);
        p.addBatch();
      }
      for (String n : conns.keySet()) {
        acc.get(n).executeBatch();
        conns.get(n).commit();
      }
    } finally {
      for (Connection c : conns.values()) {
        c.close();
      }
    }
    return channelOf;
  }

  private static void flush(
      Map<String, Connection> conns,
      Map<String, PreparedStatement> msg,
      Map<String, PreparedStatement> lkp)
      throws SQLException {
    for (String n : conns.keySet()) {
      msg.get(n).executeBatch();
      lkp.get(n).executeBatch();
      conns.get(n).commit();
    }
  }
}
