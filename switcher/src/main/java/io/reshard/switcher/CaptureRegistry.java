package io.reshard.switcher;

import io.reshard.cdc.CaptureConfig;
import io.reshard.cdc.CaptureEngine;
import io.reshard.core.position.CapturePosition;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.ReshardException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The capture of every shard the workflows of one process need: at most one capture per (keyspace,
 * shard), because a second capture of the same shard fences the first (DESIGN 4.4). Change topics
 * are workflow-independent, so workflows on the same source share its capture.
 *
 * <p>A capture the host already runs (the daemon's configured shards) is registered with {@link
 * #external}; {@link #ensure} starts one for any other shard, through the registry's {@link
 * Starter}, and owns it until {@link #close}. The default starter runs a bare {@link
 * CaptureEngine}; the daemon's runs each under the same supervision, health and meters as its
 * configured captures. Thread-safe.
 */
public final class CaptureRegistry implements AutoCloseable {
  /** A capture a {@link Starter} started, as the registry sees it. */
  public interface Started {
    /** The position it has committed to Kafka; empty while none has. */
    Optional<CapturePosition> committedPosition();

    /**
     * The message of the error that stopped it for good, or empty while it runs or retries (see
     * {@link CaptureRegistry#failure}).
     */
    Optional<String> failure();

    /**
     * What keeps it from committing while it retries (a source or a broker it cannot reach), or
     * empty while it runs; the message of a wait that times out names it.
     */
    default Optional<String> trouble() {
      return Optional.empty();
    }

    /** Stops it. */
    void close() throws InterruptedException;
  }

  /** Starts the capture of a shard no one captures yet. */
  @FunctionalInterface
  public interface Starter {
    /**
     * Starts capture of {@code server} (a shard of {@code keyspace}) with {@code config}.
     *
     * @return the running capture
     */
    Started start(String keyspace, ShardServer server, CaptureConfig config);
  }

  /** The default {@link Starter}: a bare {@link CaptureEngine}, which fails for good on its own. */
  public static final Starter ENGINE =
      (keyspace, server, config) -> {
        CaptureEngine engine = new CaptureEngine(config);
        engine.start();
        return new Started() {
          @Override
          public Optional<CapturePosition> committedPosition() {
            return engine.committedPosition();
          }

          @Override
          public Optional<String> failure() {
            return engine.state() == CaptureEngine.State.FAILED
                ? Optional.of(engine.failure().map(Throwable::getMessage).orElse("capture failed"))
                : Optional.empty();
          }

          @Override
          public void close() throws InterruptedException {
            engine.close();
          }
        };
      };

  private final Starter starter;
  private final Map<String, String> settings;
  private final Map<String, Supplier<Optional<CapturePosition>>> external = new HashMap<>();
  private final Map<String, Started> owned = new HashMap<>();
  private final Map<String, ServerId> serverIds = new HashMap<>();
  private final Map<String, Runnable> wakers = new HashMap<>();
  private final Map<String, Supplier<Optional<String>>> failures = new HashMap<>();
  private final Map<String, Supplier<Optional<String>>> troubles = new HashMap<>();

  /** A registry whose own captures are bare engines ({@link #ENGINE}). */
  public CaptureRegistry() {
    this(ENGINE);
  }

  /** A registry whose own captures {@code starter} starts. */
  public CaptureRegistry(Starter starter) {
    this(starter, Map.of());
  }

  /**
   * A registry whose own captures {@code starter} starts, each configured with {@code settings}
   * (capture keys such as {@code kafka.producer.buffer.memory} or {@code topic.max.message.bytes},
   * the daemon's {@code capture.*} keys without the prefix) on top of the registry's own tuning;
   * the keys that name the server, the shard and Kafka are the registry's and cannot be overridden.
   */
  public CaptureRegistry(Starter starter, Map<String, String> settings) {
    this.starter = java.util.Objects.requireNonNull(starter);
    this.settings = Map.copyOf(settings);
  }

  /**
   * Registers a capture run elsewhere in this process.
   *
   * @param committed the position that capture has committed to Kafka, read anew on every call (the
   *     host may replace the engine after a failure)
   */
  public synchronized void external(
      String keyspace, String shard, Supplier<Optional<CapturePosition>> committed) {
    external(keyspace, shard, committed, () -> {});
  }

  /**
   * Registers a capture run elsewhere in this process, with what {@link #ensure} calls before it
   * waits for it: e.g. a restart of a capture that failed because its database did not exist yet.
   */
  public synchronized void external(
      String keyspace,
      String shard,
      Supplier<Optional<CapturePosition>> committed,
      Runnable beforeWait) {
    external(keyspace, shard, committed, beforeWait, Optional::empty);
  }

