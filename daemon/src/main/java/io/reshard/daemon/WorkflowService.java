package io.reshard.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import io.reshard.core.error.ErrorClassifier;
import io.reshard.router.AutoIncrement;
import io.reshard.router.RetriableReshardException;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopic;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.router.VSchema;
import io.reshard.router.VSchemaTable;
import io.reshard.switcher.AutoIncrementMode;
import io.reshard.switcher.CaptureRegistry;
import io.reshard.switcher.CutoverAbortedException;
import io.reshard.switcher.IllegalTransitionException;
import io.reshard.switcher.SchemaObjects;
import io.reshard.switcher.ShardServer;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.TriggerMode;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowSpecValidator;
import io.reshard.switcher.WorkflowState;
import io.reshard.switcher.WorkflowStore;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's workflow runners (DESIGN 5): hosts a {@link WorkflowRunner} per active workflow,
 * takes up every stored workflow at start ({@link WorkflowRunner#resume}, then the copy if it is
 * unfinished), runs each copy on a thread of its own, and performs the operator's actions ({@link
 * WorkflowActions}, named by {@link WorkflowAction}): {@code create}, {@code diff}, {@code
 * switch-reads}, {@code switch-writes}, {@code reverse-traffic}, {@code complete}, {@code cancel},
 * {@code resume}. An action returns when its step has finished or been rolled back; one action at a
 * time per workflow (another one answers {@code RETRY_LATER}). Each hosted workflow is a {@link
 * HostedWorkflow}; the actions on one are {@link HostedActions}; its streams are supervised by the
 * {@link StreamController}. What it adds to a workflow's JSON is rendered by {@link WorkflowViews}.
 * Thread-safe.
 */
public final class WorkflowService implements DaemonService, WorkflowActions {
  private static final Logger LOG = LoggerFactory.getLogger(WorkflowService.class);

  /** The parameter of {@code resume} that skips a capture stop ({@link CaptureStops#skip}). */
  static final String SKIP_CAPTURE_STOP = "skip_capture_stop";

  private final DaemonConfig config;
  private final ServerDirectory servers;
  private final WorkflowStore store;
  private final WorkflowEngine engine;
  private final CaptureRegistry captures;
  private final MeterRegistry meters;
  private final Map<String, ShardMapPublisher> publishers = new HashMap<>();
  private final Map<String, HostedWorkflow> hosted = new ConcurrentHashMap<>();
  private volatile ServiceState state = ServiceState.NEW;
  private volatile String detail;
  private Thread resumer;
  private final java.util.concurrent.CountDownLatch firstPass =
      new java.util.concurrent.CountDownLatch(1);
  private final CaptureStops captureStops;
  private final StreamController streams;

  /**
   * @param config the daemon's configuration (Kafka, topics, the {@code workflow.*} limits)
   * @param servers where shards may live
   * @param store the workflow records
   * @param captures the daemon's captures, shared by its workflows
   * @param meters where the appliers' lag and throughput meters go
   */
  public WorkflowService(
      DaemonConfig config,
      ServerDirectory servers,
      WorkflowStore store,
      CaptureRegistry captures,
      MeterRegistry meters) {
    this(config, servers, store, captures, meters, (keyspace, shard) -> Optional.empty());
  }

  /**
   * A workflow service that can also tell, and act on, how the daemon's captures stopped ({@link
   * CaptureStops}: the way on in status and health, {@code resume --skip-capture-stop}).
   *
   * @param captureServices the daemon's capture service of a keyspace's shard, if it runs one
   */
  public WorkflowService(
      DaemonConfig config,
      ServerDirectory servers,
      WorkflowStore store,
      CaptureRegistry captures,
      MeterRegistry meters,
      java.util.function.BiFunction<String, String, Optional<CaptureService>> captureServices) {
    this.captureStops = new CaptureStops(captureServices::apply);
    this.streams =
        new StreamController(() -> hosted.values(), h -> captureStops.wayOn(h.runner.workflow()));
    this.meters = meters;
    this.config = config;
    this.servers = servers;
    this.store = store;
    this.engine = new WorkflowEngine(store, Clock.systemUTC());
    this.captures = captures;
  }

