package io.reshard.daemon;

import io.reshard.cdc.KeyspaceStream;
import io.reshard.cdc.KeyspaceStreamConfig;
import io.reshard.cdc.KeyspaceTopicFormException;
import io.reshard.router.KafkaShardMapSource;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapNotFoundException;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.switcher.KafkaWorkflowStore;
import io.reshard.switcher.WorkflowHandOvers;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps one keyspace's change stream ({@link KeyspaceStream}, docs/keyspace-stream.md) running
 * inside the daemon, on a supervisor thread of its own ({@code keyspace-stream-<keyspace>}). A
 * stream that ends with a failure (Kafka down, a journal it cannot read) is started again after a
 * pause that begins at {@code restart.backoff.initial.ms} and doubles up to {@code
 * restart.backoff.max.ms}; it goes on from what the last one committed. A stream fenced by another
 * process's stream of the same keyspace stops for good ({@code FAILED}): two that retried would
 * fence each other forever.
 *
 * <p>States: {@code NEW}, {@code STARTING}, {@code RUNNING}, {@code RETRYING}, {@code FAILED},
 * {@code STOPPED}. Thread-safe.
 */
public final class KeyspaceStreamService implements DaemonService {
  private static final Logger LOG = LoggerFactory.getLogger(KeyspaceStreamService.class);
  private static final Duration MAP_RETRY = Duration.ofSeconds(5);

  private final DaemonConfig config;
  private final KeyspaceStreamConfig stream;
  private final BiConsumer<String, ShardMap> captures;
  private final CountDownLatch stopRequest = new CountDownLatch(1);
  private volatile ServiceState state = ServiceState.NEW;
  private volatile String detail;
  private volatile KeyspaceStream current;
  private Thread supervisor;

  /**
   * @param config the daemon's configuration
   * @param keyspace the keyspace whose stream this runs
   * @param captures starts the captures of the shards of the keyspace's newest map that do not run
   *     yet (called every few seconds); null if only configured captures feed the stream
   */
  public KeyspaceStreamService(
      DaemonConfig config, String keyspace, BiConsumer<String, ShardMap> captures) {
    this.config = config;
    this.stream = config.keyspaceStream(keyspace);
    this.captures = captures;
  }

  /** The keyspace topic. */
  public String topic() {
    return stream.topic();
  }

  @Override
  public String name() {
    return "keyspace-stream/" + stream.keyspace();
  }

  @Override
  public synchronized void start() {
    if (supervisor != null) {
      throw new IllegalStateException(name() + " was already started");
    }
    state = ServiceState.STARTING;
    supervisor = new Thread(this::supervise, "keyspace-stream-" + stream.keyspace());
    supervisor.setDaemon(true);
    supervisor.start();
  }

  @Override
  public void stop() {
    stopRequest.countDown();
    KeyspaceStream s = current;
    if (s != null) {
      s.stop();
    }
    Thread t;
    synchronized (this) {
      t = supervisor;
    }
    if (t != null) {
      t.interrupt(); // a Kafka call that waits (the broker down) ends at once
      try {
        t.join(config.shutdownTimeout().toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    state = ServiceState.STOPPED;
  }

  @Override
  public ServiceState state() {
    return state;
  }

  @Override
  public String detail() {
    KeyspaceStream s = current;
    String d = detail;
    if (s == null) {
      return d;
    }
    String counts =
        stream.topic()
            + ": "
            + s.transactionsWritten()
            + " transactions, "
            + s.recordsWritten()
            + " row changes written, "
            + s.transactionsLeftOut()
            + " left out (reshard's own writes, or a shard not owning writes then); read "
            + s.progress();
    return d == null ? counts : d + "; " + counts;
  }

  private void supervise() {
    Duration backoff = config.restartBackoffInitial();
    while (stopRequest.getCount() > 0) {
      try (WorkflowHandOvers handOvers = handOvers();
          VSchemas vschemas = new VSchemas()) {
        KeyspaceStream s = new KeyspaceStream(stream, handOvers, vschemas::current);
        current = s;
        if (stopRequest.getCount() == 0) {
          break;
        }
        state = ServiceState.RUNNING;
        detail = null;
        backoff = config.restartBackoffInitial();
        s.run();
      } catch (ProducerFencedException e) {
        fail("another keyspace stream of " + stream.keyspace() + " took over: " + e.getMessage());
        return;
      } catch (KeyspaceTopicFormException e) {
        fail(e.getMessage()); // the operator chooses: the old form again, or a new topic
        return;
      } catch (Exception e) {
        if (stopRequest.getCount() == 0) {
          break;
        }
        state = ServiceState.RETRYING;
        detail = "restarting in " + backoff.toMillis() + " ms after: " + e;
        LOG.warn("{}: {}", name(), detail, e);
        try {
          if (stopRequest.await(backoff.toMillis(), TimeUnit.MILLISECONDS)) {
            break;
          }
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          break;
        }
        backoff = min(backoff.multipliedBy(2), config.restartBackoffMax());
      }
    }
    state = ServiceState.STOPPED;
  }

  private WorkflowHandOvers handOvers() {
    KafkaWorkflowStore.open(config.bootstrapServers(), config.workflowsTopic()).close();
    return new WorkflowHandOvers(config.bootstrapServers(), config.workflowsTopic());
  }

  private void fail(String why) {
    state = ServiceState.FAILED;
    detail = why;
    LOG.error("{}: {}", name(), why);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * The keyspace's vschema from its shard map, followed once the keyspace has one; on the way, the
   * captures of the map's shards are started every few seconds.
   */
  private final class VSchemas implements AutoCloseable {
    private KafkaShardMapSource source;
    private long nextTry;
    private long nextCaptures;

    Optional<VSchema> current() {
      Optional<VSchema> v = vschema();
      if (source != null && captures != null && System.nanoTime() >= nextCaptures) {
        nextCaptures = System.nanoTime() + MAP_RETRY.toNanos();
        captures.accept(stream.keyspace(), source.current());
      }
      return v.filter(VSchema::sharded);
    }

    private Optional<VSchema> vschema() {
      if (source == null && System.nanoTime() >= nextTry) {
        nextTry = System.nanoTime() + MAP_RETRY.toNanos();
        try {
          source =
              KafkaShardMapSource.start(
                  ShardMapTopicConfig.builder()
                      .bootstrapServers(config.bootstrapServers())
                      .topic(config.shardmapsTopic())
                      .build(),
                  stream.keyspace());
        } catch (ShardMapNotFoundException e) {
          return Optional.empty(); // the keyspace is not initialised yet
        }
      }
      return source == null ? Optional.empty() : Optional.of(source.current().vschema());
    }

    @Override
    public void close() {
      if (source != null) {
        source.close();
      }
    }
  }
}
