package io.reshard.daemon;

import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.ReshardException;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapNotFoundException;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The newest shard map of every keyspace the daemon knows (its configured shards' and its
 * workflows'), as {@code GET /keyspaces} shows it: one {@link KafkaShardMapSource} per keyspace,
 * started on the first request and followed from then on. A keyspace whose map cannot be read yet
 * says why instead. Thread-safe.
 */
final class ShardMapViews implements AutoCloseable {
  /** How long the first read of the shard map topic may hold a request. */
  static final Duration READ_TIMEOUT = Duration.ofSeconds(3);

  /** How soon a keyspace whose map could not be read is tried again. */
  static final Duration RETRY = Duration.ofSeconds(5);

  private final DaemonConfig config;
  private final WorkflowStore workflows;
  private final Map<String, KafkaShardMapSource> sources = new HashMap<>();
  private final Map<String, Failed> failed = new HashMap<>();

  private record Failed(String why, long retryAt) {}

  ShardMapViews(DaemonConfig config, WorkflowStore workflows) {
    this.config = config;
    this.workflows = workflows;
  }

  /**
   * {@code [{keyspace, version, shards: [{name, server, epoch, reads, writes}]}]}, or {@code
   * {keyspace, error}} for a keyspace whose map cannot be read, sorted by keyspace.
   */
  synchronized List<Map<String, Object>> views() {
    List<Map<String, Object>> out = new ArrayList<>();
    for (String keyspace : keyspaces()) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("keyspace", keyspace);
      KafkaShardMapSource s = source(keyspace);
      if (s == null) {
        v.put("error", failed.get(keyspace).why());
      } else {
        ShardMap m = s.current();
        v.put("version", m.version());
        v.put("shards", m.shards().stream().map(ShardMapViews::shard).toList());
      }
      out.add(v);
    }
    return out;
  }

  private SortedSet<String> keyspaces() {
    SortedSet<String> names = new TreeSet<>(sources.keySet());
    config.shards().forEach(s -> names.add(s.keyspace()));
    try {
      workflows.list().stream().map(Workflow::keyspace).forEach(names::add);
    } catch (ReshardException e) {
      // the workflows cannot be read now: /workflows says so; show the keyspaces known so far
    }
    return names;
  }

  private KafkaShardMapSource source(String keyspace) {
    KafkaShardMapSource s = sources.get(keyspace);
    if (s != null) {
      return s;
    }
    Failed f = failed.get(keyspace);
    if (f != null && System.nanoTime() < f.retryAt()) {
      return null;
    }
    try {
      s =
          KafkaShardMapSource.start(
              ShardMapTopicConfig.builder()
                  .bootstrapServers(config.bootstrapServers())
                  .topic(config.shardmapsTopic())
                  .timeout(READ_TIMEOUT)
                  .build(),
              keyspace);
      sources.put(keyspace, s);
      failed.remove(keyspace);
      return s;
    } catch (ShardMapNotFoundException e) {
      fail(keyspace, "no shard map yet: run `reshard keyspace init` for it");
    } catch (ReshardException e) {
      fail(
          keyspace,
          "cannot read the shard map topic " + config.shardmapsTopic() + ": " + e.getMessage());
    }
    return null;
  }

  private void fail(String keyspace, String why) {
    failed.put(keyspace, new Failed(why, System.nanoTime() + RETRY.toNanos()));
  }

  private static Map<String, Object> shard(Shard s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.name());
    m.put("server", s.endpoint());
    m.put("epoch", s.epoch());
    m.put("reads", s.servesReads());
    m.put("writes", s.servesWrites());
    return m;
  }

  @Override
  public synchronized void close() {
    sources.values().forEach(KafkaShardMapSource::close);
    sources.clear();
  }
}
