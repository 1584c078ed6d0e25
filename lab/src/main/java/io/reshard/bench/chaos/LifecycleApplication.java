package io.reshard.bench.chaos;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.reshard.cluster.ClusterDescriptor;
import io.reshard.router.EndpointResolver;
import io.reshard.router.JdbcEndpoint;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.KeyRange;
import io.reshard.router.Router;
import io.reshard.router.RouterConfig;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The application side of one lifecycle: its data ({@link #load}), its routers and traffic, started
 * once the keyspace has a shard map ({@link #start}) and running until the lifecycle ends, the
 * timeline of the shard maps it saw, and at the end the checks with plain SQL on the owners ({@link
 * #finish}). Not thread-safe except {@link #traffic} and {@link #newestMap}.
 */
final class LifecycleApplication {
  /** How long starting the map subscription is tried (the broker may just have been killed). */
  private static final long START_ATTEMPTS = 30;

  private final ChaosEnv env;
  private final ChaosKeyspace ks;
  private final AckLedger ledger = new AckLedger();
  private final MapTimeline timeline = new MapTimeline();
  private final List<AutoCloseable> open = new ArrayList<>();
  private volatile KafkaShardMapSource maps;
  private volatile ChaosTraffic traffic;
  private final SimpleMeterRegistry laggingMeters = new SimpleMeterRegistry();

  LifecycleApplication(ChaosEnv env, ChaosKeyspace ks) {
    this.env = env;
    this.ks = ks;
  }

  /** Creates the keyspace's tables on its two shards and loads its rows. */
  void load() throws Exception {
    ks.load(env.options().rows(), ledger);
    env.log().accept("lifecycle " + ks.lifecycle() + ": loaded " + env.options().rows() + " rows");
  }

  /** Follows the keyspace's shard map and starts the writers and the reader. */
  void start() throws Exception {
    maps = subscribe();
    open.add(maps);
    maps.addListener(m -> timeline.seen(m, System.nanoTime()));
    timeline.seen(maps.current(), System.nanoTime());
    EndpointResolver endpoints = endpoints(env.cluster().descriptor());
    Router live = Router.create(maps, endpoints, RouterConfig.defaults());
    LaggingMaps lagging = new LaggingMaps(maps, env.options().staleLag());
    Router stale =
        Router.create(lagging.source(), endpoints, RouterConfig.defaults(), laggingMeters);
    open.add(live);
    open.add(lagging);
    open.add(stale);
    List<Router> writers = new ArrayList<>(Collections.nCopies(env.options().writers(), live));
    List<String> names = new ArrayList<>(Collections.nCopies(env.options().writers(), "live"));
    writers.add(stale);
    names.add("lagging");
    ChaosTraffic t =
        new ChaosTraffic(
            ks,
            env.options().rows(),
            ledger,
            writers,
            names,
            live,
            env.options().writesPerSecond(),
            env.options().readsPerSecond(),
            env.options().seed());
    t.start();
    traffic = t;
  }

  /** The traffic, or null before it runs. */
  ChaosTraffic traffic() {
    return traffic;
  }

  /** The newest shard map the application has seen, or null before it follows the map. */
  ShardMap newestMap() {
    KafkaShardMapSource m = maps;
    return m == null ? null : m.current();
  }

  /** Stops the traffic, checks the end state, and closes the routers. */
  void finish(LifecycleResult result) throws Exception {
    try {
      if (traffic != null) {
        traffic.stop();
        Map<String, Object> counts = counts(traffic);
        counts.put("lagging_router_fence_refusals", fenceRefusals(laggingMeters));
        result.traffic(counts);
        if (traffic.firstWriteError != null) {
          result.note("first write error: " + traffic.firstWriteError);
        }
        ShardMap last = newestPublished();
        result.checks(
            EndChecks.evaluate(
                ownerRows(last), ledger, timeline, ChaosKeyspace.HASH, ChaosKeyspace::keyOf),
            last.version());
      }
    } finally {
      for (int i = open.size() - 1; i >= 0; i--) {
        open.get(i).close();
      }
    }
  }

  private KafkaShardMapSource subscribe() throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        return KafkaShardMapSource.start(topic(), ks.name());
      } catch (RuntimeException e) {
        if (attempt == START_ATTEMPTS) {
          throw e;
        }
        Thread.sleep(2000);
      }
    }
  }

  private ShardMapTopicConfig topic() {
    return ShardMapTopicConfig.builder()
        .bootstrapServers(env.cluster().descriptor().kafka().bootstrap())
        .build();
  }

  /** The newest map in the topic itself, which the routers may not have seen yet. */
  private ShardMap newestPublished() {
    List<ShardMap> all = ShardMapTopic.history(topic(), ks.name());
    return all.get(all.size() - 1);
  }

  private List<EndChecks.OwnerRows> ownerRows(ShardMap map) throws Exception {
    ClusterDescriptor cluster = env.cluster().descriptor();
    List<EndChecks.OwnerRows> owners = new ArrayList<>();
    for (Shard shard : map.shards()) {
      if (!shard.servesWrites()) {
        continue;
      }
      ClusterDescriptor.Server s =
          cluster.mariadb().stream()
              .filter(x -> x.name().equals(shard.endpoint()))
              .findFirst()
              .orElseThrow();
      List<EndChecks.Row> rows = new ArrayList<>();
      try (Connection c = ChaosSql.connect(s, ks.name());
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT id, k, val FROM " + ChaosKeyspace.TABLE)) {
        while (rs.next()) {
          rows.add(new EndChecks.Row(rs.getLong(1), rs.getLong(2), rs.getLong(3)));
        }
      }
      owners.add(new EndChecks.OwnerRows(shard.name(), KeyRange.parse(shard.name()), rows));
    }
    return owners;
  }

  private static Map<String, Object> counts(ChaosTraffic t) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("writes_acknowledged", t.acknowledged.get());
    m.put("writes_refused", t.refused.get());
    m.put("writes_unknown_outcome", t.unknown.get());
    m.put("updates_found_no_row", t.updatesFoundNoRow.get());
    m.put("reads", t.reads.get());
    m.put("read_errors", t.readErrors.get());
    m.put("read_misses", t.readMisses.get());
    m.put("scatter_duplicates", t.scatterDuplicates.get());
    return m;
  }

  /**
   * How many write attempts a router's fence check refused (each was retried on the new owner once
   * its map arrived, or failed): the lagging router's show that the fence was put to work.
   */
  private static long fenceRefusals(SimpleMeterRegistry meters) {
    return (long)
        meters.find("reshard.router.writes.refused").counters().stream()
            .mapToDouble(c -> c.count())
            .sum();
  }

  private static EndpointResolver endpoints(ClusterDescriptor cluster) {
    Map<String, JdbcEndpoint> m = new LinkedHashMap<>();
    for (ClusterDescriptor.Server s : cluster.mariadb()) {
      m.put(
          s.name(),
          new JdbcEndpoint("jdbc:mariadb://" + s.host() + ":" + s.port() + "/", s.user(), ""));
    }
    return EndpointResolver.of(m);
  }
}
