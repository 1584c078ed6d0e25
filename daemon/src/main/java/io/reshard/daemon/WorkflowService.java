package io.reshard.daemon;

import io.micrometer.core.instrument.MeterRegistry;
import io.reshard.differ.DiffReport;
import io.reshard.differ.Differ;
import io.reshard.differ.TableDiff;
import io.reshard.router.KeyRange;
import io.reshard.router.RetriableReshardException;
import io.reshard.router.Shard;
import io.reshard.router.ShardMap;
import io.reshard.router.ShardMapPublisher;
import io.reshard.router.ShardMapTopicConfig;
import io.reshard.switcher.CaptureRegistry;
import io.reshard.switcher.CutoverAbortedException;
import io.reshard.switcher.IllegalTransitionException;
import io.reshard.switcher.ShardServer;
import io.reshard.switcher.SwitchRefusedException;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowEngine;
import io.reshard.switcher.WorkflowRunner;
import io.reshard.switcher.WorkflowSpec;
import io.reshard.switcher.WorkflowState;
import io.reshard.switcher.WorkflowStatus;
import io.reshard.switcher.WorkflowStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's workflow runners (DESIGN 5): hosts a {@link WorkflowRunner} per active workflow,
 * takes up every stored workflow at start ({@link WorkflowRunner#resume}, then the copy if it is
 * unfinished), runs each copy on a thread of its own, and performs the operator's actions ({@link
 * WorkflowActions}, named by {@link WorkflowAction}): {@code create}, {@code diff}, {@code
 * switch-reads}, {@code switch-writes}, {@code reverse-traffic}, {@code complete}, {@code cancel},
 * {@code resume}. An action returns when its step has finished or been rolled back; one action at a
 * time per workflow (another one answers {@code RETRY_LATER}). What it adds to a workflow's JSON is
 * rendered by {@link WorkflowViews}. Thread-safe.
 */
public final class WorkflowService implements DaemonService, WorkflowActions {
  private static final Logger LOG = LoggerFactory.getLogger(WorkflowService.class);

  private final DaemonConfig config;
  private final ServerDirectory servers;
  private final WorkflowStore store;
  private final WorkflowEngine engine;
  private final CaptureRegistry captures;
  private final MeterRegistry meters;
  private final Map<String, ShardMapPublisher> publishers = new HashMap<>();
  private final Map<String, Hosted> hosted = new ConcurrentHashMap<>();
  private volatile ServiceState state = ServiceState.NEW;
  private volatile String detail;
  private Thread resumer;
  private Thread supervisor;
  private static final long SUPERVISE_EVERY_MS = 5_000;

  /** A running workflow: its runner, the lock its actions take, and its copy thread. */
  private static final class Hosted {
    final WorkflowRunner runner;
    final ReentrantLock lock = new ReentrantLock();
    volatile Thread copy;
    volatile String copyError;