  @Override
  public String name() {
    return "workflows";
  }

  /** Takes up the stored workflows on a thread of its own: Kafka may take a while to answer. */
  @Override
  public synchronized void start() {
    state = ServiceState.STARTING;
    resumer = new Thread(this::resumeAll, "workflow-resume");
    resumer.setDaemon(true);
    resumer.start();
    streams.start();
  }

  /**
   * Takes up every stored workflow that is not finished. One that cannot be taken up (its source or
   * target not answering yet, say) is tried again every {@link StreamController#EVERY} until it is,
   * or the daemon stops; meanwhile the service is {@code RETRYING}, naming it. Actions wait for the
   * first pass only ({@link #awaitTakenUp}).
   */
  private void resumeAll() {
    List<Workflow> pending;
    try {
      pending = storedWorkflows().stream().filter(w -> !w.state().isTerminal()).toList();
    } catch (RuntimeException e) {
      LOG.error("reading the stored workflows failed: {}", e.toString(), e);
      detail = "reading the stored workflows: " + e.getMessage();
      state = ServiceState.FAILED;
      firstPass.countDown();
      return;
    }
    Map<String, String> recorded = new HashMap<>();
    while (true) {
      pending = takeUp(pending, recorded);
      firstPass.countDown();
      if (pending == null) {
        return; // stopping
      }
      if (pending.isEmpty()) {
        break;
      }
      state = ServiceState.RETRYING;
      detail =
          "not taken up yet, tried again every "
              + StreamController.EVERY.toSeconds()
              + " s: "
              + String.join("; ", recorded.values());
      try {
        Thread.sleep(StreamController.EVERY.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      pending = reloaded(pending);
    }
    detail = null;
    state = ServiceState.RUNNING;
    LOG.info("workflows taken up: {}", hosted.keySet());
  }

  /**
   * Takes up each of {@code workflows}; the first failure of each (or a new one) is recorded on it.
   *
   * @param recorded per workflow, the failure last recorded; updated
   * @return the workflows that could not be taken up, or null if the daemon is stopping
   */
  private List<Workflow> takeUp(List<Workflow> workflows, Map<String, String> recorded) {
    List<Workflow> failed = new ArrayList<>();
    for (Workflow w : workflows) {
      try {
        resume(w);
        recorded.remove(w.name());
      } catch (Exception e) {
        if (stopping(e)) {
          // the daemon is stopping: not a failure of the workflow, so nothing is recorded on it
          LOG.info("taking up workflow {} stopped: the daemon is stopping", w.name());
          Thread.currentThread().interrupt();
          return null;
        }
        failed.add(w);
        String why = w.name() + ": " + e.getMessage();
        if (!why.equals(recorded.put(w.name(), why))) {
          LOG.error("workflow {} could not be taken up: {}", w.name(), e.toString(), e);
          recordQuietly(w.withError("not taken up after a restart: " + e, Instant.now()));
        }
      }
    }
    return failed;
  }

  /** {@code workflows} as stored now (an operator may have moved one on meanwhile). */
  private List<Workflow> reloaded(List<Workflow> workflows) {
    List<Workflow> now = new ArrayList<>();
    for (Workflow w : workflows) {
      try {
        store.load(w.name()).filter(x -> !x.state().isTerminal()).ifPresent(now::add);
      } catch (RuntimeException e) {
        now.add(w); // the store is not readable yet: try the one we have
      }
    }
    return now;
  }

  /** Stores {@code w}; the store may be what failed, so a failure is only logged. */
  private void recordQuietly(Workflow w) {
    try {
      engine.update(w);
    } catch (RuntimeException e) {
      LOG.warn("workflow {}: its error could not be stored: {}", w.name(), e.toString());
    }
  }

  /**
   * The stored workflows; while Kafka cannot be read (the broker not up yet), tries again every 2 s
   * until it can or the daemon stops.
   */
  private List<Workflow> storedWorkflows() {
    while (true) {
      try {
        return store.list();
      } catch (RuntimeException e) {
        if (Thread.currentThread().isInterrupted() || state == ServiceState.STOPPING) {
          throw e;
        }
        state = ServiceState.RETRYING;
        detail = "cannot read the stored workflows yet: " + e.getMessage();
        LOG.warn("{}; trying again in 2 s", detail);
        try {
          Thread.sleep(2000);
        } catch (InterruptedException x) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  /** True if {@code e} ended a take-up because the daemon is stopping (its thread interrupted). */
  private boolean stopping(Exception e) {
    if (state == ServiceState.STOPPING) {
      return true;
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InterruptedException) {
        return true;
      }
    }
    return Thread.currentThread().isInterrupted();
  }

  private void resume(Workflow w) throws Exception {
    WorkflowSpec spec = spec(w, w.servers());
    HostedWorkflow h = new HostedWorkflow(runner(spec));
    Workflow now;
    try {
      now = h.runner.resume(w);
    } catch (Exception e) {
      h.runner.close();
      throw e;
    }
    LOG.info("workflow {} taken up in state {}", w.name(), now.state());
    hosted.put(w.name(), h); // visible (and open to actions) once taken up
    if (now.state() == WorkflowState.CREATED || now.state() == WorkflowState.COPYING) {
      h.startCopy(engine, config.copierConfig());
    }
  }

  @Override
  public void stop() {
    synchronized (this) {
      state = ServiceState.STOPPING;
      if (resumer != null) {
        resumer.interrupt();
      }
      streams.stop();
    }
    for (HostedWorkflow h : hosted.values()) {
      h.stopCopy();
      try {
        h.runner.close();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    hosted.clear();
    synchronized (publishers) {
      publishers.values().forEach(ShardMapPublisher::close);
      publishers.clear();
    }
    try {
      captures.close();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    state = ServiceState.STOPPED;
  }

  /**
   * {@code RETRYING} while a hosted workflow has a stream in error or a stopped copy, else the
   * service's own state.
   */
  @Override
  public ServiceState state() {
    return state == ServiceState.RUNNING && streams.problem().isPresent()
        ? ServiceState.RETRYING
        : state;
  }

  @Override
  public String detail() {
    return streams.problem().or(streams::notice).orElse(detail);
  }

  @Override
  public Result perform(String name, String action, Map<String, String> params) {
    try {
      awaitTakenUp();
      Optional<WorkflowAction> known = WorkflowAction.fromWire(action);
      if (known.isEmpty()) {
        return new Result(
            Outcome.BAD_REQUEST,
            "no action " + action + "; the actions are " + WorkflowAction.wireNames());
      }
      if (known.get() == WorkflowAction.CREATE) {
        return create(name, params);
      }
      HostedWorkflow h = hosted.get(name);
      if (h == null) {
        return store
            .load(name)
            .map(
                w ->
                    w.state().isTerminal()
                        ? new Result(
                            Outcome.REFUSED,
                            "workflow "
                                + name
                                + " is "
                                + w.state().inWords()
                                + "; nothing more can be done with it")
                        : new Result(
                            Outcome.RETRY_LATER,
                            "workflow "
                                + name
                                + " is "
                                + w.state().inWords()
                                + " but this daemon has not taken it up yet ("
                                + Optional.ofNullable(w.lastError()).orElse("see its log")
                                + "); it tries again every "
                                + StreamController.EVERY.toSeconds()
                                + " s"))
            .orElseGet(() -> new Result(Outcome.NOT_FOUND, "no workflow named " + name));
      }
      if (!h.lock.tryLock()) {
        return new Result(
            Outcome.RETRY_LATER,
            "another action is running on workflow " + name + "; try again when it has finished");
      }
      try {
        if (known.get() == WorkflowAction.RESUME
            && Boolean.parseBoolean(params.getOrDefault(SKIP_CAPTURE_STOP, "false"))) {
          return captureStops.skip(h, hosted.values());
        }
        return HostedActions.act(h, known.get(), params, hosted::remove, captureStops);
      } finally {
        h.lock.unlock();
      }
    } catch (SwitchRefusedException | IllegalTransitionException e) {
      return new Result(Outcome.REFUSED, e.getMessage());
    } catch (CutoverAbortedException e) {
      return new Result(Outcome.ABORTED, e.getMessage());
    } catch (RetriableReshardException e) {
      return new Result(Outcome.RETRY_LATER, e.getMessage());
    } catch (IllegalArgumentException e) {
      return new Result(Outcome.BAD_REQUEST, e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Result(Outcome.RETRY_LATER, "the daemon is stopping");
    } catch (Exception e) {
      LOG.error("workflow {} action {} failed: {}", name, action, e.toString(), e);
      // a server or the broker that did not answer: the same action can succeed later
      return ErrorClassifier.classify(e) == ErrorClassifier.Failure.RETRIABLE
          ? new Result(Outcome.RETRY_LATER, action + " failed, try again: " + e.getMessage())
          : new Result(Outcome.REFUSED, action + " failed: " + e.getMessage());
    }
  }

  /**
   * Actions wait until every stored workflow has been tried once after a start (those that could
   * not be taken up are tried again in the background).
   */
  private void awaitTakenUp() throws InterruptedException {
    boolean started;
    synchronized (this) {
      started = resumer != null;
    }
    if (started) {
      firstPass.await(5, TimeUnit.MINUTES);
    }
  }

  private Result create(String name, Map<String, String> p) throws Exception {
    AutoIncrementMode autoIncrement = AutoIncrementMode.parse(p.get(AutoIncrementMode.PARAM));
    TriggerMode triggers = TriggerMode.parse(p.get("triggers")); // a malformed request: usage
    WorkflowSpecValidator.Request request =
        new WorkflowSpecValidator(store, this::newestMap, servers::knows, servers::defaultTargets)
            .validate(name, p);
    String keyspace = request.keyspace();
    List<String> sources = request.sources();
    List<String> targets = request.targets();
    List<String> targetServers = request.targetServers();
    Map<String, String> refs = request.servers();
    WorkflowSpec base =
        spec(Workflow.create(name, keyspace, sources, targets, null, Instant.now()), refs);
    WorkflowSpec spec =
        base.withAutoIncrement(autoIncrement, base.sequenceServers()).withTriggers(triggers);
    HostedWorkflow h = new HostedWorkflow(runner(spec));
    h.lock.lock();
    try {
      try {
        h.runner.create();
      } catch (Exception e) {
        h.runner.close();
        throw e;
      }
      hosted.put(name, h);
      h.startCopy(engine, config.copierConfig());
    } finally {
      h.lock.unlock();
    }
    return new Result(
        Outcome.DONE,
        "workflow "
            + name
            + " created: "
            + String.join(",", sources)
            + " -> "
            + targets
            + " on "
            + targetServers
            + "; P0 "
            + h.runner.workflow().p0()
            + "; the copy runs"
            + created(h.runner.workflow().schemaObjects()));
  }

  /** What a create's answer adds about triggers, views and routines; empty if nothing. */
  private static String created(SchemaObjects o) {
    StringBuilder m = new StringBuilder();
    if (o.triggers() == TriggerMode.FOLLOW_WRITES) {
      int n = o.triggerDefinitions().size();
      m.append("; ")
          .append(n == 1 ? "1 trigger follows" : n + " triggers follow")
          .append(" writes (they stay on the source until writes switch)");
    }
    if (!o.carried().isEmpty()) {
      m.append("; created on the targets: ").append(String.join(", ", o.carried()));
    }
    if (o.warning() != null) {
      m.append("; WARNING: ").append(o.warning());
    }
    return m.toString();
  }

  /** The newest shard map of {@code keyspace}; without one its publisher is dropped. */
  private Optional<ShardMap> newestMap(String keyspace) {
    Optional<ShardMap> newest = publisher(keyspace).newest();
    if (newest.isEmpty()) {
      synchronized (publishers) {
        publishers.remove(keyspace).close(); // keyspace init must be able to publish version 1
      }
    }
    return newest;
  }

  /** A runner of {@code spec} with this daemon's captures, meters and diff and apply settings. */
  private WorkflowRunner runner(WorkflowSpec spec) {
    return new WorkflowRunner(spec, engine, publisher(spec.keyspace()), captures, meters)
        .configure(config.differConfig(), config.applySettings());
  }

  private WorkflowSpec spec(Workflow w, Map<String, String> refs) {
    ShardMap map =
        publisher(w.keyspace())
            .newest()
            .orElseThrow(
                () -> new SwitchRefusedException("keyspace " + w.keyspace() + " has no shard map"));
    List<ShardServer> sources = new ArrayList<>();
    for (String s : w.sources()) {
      sources.add(servers.server(ref(refs, s, w), s));
    }
    List<ShardServer> targets = new ArrayList<>();
    for (String t : w.targets()) {
      targets.add(servers.server(ref(refs, t, w), t));
    }
    return new WorkflowSpec(
        w.name(),
        w.keyspace(),
        map.vschema(),
        sources,
        targets,
        config.bootstrapServers(),
        config.topicPrefix(),
        config.shardmapsTopic(),
        config.workflowMaxLag(),
        config.workflowFenceLockWait(),
        config.workflowCatchUpTimeout(),
        AutoIncrementMode.SEQUENCE,
        sequenceServers(map.vschema()),
        w.schemaObjects().triggers());
  }

  /**
   * The server of every sequence keyspace {@code vschema}'s auto_increments name, as the newest map
   * of that (unsharded) keyspace places its one shard; read without a publisher, so nothing is
   * fenced. A keyspace without a map, or whose server this daemon does not know, is left out:
   * create refuses a workflow that needs it ({@code SequenceStep}).
   */
  private Map<String, ShardServer> sequenceServers(VSchema vschema) {
    Map<String, ShardServer> m = new LinkedHashMap<>();
    ShardMapTopicConfig topic =
        ShardMapTopicConfig.builder()
            .bootstrapServers(config.bootstrapServers())
            .topic(config.shardmapsTopic())
            .build();
    for (VSchemaTable t : vschema.tables().values()) {
      Optional<AutoIncrement> ai = t.autoIncrement();
      if (ai.isEmpty() || m.containsKey(ai.get().sequenceKeyspace())) {
        continue;
      }
      List<ShardMap> history = ShardMapTopic.history(topic, ai.get().sequenceKeyspace());
      if (history.isEmpty()) {
        continue;
      }
      ShardMap newest = history.get(history.size() - 1);
      newest.shards().stream()
          .filter(Shard::servesWrites)
          .findFirst()
          .filter(sh -> servers.knows(sh.endpoint()))
          .ifPresent(
              sh -> m.put(ai.get().sequenceKeyspace(), servers.server(sh.endpoint(), sh.name())));
    }
    return m;
  }

  private static String ref(Map<String, String> refs, String shard, Workflow w) {
    String r = refs.get(shard);
    if (r == null) {
      throw new IllegalArgumentException(
          "workflow " + w.name() + " does not record the server of shard " + shard);
    }
    return r;
  }

  /**
   * The keyspace's publisher; one that has learnt it was fenced (a {@code keyspace set-vschema}
   * published since, see {@link ShardMapPublisher#isFenced()}) is replaced by a new one.
   */
  private ShardMapPublisher publisher(String keyspace) {
    synchronized (publishers) {
      ShardMapPublisher cached = publishers.get(keyspace);
      if (cached != null && cached.isFenced()) {
        publishers.remove(keyspace).close();
      }
      return publishers.computeIfAbsent(
          keyspace,
          k ->
              ShardMapPublisher.open(
                  ShardMapTopicConfig.builder()
                      .bootstrapServers(config.bootstrapServers())
                      .topic(config.shardmapsTopic())
                      .build(),
                  k));
    }
  }

  @Override
  public Optional<Workflow> hostedRecord(String workflow) {
    HostedWorkflow h = hosted.get(workflow);
    return h == null ? Optional.empty() : Optional.ofNullable(h.runner.workflow());
  }

  @Override
  public Map<String, Object> details(String workflow) {
    HostedWorkflow h = hosted.get(workflow);
    if (h == null) {
      return WorkflowViews.notHosted();
    }
    Workflow stored = h.runner.workflow();
    Map<String, Object> m =
        WorkflowViews.hosted(stored, h.runner.status(), h.copyError(), h.copyHeals());
    captureStops.wayOn(stored).ifPresent(way -> m.put("way_on", way));
    m.put("captures", captureStops.captures(stored));
    return m;
  }
}
