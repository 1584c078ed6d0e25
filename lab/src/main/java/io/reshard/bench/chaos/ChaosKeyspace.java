package io.reshard.bench.chaos;

import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.KeyRange;
import io.reshard.router.Vindex;
import io.reshard.router.VindexType;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Random;

/**
 * The keyspace of one lifecycle and where it lives. Lifecycle {@code n} uses its own keyspace
 * {@code chaosN}, sharded by {@code hash} over two shards {@code -80} (the cluster's first shard
 * server) and {@code 80-} (the second), and splits one of them onto the two spares: {@code -80}
 * into {@code -40} and {@code 40-80} in odd lifecycles, {@code 80-} into {@code 80-c0} and {@code
 * c0-} in even ones. A keyspace is a database of its own on every server, so the spares are empty
 * targets again in every lifecycle while the earlier keyspaces stay as they ended.
 *
 * <p>One table, {@code events (id, k, val, note)}: {@code k} is the sharding key, a function of the
 * id ({@link #keyOf}), so a writer needs only the id; {@code val} is the value of the row's last
 * write. Immutable.
 *
 * @param lifecycle the lifecycle, from 1
 * @param name the keyspace name
 * @param source the shard being split
 * @param targets its two target shards
 * @param shardServers the servers of {@code -80} and {@code 80-}, in that order
 * @param targetServers the servers of the targets, in order
 */
record ChaosKeyspace(
    int lifecycle,
    String name,
    String source,
    List<String> targets,
    List<ClusterDescriptor.Server> shardServers,
    List<ClusterDescriptor.Server> targetServers) {

  /** The shards of every keyspace before its split, in order. */
  static final List<String> SHARDS = List.of("-80", "80-");

  /** The table. */
  static final String TABLE = "events";

  /** The primary vindex of {@code events.k}. */
  static final Vindex HASH = Vindex.of(VindexType.HASH);

  /** The vschema every keyspace gets. */
  static final String VSCHEMA =
      """
      {"sharded": true, "vindexes": {"hash": {"type": "hash"}},
       "tables": {"events": {"column_vindexes": [{"column": "k", "name": "hash"}]}}}
      """;

  /** The first id of rows the writers insert; loaded rows are 1..rows. */
  static final long FIRST_INSERTED_ID = 1_000_000_000L;

  /** Rows per multi-row insert while loading. */
  private static final int LOAD_BATCH = 500;

  /** The keyspace of lifecycle {@code n} on {@code cluster} (two shard servers, two spares). */
  static ChaosKeyspace of(int n, ClusterDescriptor cluster) {
    boolean odd = n % 2 == 1;
    return new ChaosKeyspace(
        n,
        "chaos" + n,
        odd ? "-80" : "80-",
        odd ? List.of("-40", "40-80") : List.of("80-c0", "c0-"),
        cluster.shards().subList(0, 2),
        cluster.spares().subList(0, 2));
  }

  /** The sharding key of row {@code id}: any fixed function would do; this one is not the id. */
  static long keyOf(long id) {
    return id * 31 + 7;
  }

  /** The server of the shard being split. */
  ClusterDescriptor.Server sourceServer() {
    return shardServers.get(SHARDS.indexOf(source));
  }

  /** The workflow's name. */
  String workflow() {
    return "split" + lifecycle;
  }

  /**
   * Creates the keyspace's database and table on both shard servers and loads rows {@code 1..rows}
   * (value {@link AckLedger#LOADED}), each on the server whose shard holds its keyspace id.
   *
   * @param ledger receives every loaded id
   */
  void load(int rows, AckLedger ledger) throws SQLException {
    for (int s = 0; s < SHARDS.size(); s++) {
      ClusterDescriptor.Server server = shardServers.get(s);
      KeyRange range = KeyRange.parse(SHARDS.get(s));
      try (Connection c = ChaosSql.connect(server, "");
          Statement st = c.createStatement()) {
        st.execute("CREATE DATABASE " + name);
        st.execute(
            "CREATE TABLE "
                + name
                + "."
                + TABLE
                + " (id BIGINT NOT NULL PRIMARY KEY, k BIGINT NOT NULL, val BIGINT NOT NULL,"
                + " note VARCHAR(40) NOT NULL) ENGINE=InnoDB");
        c.setAutoCommit(false);
        try (PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO " + name + "." + TABLE + " VALUES (?, ?, ?, 'loaded')")) {
          int batched = 0;
          for (long id = 1; id <= rows; id++) {
            if (!range.contains(HASH.keyspaceId(keyOf(id)))) {
              continue;
            }
            ps.setLong(1, id);
            ps.setLong(2, keyOf(id));
            ps.setLong(3, AckLedger.LOADED);
            ps.addBatch();
            ledger.loaded(id);
            if (++batched % LOAD_BATCH == 0) {
              ps.executeBatch();
              c.commit();
            }
          }
          ps.executeBatch();
          c.commit();
        }
      }
    }
  }

  /** A seeded choice among the loaded ids, for readers. */
  static long anyLoadedId(Random random, int rows) {
    return 1 + random.nextInt(rows);
  }
}
