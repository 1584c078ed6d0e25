package io.reshard.daemon;

import io.reshard.router.ShardMap;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.WorkflowHandOvers;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link KeyspaceStreamService} for every keyspace the daemon serves: each keyspace whose
 * shards the configuration lists, and each keyspace that has a workflow (looked for every few
 * seconds, so a keyspace's stream starts with its first workflow). Shown as one service; its detail
 * lists every stream. Thread-safe.
 */
final class KeyspaceStreams implements DaemonService {
  private static final Logger LOG = LoggerFactory.getLogger(KeyspaceStreams.class);
  private static final Duration LOOK = Duration.ofSeconds(2);

  private final DaemonConfig config;
  private final BiConsumer<String, ShardMap> captures;
  private final Map<String, KeyspaceStreamService> streams = new LinkedHashMap<>();
  private final CountDownLatch stopRequest = new CountDownLatch(1);
  private volatile ServiceState state = ServiceState.NEW;
  private volatile String detail;
  private Thread thread;

  /**
   * @param config the daemon's configuration
   * @param captures starts the captures of a keyspace's shards in its newest map (null when the
   *     daemon does not know the servers: then only configured captures feed the streams)
   */
  KeyspaceStreams(DaemonConfig config, BiConsumer<String, ShardMap> captures) {
    this.config = config;
    this.captures = captures;
  }

  @Override
  public String name() {
    return "keyspace-streams";
  }

  @Override
  public synchronized void start() {
    state = ServiceState.RUNNING;
    thread = new Thread(this::look, "keyspace-streams");
    thread.setDaemon(true);
    thread.start();
  }

  @Override
  public void stop() {
    stopRequest.countDown();
    Thread t;
    List<KeyspaceStreamService> all;
    synchronized (this) {
      t = thread;
      all = new ArrayList<>(streams.values());
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(config.shutdownTimeout().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    all.forEach(KeyspaceStreamService::stop);
    state = ServiceState.STOPPED;
  }

  /** Its own state, or the worst of its streams': {@code FAILED}, then {@code RETRYING}. */
  @Override
  public synchronized ServiceState state() {
    if (state != ServiceState.RUNNING) {
      return state;
    }
    if (streams.values().stream().anyMatch(s -> s.state() == ServiceState.FAILED)) {
      return ServiceState.FAILED;
    }
    if (streams.values().stream().anyMatch(s -> s.state() == ServiceState.RETRYING)) {
      return ServiceState.RETRYING;
    }
    return state;
  }

  @Override
  public synchronized String detail() {
    List<String> parts = new ArrayList<>();
    if (detail != null) {
      parts.add(detail);
    }
    streams.forEach(
        (k, s) ->
            parts.add(k + " " + s.state() + (s.detail() == null ? "" : " (" + s.detail() + ")")));
    return parts.isEmpty() ? "no keyspace yet" : String.join("; ", parts);
  }

  /** The stream of {@code keyspace}, if it runs. */
  synchronized java.util.Optional<KeyspaceStreamService> stream(String keyspace) {
    return java.util.Optional.ofNullable(streams.get(keyspace));
  }

  private void look() {
    WorkflowHandOvers workflows = null;
    try {
      while (stopRequest.getCount() > 0) {
        Set<String> keyspaces = new TreeSet<>();
        config.shards().forEach(s -> keyspaces.add(s.keyspace()));
        try {
          if (workflows == null) {
            KafkaWorkflowStore.open(config.bootstrapServers(), config.workflowsTopic()).close();
            workflows = new WorkflowHandOvers(config.bootstrapServers(), config.workflowsTopic());
          }
          keyspaces.addAll(workflows.keyspaces());
          detail = null;
        } catch (RuntimeException e) {
          detail = "cannot read the workflows (trying again): " + e.getMessage();
          if (workflows != null) {
            workflows.close();
            workflows = null;
          }
        }
        keyspaces.forEach(this::startStream);
        if (stopRequest.await(LOOK.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      if (workflows != null) {
        workflows.close();
      }
    }
  }

  private synchronized void startStream(String keyspace) {
    if (streams.containsKey(keyspace) || stopRequest.getCount() == 0) {
      return;
    }
    KeyspaceStreamService s = new KeyspaceStreamService(config, keyspace, captures);
    streams.put(keyspace, s);
    LOG.info("keyspace {}: starting its change stream {}", keyspace, s.topic());
    s.start();
  }
}
