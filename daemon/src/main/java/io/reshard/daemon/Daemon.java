package io.reshard.daemon;

import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reshard.cdc.CaptureEngine;
import io.reshard.core.position.GtidPosition;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.switcher.CaptureRegistry;
import io.reshard.switcher.WorkflowStore;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.BiConsumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The long-running pipeline daemon: hosts the admin endpoint ({@link AdminServer}), one capture
 * service per configured source shard ({@link CaptureService}), the workflow runners ({@link
 * WorkflowService}, with {@link Builder#workflows}) and the services added with {@link
 * Builder#addService}, in that order.
 *
 * <p>{@link #start()} starts them in order; if one cannot start, the ones already started are
 * stopped in reverse order and the error is thrown. {@link #stop()} stops every started service in
 * reverse order (workflow runners, then capture, then the admin endpoint, so health stays readable
 * until the end). The CLI calls {@code stop} from a shutdown hook on SIGTERM.
 *
 * <p>Thread-safe.
 */
public final class Daemon {
  private static final Logger LOG = LoggerFactory.getLogger(Daemon.class);

  private final DaemonConfig config;
  private final AdminServer admin;
  private final List<DaemonService> services;
  private final AutoCloseable onStop;
  private final List<DaemonService> started = new ArrayList<>();
  private final List<CaptureService> onDemand = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private boolean stopCalled;

  private Daemon(Builder b) {
    this.config = b.config;
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    LazyWorkflowStore lazy =
        b.workflows == null
            ? new LazyWorkflowStore(config.bootstrapServers(), config.workflowsTopic())
            : null;
    WorkflowStore store = lazy != null ? lazy : b.workflows;
    AutoCloseable closeStore = lazy != null ? lazy : () -> {};
    List<DaemonService> captureServices = new ArrayList<>();
    for (SourceShard s : config.shards()) {
      captureServices.add(b.captures.apply(new CaptureContext(config, s, registry)));
    }
    WorkflowService workflows = null;
    BiConsumer<String, ShardMap> streamCaptures = null;
    if (b.servers != null && b.actions == null) {
      CaptureRegistry shared =
          new CaptureRegistry(onDemandCaptures(config, registry), config.captureSettings());
      streamCaptures = (keyspace, map) -> captureShards(config, b.servers, shared, keyspace, map);
      for (DaemonService c : captureServices) {
        if (c instanceof CaptureService cs) {
          shared.external(
              cs.shard().keyspace(),
              cs.shard().shard(),
              new CaptureRegistry.ServerId(
                  cs.shard().host(), cs.shard().port(), cs.shard().serverId()),
              cs::committedPosition,
              cs::restartIfFailed,
              () ->
                  cs.state() == ServiceState.FAILED
                      ? Optional.of(String.valueOf(cs.detail()))
                      : Optional.empty());
          shared.trouble(cs.shard().keyspace(), cs.shard().shard(), () -> retrying(cs));
        }
      }
      List<DaemonService> configured = List.copyOf(captureServices);
      workflows =
          new WorkflowService(
              config,
              b.servers,
              store,
              shared,
              registry,
              (keyspace, shard) -> captureService(configured, keyspace, shard));
    }
    WorkflowActions actions =
        b.actions != null
            ? b.actions
            : workflows != null ? workflows : WorkflowActions.unsupported(store);
    ShardMapViews maps = new ShardMapViews(config, store);
    this.onStop =
        () -> {
          maps.close();
          closeStore.close();
        };
    this.admin = new AdminServer(config, this::status, store, actions, registry, maps::views);
    List<DaemonService> all = new ArrayList<>();
    all.add(admin);
    all.addAll(captureServices);
    if (config.keyspaceStreamEnabled() && b.realCaptures) {
      // tests that stand in for capture have no change topics to read
      all.add(new KeyspaceStreams(config, streamCaptures));
    }
    if (workflows != null) {
      all.add(workflows);
    }
    all.addAll(b.extra);
    this.services = List.copyOf(all);
  }

  /**
   * How the workflows' captures of shards the configuration does not list are started: each as a
   * {@link CaptureService}, supervised, metered and shown by {@code /health} like a configured one,
   * for as long as the workflows need it.
   */
  private CaptureRegistry.Starter onDemandCaptures(
      DaemonConfig config, PrometheusMeterRegistry registry) {
    Clock clock = Clock.systemUTC();
    return (keyspace, server, captureConfig) -> {
      SourceShard shard =
          new SourceShard(
              keyspace,
              server.shard(),
              server.host(),
              server.port(),
              server.user(),
              Secret.of(server.password()),
              server.captureServerId(),
              null,
              server.flavorOrDefault() == GtidPosition.Flavor.MYSQL ? "mysql" : "mariadb");
      CaptureService service =
          new CaptureService(
              shard,
              captureConfig,
              (cfg, listener) -> new CaptureEngine(cfg, listener, clock),
              new CaptureMetrics(registry, shard, clock),
              config.restartBackoffInitial(),
              config.restartBackoffMax(),
              config.shutdownTimeout(),
              CaptureService.Pause.SYSTEM);
      service.start();
      onDemand.add(service);
      return new CaptureRegistry.Started() {
        @Override
        public Optional<io.reshard.core.position.CapturePosition> committedPosition() {
          return service.committedPosition();
        }

        @Override
        public Optional<String> failure() {
          return service.state() == ServiceState.FAILED
              ? Optional.of(String.valueOf(service.detail()))
              : Optional.empty();
        }

        @Override
        public Optional<String> trouble() {
          return retrying(service);
        }

        @Override
        public void close() {
          service.stop();
          onDemand.remove(service);
        }
      };
    };
  }

  /** The detail of a capture that retries (what it cannot reach), or empty. */
  private static Optional<String> retrying(CaptureService capture) {
    return capture.state() == ServiceState.RETRYING
        ? Optional.of(String.valueOf(capture.detail()))
        : Optional.empty();
  }

  /**
   * Starts the capture of every shard of {@code map} that serves writes and that no one captures
   * yet, for the keyspace change stream, which must read every owner of its keyspace whether a
   * workflow moves it or not (a workflow's targets are captured by its switch, before they take a
   * write; capturing them sooner would only carry the copy through Kafka).
   */
  private static void captureShards(
      DaemonConfig config,
      ServerDirectory servers,
      CaptureRegistry registry,
      String keyspace,
      ShardMap map) {
    for (Shard shard : map.shards()) {
      if (!shard.servesWrites() || !servers.knows(shard.endpoint())) {
        continue;
      }
      try {
        registry.start(
            keyspace,
            servers.server(shard.endpoint(), shard.name()),
            config.bootstrapServers(),
            config.topicPrefix());
      } catch (RuntimeException e) {
        LOG.warn("keyspace {}: cannot start the capture of shard {}: {}", keyspace, shard, e);
      }
    }
  }

  /** The capture service of {@code keyspace/shard}: a configured one, or one a workflow started. */
  private Optional<CaptureService> captureService(
      List<DaemonService> configured, String keyspace, String shard) {
    List<DaemonService> all = new ArrayList<>(configured);
    all.addAll(onDemand);
    return all.stream()
        .filter(s -> s instanceof CaptureService)
        .map(s -> (CaptureService) s)
        .filter(c -> c.shard().keyspace().equals(keyspace) && c.shard().shard().equals(shard))
        .findFirst();
  }

  /** A builder for a daemon with {@code config}. */
  public static Builder builder(DaemonConfig config) {
    return new Builder(config);
  }

  /**
   * What a capture service is made from.
   *
   * @param config the daemon's configuration
   * @param shard the source shard
   * @param registry where its meters go
   */
  public record CaptureContext(
      DaemonConfig config, SourceShard shard, PrometheusMeterRegistry registry) {}

  /**
   * The real capture service of a shard: a {@link CaptureService} around {@link CaptureEngine}s.
   */
  public static DaemonService captureService(CaptureContext c) {
    Clock clock = Clock.systemUTC();
    return new CaptureService(
        c.shard(),
        c.config().captureConfig(c.shard()),
        (cfg, listener) -> new CaptureEngine(cfg, listener, clock),
        new CaptureMetrics(c.registry(), c.shard(), clock),
        c.config().restartBackoffInitial(),
        c.config().restartBackoffMax(),
        c.config().shutdownTimeout(),
        CaptureService.Pause.SYSTEM);
  }

  /**
   * Starts every service in order.
   *
   * @throws DaemonStartException (or the service's own exception) if one cannot start; the ones
   *     already started have been stopped
   * @throws IllegalStateException if called twice
   */
  public synchronized void start() {
    if (!started.isEmpty() || stopCalled) {
      throw new IllegalStateException("the daemon was already started");
    }
    LOG.info("starting: {}", config);
    for (DaemonService s : services) {
      try {
        s.start();
        started.add(s);
        LOG.info("started {} ({})", s.name(), s.state());
      } catch (RuntimeException e) {
        LOG.error("{} could not start: {}; stopping what was started", s.name(), e.getMessage());
        stopStarted();
        stopped.countDown();
        throw e;
      }
    }
    LOG.info("daemon up: admin endpoint {}", admin.endpoint());
  }

  /** Stops every started service in reverse order; idempotent. */
  public void stop() {
    synchronized (this) {
      if (stopCalled) {
        return;
      }
      stopCalled = true;
      LOG.info("stopping");
      stopStarted();
    }
    try {
      onStop.close();
    } catch (Exception e) {
      LOG.warn("closing the workflow store: {}", e.toString());
    }
    LOG.info("stopped");
    stopped.countDown();
  }

  private void stopStarted() {
    for (int i = started.size() - 1; i >= 0; i--) {
      DaemonService s = started.get(i);
      try {
        s.stop();
        LOG.info("stopped {} ({})", s.name(), s.state());
      } catch (RuntimeException e) {
        LOG.warn("stopping {} failed: {}", s.name(), e.toString());
      }
    }
    started.clear();
  }

  /** Blocks until {@link #stop()} has finished (or a start failed). */
  public void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  /**
   * Every hosted service's status, in start order, then the captures the workflows started for
   * shards the configuration does not list.
   */
  public List<ServiceStatus> status() {
    List<ServiceStatus> all = new ArrayList<>();
    services.forEach(s -> all.add(ServiceStatus.of(s)));
    onDemand.forEach(s -> all.add(ServiceStatus.of(s)));
    return all;
  }

  /**
   * The admin endpoint's base URI (after {@link #start()}), e.g. {@code http://127.0.0.1:15000}.
   */
  public URI adminEndpoint() {
    return admin.endpoint();
  }

  /** Builds a {@link Daemon}; not thread-safe. */
  public static final class Builder {
    private final DaemonConfig config;
    private final List<DaemonService> extra = new ArrayList<>();
    private WorkflowStore workflows;
    private WorkflowActions actions;
    private Function<CaptureContext, DaemonService> captures = Daemon::captureService;
    private boolean realCaptures = true;
    private ServerDirectory servers;

    private Builder(DaemonConfig config) {
      this.config = config;
    }

    /**
     * The workflow store; default: the Kafka topic {@code workflows.topic}, opened on first use.
     */
    public Builder workflowStore(WorkflowStore store) {
      this.workflows = store;
      return this;
    }

    /** What mutating admin calls do; default: {@link WorkflowActions#unsupported}. */
    public Builder workflowActions(WorkflowActions a) {
      this.actions = a;
      return this;
    }

    /**
     * Hosts the workflow runners ({@link WorkflowService}) with shards on {@code directory}'s
     * servers; they answer the mutating admin calls unless {@link #workflowActions} was set.
     */
    public Builder workflows(ServerDirectory directory) {
      this.servers = directory;
      return this;
    }

    /** Adds a service, started after capture (and the workflow runners) and stopped before. */
    public Builder addService(DaemonService service) {
      extra.add(service);
      return this;
    }

    /** How each shard's capture service is made; default: {@link #captureService}. */
    public Builder captureServices(Function<CaptureContext, DaemonService> factory) {
      this.captures = factory;
      this.realCaptures = false;
      return this;
    }

    /** The daemon. */
    public Daemon build() {
      return new Daemon(this);
    }
  }
}
