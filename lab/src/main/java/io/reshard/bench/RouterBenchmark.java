package io.reshard.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.cluster.ClusterSpec;
import io.reshard.cluster.FreePorts;
import io.reshard.cluster.LocalCluster;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KeyRange;
import io.reshard.router.ReshardSchema;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.router.ShardAssignment;
import io.reshard.router.ShardMap;
import io.reshard.router.StaticShardMapSource;
import io.reshard.router.VSchema;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntConsumer;

/**
 * Measures routing costs on a fresh local cluster of 4 shards: a chat table of {@code messages}
 * rows (hash on channel_id, a lookup vindex on id), read by 8 client threads for a fixed time per
 * variant after a warm-up: a message by id with its channel known through the router and through
 * plain pooled JDBC to the right server (the ratio is the router's overhead), a message by id
 * through the lookup vindex, and the latest 50 messages of a user by scatter. Prints QPS, p50, p99
 * and shard queries per read.
 */
public final class RouterBenchmark {
  static final String KEYSPACE = "chat";
  static final List<String> SHARDS = List.of("-40", "40-80", "80-c0", "c0-");
  static final String VSCHEMA =
      """
      {"sharded": true,
       "vindexes": {"hash": {"type": "hash"},
                    "message_lookup": {"type": "consistent_lookup_unique",
                       "params": {"table": "message_lookup", "from": "id", "to": "channel_id"}, "owner": "messages"}},
       "tables": {"messages": {"column_vindexes": [{"column": "channel_id", "name": "hash"},
                                                   {"column": "id", "name": "message_lookup"}]},
                  "message_lookup": {"column_vindexes": [{"column": "id", "name": "hash"}]}}}
      """;

  private final PrintWriter out;
  private final int messages;
  private final Duration duration;
  private final int threads;

  /**
   * @param messages rows to load
   * @param duration measuring time per variant (a warm-up of a third of it comes first)
   * @param threads client threads
   */
  public RouterBenchmark(PrintWriter out, int messages, Duration duration, int threads) {
    this.out = out;
    this.messages = messages;
    this.duration = duration;
    this.threads = threads;
  }