  /**
   * Registers a capture run elsewhere in this process, with what {@link #ensure} calls before it
   * waits for it, and how to tell that it has stopped for good ({@link #failure}).
   *
   * @param failure the message of the error that stopped the capture for good, or empty while it
   *     runs or retries; read anew on every call
   */
  public synchronized void external(
      String keyspace,
      String shard,
      Supplier<Optional<CapturePosition>> committed,
      Runnable beforeWait,
      Supplier<Optional<String>> failure) {
    external.put(key(keyspace, shard), committed);
    wakers.put(key(keyspace, shard), beforeWait);
    failures.put(key(keyspace, shard), failure);
  }

  /**
   * Registers a capture run elsewhere in this process that presents {@code presents} to its server,
   * so that a capture this registry starts for another keyspace on the same server takes another
   * id; otherwise as {@link #external(String, String, Supplier, Runnable, Supplier)}.
   */
  public synchronized void external(
      String keyspace,
      String shard,
      ServerId presents,
      Supplier<Optional<CapturePosition>> committed,
      Runnable beforeWait,
      Supplier<Optional<String>> failure) {
    external(keyspace, shard, committed, beforeWait, failure);
    serverIds.put(key(keyspace, shard), presents);
  }

  /**
   * Tells how to read what keeps a capture registered with {@link #external} from committing while
   * it retries ({@link Started#trouble}).
   */
  public synchronized void trouble(
      String keyspace, String shard, Supplier<Optional<String>> trouble) {
    troubles.put(key(keyspace, shard), trouble);
  }

  /** What keeps the capture of {@code keyspace/shard} from committing, or empty. */
  Optional<String> trouble(String keyspace, String shard) {
    return condition(troubles, Started::trouble, keyspace, shard);
  }

  /**
   * Why the capture of {@code keyspace/shard} stopped for good (a change it cannot publish, say),
   * or empty while it runs, retries, or is not known here. Nothing of that shard reaches its topic
   * meanwhile, so its streams' lag (measured against what was published) cannot show it.
   */
  public Optional<String> failure(String keyspace, String shard) {
    return condition(failures, Started::failure, keyspace, shard);
  }

  /**
   * A condition of the capture of {@code keyspace/shard}: read from {@code registered} for a
   * capture run elsewhere, from {@code own} for one this registry started, empty for one not known
   * here. The supplier is called outside the registry's lock.
   */
  private Optional<String> condition(
      Map<String, Supplier<Optional<String>>> registered,
      Function<Started, Optional<String>> own,
      String keyspace,
      String shard) {
    String k = key(keyspace, shard);
    Supplier<Optional<String>> r;
    Started e;
    synchronized (this) {
      r = registered.get(k);
      e = owned.get(k);
    }
    if (r != null) {
      return r.get();
    }
    return e == null ? Optional.empty() : own.apply(e);
  }

  /**
   * Makes sure capture of {@code s} runs, and waits until it has committed a position covering the
   * server's position now: from then on every change of the shard reaches its topic. The wait reads
   * the capture's {@link #failure} between polls, so a capture stopped for good ends it at once.
   *
   * @return the committed position, read anew on every call
   * @throws SwitchRefusedException at once if the capture has stopped for good (before or during
   *     the wait), naming it and its error (which says what to change); nothing else has changed
   * @throws ReshardException if capture did not get there within {@code timeout}
   */
  public Supplier<Optional<CapturePosition>> ensure(
      ShardServer s, WorkflowSpec spec, Duration timeout) throws Exception {
    Supplier<Optional<CapturePosition>> committed = start(s, spec);
    Runnable waker;
    synchronized (this) {
      waker = wakers.getOrDefault(key(spec.keyspace(), s.shard()), () -> {});
    }
    waker.run();
    GtidPosition now = ServerFence.position(s);
    awaitCovers(
        s.shard(),
        committed,
        now,
        timeout,
        () -> failure(spec.keyspace(), s.shard()),
        () -> trouble(spec.keyspace(), s.shard()));
    return committed;
  }

  /** How often {@link #awaitCovers} reads the committed position and the capture's failure. */
  static final Duration POLL = Duration.ofMillis(10);

