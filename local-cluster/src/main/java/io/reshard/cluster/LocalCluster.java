package io.reshard.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Brings a local cluster up, reports on it, and brings it down. The cluster is described by {@code
 * DIR/cluster.json} ({@link ClusterDescriptor}), which is rewritten after every process starts or
 * stops, so that whatever has been started can always be stopped by {@link #down}.
 *
 * <p>{@link #up} is idempotent: processes that are still running are reused; on a directory left by
 * a killed run, servers are restarted on their existing data. All methods are static and safe to
 * call from several threads on different directories; two concurrent calls on the same directory
 * are not supported.
 */
public final class LocalCluster {

  /** The Debian package that provides {@code mariadbd} and {@code mariadb-install-db}. */
  static final String MARIADB_PACKAGE = "mariadb-server";

  /** How long a restart waits for a killed process's port to be released before refusing it. */
  static final java.time.Duration PORT_RELEASE_GRACE = java.time.Duration.ofSeconds(5);

  private LocalCluster() {}

  /** What happened to one process during {@link #up}. */
  public enum Action {
    /** Initialised and started for the first time. */
    STARTED,
    /** Started again on its existing data. */
    RESTARTED,
    /** Was already running; left alone. */
    REUSED
  }

  /**
   * The state of one process of the cluster.
   *
   * @param name {@code db1}, {@code db2}, ... or {@code kafka}
   * @param role {@code shard}, {@code spare} or {@code broker}
   * @param port its (client) port
   * @param pid its recorded pid, 0 if never started
   * @param up whether that pid is running and is the cluster's process
   */
  public record ProcessStatus(String name, String role, int port, long pid, boolean up) {
    /** One line for humans: {@code db1 shard port 13306 pid 1234 up}. */
    public String summary() {
      return String.format(
          "%-6s %-6s port %-5d pid %-8d %s", name, role, port, pid, up ? "up" : "down");
    }
  }

  /**
   * Starts (or reuses) the cluster described by {@code spec} and waits until every MariaDB server
   * answers a SQL query and the broker answers an admin request.
   *
   * @param spec what to start; ignored where {@code spec.dir()} already holds a cluster, except
   *     that its server counts must match
   * @param out receives one summary line per process as it becomes ready
   * @return the descriptor written to {@code DIR/cluster.json}
   * @throws ClusterException if a program is missing, a port is taken, or a process fails to start;
   *     processes this call started are stopped again before it throws
   */
  public static ClusterDescriptor up(ClusterSpec spec, Consumer<String> out) {
    return up(spec, out, OsProcesses::findProgram);
  }

  /** {@link #up(ClusterSpec, Consumer)} with the way programs are found made explicit (tests). */
  static ClusterDescriptor up(
      ClusterSpec spec, Consumer<String> out, Function<String, Optional<Path>> programs) {
    Function<ClusterDescriptor.Server, DatabaseServer> servers =
        serverFactory(spec.dir(), spec.flavor(), programs);
    KafkaBroker.brokerClasspath(); // fail early if the build's broker classpath is unusable
    ClusterState state = new ClusterState(spec.dir(), existingOrNew(spec));
    List<Future<?>> starts = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(3, daemonThreads());
    try {
      starts.add(pool.submit(() -> startBroker(state, out)));
      for (int i = 0; i < state.descriptor().mariadb().size(); i++) {
        int index = i;
        starts.add(pool.submit(() -> startServer(state, index, servers, out)));
      }
      awaitAll(starts);
      return state.descriptor();
    } catch (ClusterException e) {
      state.stopStartedByThisCall();
      throw e;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Reports every process of the cluster in {@code dir}.
   *
   * @throws ClusterException of kind {@code NO_CLUSTER} if {@code dir} holds no cluster
   */
  public static List<ProcessStatus> status(Path dir) {
    ClusterDescriptor d = require(dir);
    List<ProcessStatus> result = new ArrayList<>();
    for (ClusterDescriptor.Server s : d.mariadb()) {
      boolean up = DatabaseServer.of(dir, s).isRunning();
      result.add(new ProcessStatus(s.name(), s.role(), s.port(), s.pid(), up));
    }
    ClusterDescriptor.Broker b = d.kafka();
    result.add(
        new ProcessStatus(
            "kafka", "broker", b.port(), b.pid(), new KafkaBroker(dir, b).isRunning()));
    if (d.daemon() != null) {
      ClusterDescriptor.DaemonProcess p = d.daemon();
      int port = java.net.URI.create(p.admin()).getPort();
      result.add(
          new ProcessStatus("daemon", "daemon", port, p.pid(), ClusterDaemon.isRunning(p.pid())));
    }
    return result;
  }

  /**
   * Stops every process of the cluster in {@code dir}, by the pids in its descriptor, and records
   * them as stopped: the pipeline daemon first, if one is recorded ({@link ClusterDaemon#stop}), so
   * it never sees its sources vanish; then the servers and the broker, in parallel. Returns only
   * once every process it stopped has exited and its pid is gone: each gets SIGTERM, and SIGKILL if
   * it has not exited 60 s later (its line says so). Data stays, so a later {@link #up} restarts on
   * it.
   *
   * @return one line per process saying whether it was stopped (and how) or already down
   * @throws ClusterException of kind {@code NO_CLUSTER} if {@code dir} holds no cluster
   */
  public static List<String> down(Path dir) {
    require(dir);
    List<String> daemonLine = ClusterDaemon.stop(dir).stream().toList();
    ClusterDescriptor d = require(dir); // read again: stopping the daemon rewrote it
    ClusterState state = new ClusterState(dir.toAbsolutePath().normalize(), d);
    List<Future<String>> stops = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(4, daemonThreads());
    try {
      for (int i = 0; i < d.mariadb().size(); i++) {
        int index = i;
        stops.add(pool.submit(() -> state.stopServer(index)));
      }
      stops.add(pool.submit(state::stopBroker));
      List<String> lines = new ArrayList<>(daemonLine);
      for (Future<String> f : stops) {
        lines.add(get(f));
      }
      return lines;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Reads the descriptor of the cluster in {@code dir}.
   *
   * @throws ClusterException of kind {@code NO_CLUSTER} if there is none
   */
  public static ClusterDescriptor require(Path dir) {
    return ClusterDescriptor.read(dir.toAbsolutePath().normalize())
        .orElseThrow(
            () ->
                new ClusterException(
                    ClusterException.Kind.NO_CLUSTER,
                    "there is no cluster in "
                        + dir
                        + " (no "
                        + ClusterDescriptor.FILE_NAME
                        + "); start one with `reshard cluster up --dir "
                        + dir
                        + " --shards N`"));
  }

  private static ClusterDescriptor existingOrNew(ClusterSpec spec) {
    Optional<ClusterDescriptor> existing = ClusterDescriptor.read(spec.dir());
    if (existing.isPresent()) {
      ClusterDescriptor d = existing.get();
      Flavor flavor = d.mariadb().isEmpty() ? spec.flavor() : d.mariadb().get(0).flavorOrDefault();
      if (flavor != spec.flavor()) {
        throw new ClusterException(
            ClusterException.Kind.NO_CLUSTER,
            spec.dir()
                + " already holds a cluster of "
                + flavor.id()
                + " servers, not "
                + spec.flavor().id()
                + "; give --flavor "
                + flavor.id()
                + ", or bring it down and use another --dir");
      }
      if (d.shards().size() != spec.shards() || d.spares().size() != spec.spares()) {
        throw new ClusterException(
            ClusterException.Kind.NO_CLUSTER,
            spec.dir()
                + " already holds a cluster of "
                + d.shards().size()
                + " shards and "
                + d.spares().size()
                + " spares, not "
                + spec.shards()
                + " and "
                + spec.spares()
                + "; bring it down and use another --dir, or ask for the same counts");
      }
      return d;
    }
    ClusterDescriptor fresh = ClusterLayout.describe(spec);
    PortCheck.requireFree(fresh);
    try {
      Files.createDirectories(spec.dir());
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.OTHER, "cannot create " + spec.dir() + ": " + e.getMessage(), e);
    }
    fresh.write(spec.dir());
    return fresh;
  }

  /**
   * How servers of {@code flavor} are made for a start, with their programs found first: {@code
   * mariadbd} and {@code mariadb-install-db} on the machine, or MySQL extracted from its artifact.
   */
  private static Function<ClusterDescriptor.Server, DatabaseServer> serverFactory(
      Path dir, Flavor flavor, Function<String, Optional<Path>> programs) {
    if (flavor == Flavor.MYSQL) {
      MySqlDistribution.home(); // extract once, fail early if mysqld cannot run
      return s -> new MySqlServer(dir, s);
    }
    Path mariadbd = requireProgram(programs, "mariadbd");
    Path installDb = requireProgram(programs, "mariadb-install-db");
    return s -> new MariaDbServer(dir, s, mariadbd, installDb);
  }

  private static void startServer(
      ClusterState state,
      int index,
      Function<ClusterDescriptor.Server, DatabaseServer> servers,
      Consumer<String> out) {
    DatabaseServer server = servers.apply(state.descriptor().mariadb().get(index));
    ClusterDescriptor.Server s = server.descriptor();
    if (server.isRunning()) {
      out.accept(line(s.name(), s.role(), s.port(), s.pid(), Action.REUSED));
      return;
    }
    PortCheck.requireFreeSoon(s.port(), s.name(), PORT_RELEASE_GRACE);
    try {
      server.writeConfig();
      Action action = server.isInitialised() ? Action.RESTARTED : Action.STARTED;
      if (action == Action.STARTED) {
        server.initialise();
      }
      long pid = server.start();
      state.serverStarted(index, pid);
      out.accept(line(s.name(), s.role(), s.port(), pid, action));
      if (action == Action.RESTARTED) {
        RestartFence.restore(s)
            .ifPresent(what -> out.accept(String.format("%-6s %s", s.name(), what)));
      }
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.START_FAILED,
          "cannot prepare " + s.name() + ": " + e.getMessage(),
          e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(ClusterException.Kind.OTHER, "interrupted", e);
    }
  }

  private static void startBroker(ClusterState state, Consumer<String> out) {
    KafkaBroker broker = new KafkaBroker(state.dir(), state.descriptor().kafka());
    ClusterDescriptor.Broker b = broker.descriptor();
    if (broker.isRunning()) {
      out.accept(line("kafka", "broker", b.port(), b.pid(), Action.REUSED));
      return;
    }
    PortCheck.requireFreeSoon(b.port(), "kafka", PORT_RELEASE_GRACE);
    PortCheck.requireFreeSoon(b.controllerPort(), "kafka controller", PORT_RELEASE_GRACE);
    try {
      broker.writeConfig();
      Action action = broker.isFormatted() ? Action.RESTARTED : Action.STARTED;
      if (action == Action.STARTED) {
        broker.format();
      }
      long pid = broker.start();
      state.brokerStarted(pid);
      out.accept(line("kafka", "broker", b.port(), pid, action));
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.START_FAILED, "cannot prepare kafka: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(ClusterException.Kind.OTHER, "interrupted", e);
    }
  }

  private static String line(String name, String role, int port, long pid, Action action) {
    return String.format(
        "%-6s %-6s 127.0.0.1:%-5d pid %-8d %s", name, role, port, pid, action.name().toLowerCase());
  }

  private static Path requireProgram(Function<String, Optional<Path>> programs, String program) {
    return programs
        .apply(program)
        .orElseThrow(
            () ->
                new ClusterException(
                    ClusterException.Kind.MISSING_PROGRAM,
                    program
                        + " is not installed; install the Debian package "
                        + MARIADB_PACKAGE
                        + " (apt-get install -y "
                        + MARIADB_PACKAGE
                        + ")"));
  }

  private static void awaitAll(List<Future<?>> futures) {
    ClusterException first = null;
    for (Future<?> f : futures) {
      try {
        get(f);
      } catch (ClusterException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ClusterException ce) {
        throw ce;
      }
      throw new ClusterException(ClusterException.Kind.OTHER, e.getCause().toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(ClusterException.Kind.OTHER, "interrupted", e);
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    return r -> {
      Thread t = new Thread(r, "local-cluster");
      t.setDaemon(true);
      return t;
    };
  }
}