  /** Starts a cluster under {@code workDir}, runs every variant, prints, and stops the cluster. */
  public void run(Path workDir) throws Exception {
    Path dir = Files.createTempDirectory(Files.createDirectories(workDir), "router-");
    ClusterSpec spec =
        new ClusterSpec(dir, 4, 0, FreePorts.block(27406, 4), FreePorts.block(29992, 2));
    ClusterDescriptor cluster = LocalCluster.up(spec, line -> {});
    try {
      Map<String, JdbcEndpoint> endpoints = new LinkedHashMap<>();
      for (ClusterDescriptor.Server s : cluster.shards()) {
        endpoints.put(
            s.name(),
            new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), ""));
      }
      ShardMap map = layOut(cluster);
      load(cluster, map);
      try (Router router =
              Router.create(
                  StaticShardMapSource.of(map),
                  EndpointResolver.of(endpoints),
                  RouterConfig.defaults());
          PlainJdbc plain = new PlainJdbc(endpoints, map)) {
        measureAll(router, plain);
      }
    } finally {
      LocalCluster.down(dir);
    }
  }

  private void measureAll(Router router, PlainJdbc plain) throws Exception {
    Random ids = new Random(7);
    String byId = "SELECT * FROM messages WHERE channel_id = ? AND id = ?";
    out.printf(
        "router benchmark: %d messages on 4 shards, %d threads, %d s per variant%n",
        messages, threads, duration.toSeconds());
    // plain and router alternate twice; the second pair counts, so neither gains from running later
    double plainQps = 0;
    double routerQps = 0;
    for (int round = 1; round <= 2; round++) {
      String tag = round == 1 ? " (round 1, not counted)" : "";
      plainQps =
          measure(
              "plain JDBC, by id with channel" + tag,
              1,
              i -> {
                long id = 1 + ids.nextInt(messages);
                plain.query(channelOf(id), byId, channelOf(id), id);
              });
      routerQps =
          measure(
              "router, by id with channel (targeted)" + tag,
              1,
              i -> {
                long id = 1 + ids.nextInt(messages);
                router.query("messages", channelOf(id), byId, channelOf(id), id);
              });
    }
    measure(
        "router, by id via lookup vindex",
        2,
        i -> {
          long id = 1 + ids.nextInt(messages);
          router.queryByLookup("messages", "id", id, "SELECT * FROM messages WHERE id = ?", id);
        });
    measure(
        "router, latest 50 by channel (targeted)",
        1,
        i -> {
          long channel = 1 + ids.nextInt(CHANNELS);
          router.query(
              "messages",
              channel,
              "SELECT * FROM messages WHERE channel_id = ? ORDER BY created_at DESC LIMIT 50",
              channel);
        });
    Comparator<Map<String, Object>> newest =
        Comparator.<Map<String, Object>, Timestamp>comparing(r -> (Timestamp) r.get("created_at"))
            .reversed();
    measure(
        "router, latest 50 by user (scatter + merge)",
        4,
        i -> {
          long user = 1 + ids.nextInt(USERS);
          router.scatterOrdered(
              "SELECT * FROM messages WHERE user_id = ? ORDER BY created_at DESC LIMIT 50",
              newest,
              50,
              user);
        });
    out.printf("targeted read through the router / plain JDBC: %.2f%n", routerQps / plainQps);
    out.printf(
        "router metrics: scatter reads %.0f, lookup reads %.0f, targeted reads %.0f, mean fan-out %.2f%n",
        router.metrics().reads("scatter"),
        router.metrics().reads("lookup"),
        router.metrics().reads("targeted"),
        router.metrics().meanFanout());
  }

  /**
   * Runs {@code op} from every thread for a warm-up, then for the duration; prints and returns QPS.
   */
  private double measure(String name, int shardQueries, IntConsumer op) throws Exception {
    LatencyRecorder.runFor(threads, duration.dividedBy(3), op); // warm-up
    long t0 = System.nanoTime();
    LatencyRecorder all = LatencyRecorder.runFor(threads, duration, op);
    double secs = (System.nanoTime() - t0) / 1e9;
    double qps = all.count() / secs;
    out.printf(
        "  %-64s %9.0f qps  p50 %6.3f ms  p99 %6.3f ms  shard queries/read %d%n",
        name, qps, all.quantileMillis(0.50), all.quantileMillis(0.99), shardQueries);
    out.flush();
    return qps;
  }

  static final int CHANNELS = 2000;
  static final int USERS = 5000;

  /**
   * Message ids are spread over channels deterministically, so readers know a message's channel.
   */
  static long channelOf(long id) {
    return 1 + Math.floorMod(id * 2654435761L, CHANNELS);
  }

  private ShardMap layOut(ClusterDescriptor cluster) throws SQLException {
    List<ShardAssignment> assignments = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      ClusterDescriptor.Server s = cluster.shards().get(i);
      try (Connection c = java.sql.DriverManager.getConnection(s.jdbcUrl(""), s.user(), "");
          Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE " + KEYSPACE);
        st.execute(
            "CREATE TABLE "
                + KEYSPACE
                + ".messages (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL,"
                + " user_id BIGINT NOT NULL, created_at DATETIME(6) NOT NULL, body VARCHAR(200),"
                + " KEY by_channel (channel_id, created_at), KEY by_user (user_id, created_at)) ENGINE=InnoDB");
        st.execute(
            "CREATE TABLE "
                + KEYSPACE
                + ".message_lookup (id BIGINT PRIMARY KEY, channel_id BIGINT NOT NULL) ENGINE=InnoDB");
        ReshardSchema.create(c);
        ReshardSchema.setFence(c, KEYSPACE, SHARDS.get(i), 1, true);
      }
      assignments.add(new ShardAssignment(KeyRange.parse(SHARDS.get(i)), s.name(), true, true));
    }
    return ShardMap.first(KEYSPACE, VSchema.parse(VSCHEMA), assignments);
  }

  /** Loads the rows straight onto their shards with batched inserts (setup, not measured). */
  private void load(ClusterDescriptor cluster, ShardMap map) throws SQLException {
    Map<String, Connection> conns = new HashMap<>();
    Map<String, PreparedStatement> msg = new HashMap<>();
    Map<String, PreparedStatement> lkp = new HashMap<>();
    try {
      for (ClusterDescriptor.Server s : cluster.shards()) {
        Connection c = java.sql.DriverManager.getConnection(s.jdbcUrl(KEYSPACE), s.user(), "");
        c.setAutoCommit(false);
        conns.put(s.name(), c);
        msg.put(s.name(), c.prepareStatement("INSERT INTO messages VALUES (?, ?, ?, ?, ?)"));
        lkp.put(s.name(), c.prepareStatement("INSERT INTO message_lookup VALUES (?, ?)"));
      }
      Random r = new Random(11);
      long t0 = 1_767_225_600_000L;
      var hash = map.vschema().primaryVindex("messages").functional();
      for (long id = 1; id <= messages; id++) {
        long channel = channelOf(id);
        PreparedStatement m = msg.get(map.writeShardFor(hash.keyspaceId(channel)).endpoint());
        m.setLong(1, id);
        m.setLong(2, channel);
        m.setLong(3, 1 + r.nextInt(USERS));
        m.setTimestamp(4, new Timestamp(t0 + id * 1000));
        m.setString(5, "message body " + id + " " + "x".repeat(100));
        m.addBatch();
        PreparedStatement l = lkp.get(map.writeShardFor(hash.keyspaceId(id)).endpoint());
        l.setLong(1, id);
        l.setLong(2, channel);
        l.addBatch();
        if (id % 2000 == 0 || id == messages) {
          for (String n : conns.keySet()) {
            msg.get(n).executeBatch();
            lkp.get(n).executeBatch();
            conns.get(n).commit();
          }
        }
      }
    } finally {
      for (Connection c : conns.values()) {
        c.close();
      }
    }
  }

  /** The baseline: one HikariCP pool per server, the server picked from a precomputed map. */
  private static final class PlainJdbc implements AutoCloseable {
    private final Map<String, HikariDataSource> pools = new HashMap<>();
    private final String[] serverOfChannel = new String[CHANNELS + 1];

    PlainJdbc(Map<String, JdbcEndpoint> endpoints, ShardMap map) {
      var hash = map.vschema().primaryVindex("messages").functional();
      for (int ch = 1; ch <= CHANNELS; ch++) {
        serverOfChannel[ch] = map.readShardFor(hash.keyspaceId((long) ch)).endpoint();
      }
      endpoints.forEach(
          (name, e) -> {
            HikariConfig hc = new HikariConfig();
            hc.setJdbcUrl(e.urlFor(KEYSPACE));
            hc.setUsername(e.user());
            hc.setPassword(e.password());
            hc.setMaximumPoolSize(8);
            pools.put(name, new HikariDataSource(hc));
          });
    }

    void query(long channel, String sql, Object... params) {
      try (Connection c = pools.get(serverOfChannel[(int) channel]).getConnection();
          PreparedStatement ps = c.prepareStatement(sql)) {
        for (int i = 0; i < params.length; i++) {
          ps.setObject(i + 1, params[i]);
        }
        try (var rs = ps.executeQuery()) {
          while (rs.next()) {
            for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
              rs.getObject(i);
            }
          }
        }
      } catch (SQLException e) {
        throw new IllegalStateException(e);
      }
    }

    @Override
    public void close() {
      pools.values().forEach(HikariDataSource::close);
    }
  }
}