    Hosted(WorkflowRunner runner) {
      this.runner = runner;
    }
  }

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
    supervisor = new Thread(this::supervise, "workflow-streams-supervisor");
    supervisor.setDaemon(true);
    supervisor.start();
  }

  /**
   * Every 5 s, starts again the streams whose applier ended because Kafka or a target could not be
   * reached (as capture's supervisor does for capture), on a workflow no action holds.
   */
  private void supervise() {
    while (state != ServiceState.STOPPING && state != ServiceState.STOPPED) {
      try {
        Thread.sleep(SUPERVISE_EVERY_MS);
      } catch (InterruptedException e) {
        return;
      }
      for (Hosted h : hosted.values()) {
        if (h.lock.tryLock()) {
          try {
            int n = h.runner.restartDeadStreams();
            if (n > 0) {
              LOG.warn(
                  "workflow {}: {} stream(s) had stopped in error; started again from their"
                      + " stored positions",
                  h.runner.spec().name(),
                  n);
            }
          } catch (RuntimeException e) {
            LOG.warn(
                "workflow {}: restarting its streams failed: {}",
                h.runner.spec().name(),
                e.toString());
          } finally {
            h.lock.unlock();
          }
        }
      }
    }
  }

  private void resumeAll() {
    List<String> failed = new ArrayList<>();
    try {
      for (Workflow w : storedWorkflows()) {
        if (w.state().isTerminal()) {
          continue;
        }
        try {
          resume(w);
        } catch (Exception e) {
          if (stopping(e)) {
            // the daemon is stopping: not a failure of the workflow, so nothing is recorded on it
            LOG.info("taking up workflow {} stopped: the daemon is stopping", w.name());
            Thread.currentThread().interrupt();
            return;
          }
          LOG.error("workflow {} could not be taken up: {}", w.name(), e.toString(), e);
          failed.add(w.name() + ": " + e.getMessage());
          engine.update(w.withError("not taken up after a restart: " + e, Instant.now()));
        }
      }
    } catch (RuntimeException e) {
      LOG.error("reading the stored workflows failed: {}", e.toString(), e);
      failed.add("reading the stored workflows: " + e.getMessage());
    }
    detail = failed.isEmpty() ? null : String.join("; ", failed);
    state = failed.isEmpty() ? ServiceState.RUNNING : ServiceState.FAILED;
    LOG.info("workflows taken up: {}", hosted.keySet());
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
    Hosted h = new Hosted(runner(spec));
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
      startCopy(h);
    }
  }

  @Override
  public void stop() {
    synchronized (this) {
      state = ServiceState.STOPPING;
      if (resumer != null) {
        resumer.interrupt();
      }
      if (supervisor != null) {
        supervisor.interrupt();
      }
    }
    for (Hosted h : hosted.values()) {
      stopCopy(h);
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
   * {@code RETRYING} while a hosted workflow has a stream in error, else the service's own state.
   */
  @Override
  public ServiceState state() {
    return state == ServiceState.RUNNING && streamInError().isPresent()
        ? ServiceState.RETRYING
        : state;
  }

  @Override
  public String detail() {
    return streamInError().orElse(detail);
  }

  private Optional<String> streamInError() {
    for (Hosted h : hosted.values()) {
      for (WorkflowStatus.Stream st : h.runner.status().streams()) {
        if ("ERROR".equals(st.state())) {
          return Optional.of(
              "workflow "
                  + h.runner.spec().name()
                  + ": the stream into "
                  + st.target()
                  + " is in error: "
                  + st.lastError());
        }
      }
    }
    return Optional.empty();
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
      Hosted h = hosted.get(name);
      if (h == null) {
        return store
            .load(name)
            .map(
                w ->
                    new Result(
                        Outcome.REFUSED,
                        "workflow "
                            + name
                            + " is "
                            + w.state()
                            + (w.state().isTerminal()
                                ? "; nothing more can be done with it"
                                : "; this daemon has not taken it up: "
                                    + Optional.ofNullable(w.lastError()).orElse("see its log"))))
            .orElseGet(() -> new Result(Outcome.NOT_FOUND, "no workflow named " + name));
      }
      if (!h.lock.tryLock()) {
        return new Result(
            Outcome.RETRY_LATER,
            "another action is running on workflow " + name + "; try again when it has finished");
      }
      try {
        return act(h, known.get(), params);
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
      return new Result(Outcome.REFUSED, action + " failed: " + e.getMessage());
    }
  }

  /** Actions wait until the stored workflows have been taken up after a start. */
  private void awaitTakenUp() throws InterruptedException {
    Thread r;
    synchronized (this) {
      r = resumer;
    }
    if (r != null && r != Thread.currentThread()) {
      r.join(TimeUnit.MINUTES.toMillis(5));
    }
  }

  private Result act(Hosted h, WorkflowAction action, Map<String, String> p) throws Exception {
    WorkflowRunner r = h.runner;
    String name = r.spec().name();
    return switch (action) {
      case DIFF -> Boolean.parseBoolean(p.getOrDefault("repair", "false")) ? repair(h) : diff(h);
      case SWITCH_READS -> {
        r.switchReads();
        yield new Result(Outcome.DONE, "workflow " + name + ": reads served by the targets");
      }
      case SWITCH_WRITES -> switchWrites(r, p);
      case RESUME -> {
        List<String> resumed = r.resumeStreams();
        yield resumed.isEmpty()
            ? new Result(Outcome.REFUSED, "workflow " + name + ": no stream is stopped in error")
            : new Result(
                Outcome.DONE,
                "workflow "
                    + name
                    + ": streams into "
                    + resumed
                    + " resumed (a DDL is passed over, a refused row is tried again)");
      }
      case REVERSE_TRAFFIC -> {
        r.reverseTraffic();
        yield new Result(
            Outcome.DONE,
            "workflow "
                + name
                + ": writes and reads back on "
                + r.workflow().sources()
                + "; forward streams run again (run a diff before switching again)");
      }
      case COMPLETE -> {
        r.complete(Boolean.parseBoolean(p.getOrDefault("drop_source_data", "false")));
        hosted.remove(name);
        r.close();
        yield new Result(
            Outcome.DONE,
            "workflow " + name + " completed: " + r.workflow().sources() + " retired");
      }
      case CANCEL -> {
        stopCopy(h);
        r.cancel();
        hosted.remove(name);
        r.close();
        yield new Result(Outcome.DONE, "workflow " + name + " cancelled: the targets were emptied");
      }
      // perform() creates before any workflow is hosted: never reached
      case CREATE -> throw new IllegalArgumentException("workflow " + name + " exists already");
    };
  }

  private Result switchWrites(WorkflowRunner r, Map<String, String> p) throws Exception {
    boolean force = Boolean.parseBoolean(p.getOrDefault("force", "false"));
    Duration timeout =
        p.containsKey("timeout_ms")
            ? Duration.ofMillis(positive(p.get("timeout_ms"), "timeout_ms"))
            : r.spec().catchUpTimeout();
    if (Boolean.parseBoolean(p.getOrDefault("dry_run", "false"))) {
      List<String> plan = r.switchWritesPlan(force);
      return new Result(
          Outcome.DONE,
          "dry run: the switch would\n  " + String.join("\n  ", plan),
          Map.of("dry_run", true, "steps", plan));
    }
    long t0 = System.nanoTime();
    r.switchWrites(force, timeout);
    return new Result(
        Outcome.DONE,
        "workflow "
            + r.spec().name()
            + ": writes served by "
            + r.workflow().targets()
            + " (switched in "
            + (System.nanoTime() - t0) / 1_000_000
            + " ms)");
  }

  private Result diff(Hosted h) throws Exception {
    refuseBeforeCopyDone(h, "diff");
    List<DiffReport> reports = h.runner.diff();
    Map<String, Object> data = WorkflowViews.diff(reports);
    boolean clean = (boolean) data.get("clean");
    return new Result(
        Outcome.DONE,
        "workflow "
            + h.runner.spec().name()
            + ": diff "
            + (clean ? "clean" : "found differences")
            + "\n"
            + String.join("\n", reports.stream().map(DiffReport::toTable).toList()),
        data);
  }

  /**
   * Repairs every target, then diffs again; data {@code {clean, repaired: <diff json of what was
   * found and fixed>, verified: <diff json of the diff after it>}}, {@code clean} being the second
   * diff's.
   */
  private Result repair(Hosted h) throws Exception {
    refuseBeforeCopyDone(h, "repair");
    List<Differ.RepairResult> results = h.runner.repair();
    List<DiffReport> repaired = results.stream().map(Differ.RepairResult::repaired).toList();
    List<DiffReport> verified = results.stream().map(Differ.RepairResult::verified).toList();
    long fixed =
        repaired.stream().flatMap(r -> r.tables().stream()).mapToLong(TableDiff::repaired).sum();
    Map<String, Object> data = WorkflowViews.repair(repaired, verified, fixed);
    boolean clean = (boolean) data.get("clean");
    return new Result(
        Outcome.DONE,
        "workflow "
            + h.runner.spec().name()
            + ": repair wrote or deleted "
            + fixed
            + (fixed == 1 ? " row" : " rows")
            + " on the targets; the diff after it is "
            + (clean ? "clean" : "not clean")
            + "\nfound and repaired:\n"
            + String.join("\n", repaired.stream().map(DiffReport::toTable).toList())
            + "\nafter the repair:\n"
            + String.join("\n", verified.stream().map(DiffReport::toTable).toList()),
        data);
  }

  private static void refuseBeforeCopyDone(Hosted h, String step) {
    WorkflowState s = h.runner.workflow().state();
    if (s == WorkflowState.CREATED || s == WorkflowState.COPYING) {
      throw new SwitchRefusedException(
          step
              + " refused for workflow "
              + h.runner.spec().name()
              + ": it is "
              + s
              + "; a "
              + step
              + " runs once the copy is done");
    }
  }

  private Result create(String name, Map<String, String> p) throws Exception {
    if (!name.matches("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")) {
      throw new IllegalArgumentException(
          "workflow name " + name + ": use letters, digits, '.', '_' and '-' (at most 64)");
    }
    if (store.load(name).isPresent()) {
      throw new SwitchRefusedException(
          "a workflow named " + name + " exists already; choose another name");
    }
    String keyspace = required(p, "keyspace");
    String source = required(p, "source").toLowerCase(Locale.ROOT);
    List<String> targets =
        List.of(required(p, "targets").toLowerCase(Locale.ROOT).split(",")).stream()
            .map(String::strip)
            .toList();
    targets.forEach(KeyRange::parse);
    Optional<ShardMap> newest = publisher(keyspace).newest();
    if (newest.isEmpty()) {
      synchronized (publishers) {
        publishers.remove(keyspace).close(); // keyspace init must be able to publish version 1
      }
      throw new SwitchRefusedException(
          "keyspace " + keyspace + " has no shard map; run `reshard keyspace init` first");
    }
    ShardMap map = newest.get();
    Shard from =
        map.shard(KeyRange.parse(source))
            .orElseThrow(
                () ->
                    new SwitchRefusedException(
                        "keyspace "
                            + keyspace
                            + " has no shard "
                            + source
                            + "; its shards are "
                            + map.shards().stream().map(Shard::name).toList()));
    refuseIfSourceMoving(keyspace, source);
    Set<String> inUse = serversInUse(keyspace, map);
    List<String> targetServers =
        p.containsKey("target_servers")
            ? List.of(p.get("target_servers").split(",")).stream().map(String::strip).toList()
            : servers.defaultTargets(keyspace, targets, inUse);
    if (targetServers.size() != targets.size()) {
      throw new IllegalArgumentException(
          targets.size() + " targets but " + targetServers.size() + " target servers");
    }
    refuseSharedServers(keyspace, targetServers, inUse);
    Map<String, String> refs = new LinkedHashMap<>();
    refs.put(source, from.endpoint());
    for (int i = 0; i < targets.size(); i++) {
      if (!servers.knows(targetServers.get(i))) {
        throw new IllegalArgumentException(
            "target server " + targetServers.get(i) + " is not known to this daemon");
      }
      refs.put(targets.get(i), targetServers.get(i));
    }
    WorkflowSpec spec =
        spec(Workflow.create(name, keyspace, List.of(source), targets, null, Instant.now()), refs);
    Hosted h = new Hosted(runner(spec));
    h.lock.lock();
    try {
      try {
        h.runner.create();
      } catch (Exception e) {
        h.runner.close();
        throw e;
      }
      hosted.put(name, h);
      startCopy(h);
    } finally {
      h.lock.unlock();
    }
    return new Result(
        Outcome.DONE,
        "workflow "
            + name
            + " created: "
            + source
            + " -> "
            + targets
            + " on "
            + targetServers
            + "; P0 "
            + h.runner.workflow().p0()
            + "; the copy runs");
  }

  /** One workflow at a time moves a shard: a second one would copy into the same targets' rows. */
  private void refuseIfSourceMoving(String keyspace, String source) {
    for (Workflow w : store.list()) {
      if (w.keyspace().equals(keyspace)
          && !w.state().isTerminal()
          && (w.sources().contains(source) || w.targets().contains(source))) {
        throw new SwitchRefusedException(
            "shard "
                + source
                + " of "
                + keyspace
                + " is already in workflow "
                + w.name()
                + " ("
                + w.state()
                + "); complete or cancel that one first. Nothing was written");
      }
    }
  }

  /**
   * Each target needs a server of its own that holds no shard of the keyspace: one database per
   * keyspace per server (DESIGN 2).
   */
  private static void refuseSharedServers(
      String keyspace, List<String> targetServers, Set<String> inUse) {
    List<String> problems = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String t : targetServers) {
      if (!seen.add(t)) {
        problems.add("server " + t + " is named for two targets");
      } else if (inUse.contains(t)) {
        problems.add(
            "server "
                + t
                + " already holds a shard of "
                + keyspace
                + " (in the shard map or in a workflow)");
      }
    }
    if (!problems.isEmpty()) {
      throw new SwitchRefusedException(
          "workflow not created: "
              + String.join("; ", problems)
              + "; each target needs a server of its own. Nothing was written");
    }
  }

  /** The servers that hold a shard of {@code keyspace} now or in one of its workflows. */
  private Set<String> serversInUse(String keyspace, ShardMap map) {
    Set<String> used = new HashSet<>();
    map.shards().forEach(s -> used.add(s.endpoint()));
    for (Workflow w : store.list()) {
      if (w.keyspace().equals(keyspace) && w.state() != WorkflowState.CANCELLED) {
        used.addAll(w.servers().values());
      }
    }
    return used;
  }

  /** A runner of {@code spec} with this daemon's captures, meters and diff and apply settings. */
  private WorkflowRunner runner(WorkflowSpec spec) {
    return new WorkflowRunner(spec, engine, publisher(spec.keyspace()), captures, meters)
        .configure(config.differConfig(), config.applySettings());
  }

  private void startCopy(Hosted h) {
    Thread t =
        new Thread(
            () -> {
              try {
                h.runner.copy(config.copierConfig());
                LOG.info("workflow {}: copy done", h.runner.spec().name());
              } catch (InterruptedException e) {
                LOG.info("workflow {}: copy interrupted", h.runner.spec().name());
              } catch (Exception e) {
                h.copyError = e.getMessage();
                LOG.error("workflow {}: copy failed: {}", h.runner.spec().name(), e.toString(), e);
                Workflow w = h.runner.workflow();
                engine.update(w.withError("copy failed: " + e.getMessage(), Instant.now()));
              }
            },
            "copy-" + h.runner.spec().name());
    t.setDaemon(true);
    h.copy = t;
    t.start();
  }

  private static void stopCopy(Hosted h) {
    Thread t = h.copy;
    if (t != null && t.isAlive()) {
      t.interrupt();
      try {
        t.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
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
        config.workflowCatchUpTimeout());
  }

  private static String ref(Map<String, String> refs, String shard, Workflow w) {
    String r = refs.get(shard);
    if (r == null) {
      throw new IllegalArgumentException(
          "workflow " + w.name() + " does not record the server of shard " + shard);
    }
    return r;
  }

  private ShardMapPublisher publisher(String keyspace) {
    synchronized (publishers) {
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
  public Map<String, Object> details(String workflow) {
    Hosted h = hosted.get(workflow);
    if (h == null) {
      return WorkflowViews.notHosted();
    }
    Workflow stored = h.runner.workflow();
    return WorkflowViews.hosted(stored, h.runner.status(), h.copyError);
  }

  private static String required(Map<String, String> p, String key) {
    String v = p.get(key);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException("parameter " + key + " is required");
    }
    return v.strip();
  }

  private static long positive(String v, String key) {
    try {
      long n = Long.parseLong(v);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IllegalArgumentException(key + " must be a positive number, got " + v);
  }
}