  /**
   * Waits until {@code committed} covers {@code position}, reading it and {@code failure} every
   * {@link #POLL}.
   *
   * @param shard the captured shard, for the messages
   * @param failure the error that stopped the capture for good, or empty while it runs or retries
   * @param trouble what keeps the capture from committing while it retries, or empty: named in the
   *     timeout's message
   * @throws SwitchRefusedException once {@code failure} names one (the capture does not start again
   *     by itself, so the position would never be reached)
   * @throws ReshardException if {@code committed} does not cover {@code position} within {@code
   *     timeout}
   * @throws InterruptedException if this thread is interrupted
   */
  static void awaitCovers(
      String shard,
      Supplier<Optional<CapturePosition>> committed,
      GtidPosition position,
      Duration timeout,
      Supplier<Optional<String>> failure,
      Supplier<Optional<String>> trouble)
      throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!committed.get().map(p -> p.gtids().covers(position)).orElse(false)) {
      Optional<String> why = failure.get();
      if (why.isPresent()) {
        throw new SwitchRefusedException(
            "the capture of shard "
                + shard
                + " has stopped, so it will not reach "
                + position
                + ": "
                + why.get());
      }
      if (System.nanoTime() > deadline) {
        throw new ReshardException(
            "capture of shard "
                + shard
                + " did not reach "
                + position
                + " within "
                + timeout.toSeconds()
                + " s; it is at "
                + committed.get().map(Object::toString).orElse("nothing yet")
                + trouble.get().map(t -> "; it is retrying: " + t).orElse(""));
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  /** The committed position of the capture of {@code keyspace/shard}, if it runs here. */
  public synchronized Optional<Supplier<Optional<CapturePosition>>> find(
      String keyspace, String shard) {
    String k = key(keyspace, shard);
    if (external.containsKey(k)) {
      return Optional.of(external.get(k));
    }
    Started e = owned.get(k);
    return e == null ? Optional.empty() : Optional.of(e::committedPosition);
  }

  private Supplier<Optional<CapturePosition>> start(ShardServer s, WorkflowSpec spec) {
    return start(spec.keyspace(), s, spec.bootstrap(), spec.topicPrefix());
  }

  /**
   * Starts the capture of {@code s} unless one runs (here or outside, {@link #external}): for the
   * keyspace change stream, which needs every shard of its keyspace captured, workflow or not. A
   * capture resumes from its stored position, or starts at the server's current one.
   *
   * @return its committed position, read anew on every call
   */
  public synchronized Supplier<Optional<CapturePosition>> start(
      String keyspace, ShardServer s, String bootstrap, String topicPrefix) {
    Optional<Supplier<Optional<CapturePosition>>> running = find(keyspace, s.shard());
    if (running.isPresent()) {
      return running.get();
    }
    long serverId = freeServerId(s);
    Map<String, String> m = captureMap(s, keyspace, bootstrap, topicPrefix, serverId, settings);
    Started capture = starter.start(keyspace, s, CaptureConfig.from(m));
    owned.put(key(keyspace, s.shard()), capture);
    serverIds.put(key(keyspace, s.shard()), new ServerId(s.host(), s.port(), serverId));
    return capture::committedPosition;
  }

  /**
   * The capture keys of a registry's capture of {@code s}: its tuning (heartbeats every 200 ms and
   * batches that wait at most 5 ms, so that waits for a position end soon after it is reached),
   * then {@code settings} (which may change that tuning), then the server, shard and Kafka, which
   * {@code settings} cannot change.
   */
  static Map<String, String> captureMap(
      ShardServer s, WorkflowSpec spec, long serverId, Map<String, String> settings) {
    return captureMap(s, spec.keyspace(), spec.bootstrap(), spec.topicPrefix(), serverId, settings);
  }

  private static Map<String, String> captureMap(
      ShardServer s,
      String keyspace,
      String bootstrap,
      String topicPrefix,
      long serverId,
      Map<String, String> settings) {
    Map<String, String> m = new HashMap<>();
    m.put("heartbeat.interval.ms", "200");
    m.put("batch.max.wait.ms", "5");
    m.putAll(settings);
    m.putAll(
        CaptureConfig.forServer(
            s.host(),
            s.port(),
            s.user(),
            s.password(),
            serverId,
            keyspace,
            s.shard(),
            bootstrap,
            topicPrefix));
    m.put("source.flavor", s.flavorOrDefault().name().toLowerCase(java.util.Locale.ROOT));
    return m;
  }

  /**
   * The binlog server id a capture presents to one server.
   *
   * @param host the server's host
   * @param port the server's port
   * @param id the server id the capture presents
   */
  public record ServerId(String host, int port, long id) {}

  /**
   * Ids apart for captures of several keyspaces on one server: far above any id a cluster hands
   * out, well within the 32 bits a server id has.
   */
  static final long SERVER_ID_STEP = 100_000_000L;

  /**
   * The server id for a new capture of {@code s}: its own ({@link ShardServer#captureServerId}),
   * or, while a capture this registry started or knows of ({@link #external(String, String,
   * ServerId, Supplier, Runnable, Supplier)}) presents it to the same server, the next one {@link
   * #SERVER_ID_STEP} up. A server drops a replica connection when another one presents the same id,
   * so two keyspaces' captures on one server with one id would stop each other in turn.
   */
  private long freeServerId(ShardServer s) {
    return freeServerId(s, serverIds.values());
  }

  static long freeServerId(ShardServer s, java.util.Collection<ServerId> taken) {
    long id = s.captureServerId();
    while (true) {
      long candidate = id;
      boolean used =
          taken.stream()
              .anyMatch(
                  t -> t.host().equals(s.host()) && t.port() == s.port() && t.id() == candidate);
      if (!used) {
        return id;
      }
      id += SERVER_ID_STEP;
    }
  }

  private static String key(String keyspace, String shard) {
    return keyspace + "/" + shard;
  }

  /** Stops the captures this registry started. */
  @Override
  public synchronized void close() throws InterruptedException {
    for (Map.Entry<String, Started> e : owned.entrySet()) {
      e.getValue().close();
      serverIds.remove(e.getKey());
    }
    owned.clear();
  }
}
