package io.reshard.daemon;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reshard.router.ReshardException;
import io.reshard.switcher.IllegalTransitionException;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowStore;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's admin HTTP endpoint (JDK {@link HttpServer}), bound to {@code admin.bind} (loopback
 * by default) and {@code admin.port}:
 *
 * <ul>
 *   <li>{@code GET /health}: {@code {"status": "up"|"degraded", "services": [{"name", "state",
 *       "detail"}]}}, always 200 while the daemon runs; degraded while a service is FAILED or
 *       RETRYING
 *   <li>{@code GET /workflows}, {@code GET /workflows/{name}}: the workflow records of the store
 *       ({@code name, keyspace, state, sources, targets, servers, p0, journal_position,
 *       last_diff_clean, last_error, updated_at, next_states}); 404 for an unknown name, 503 if the
 *       store cannot be read
 *   <li>{@code GET /metrics}: every meter in the Prometheus text format (version 0.0.4)
 *   <li>{@code GET /keyspaces}: the newest shard map of every keyspace the daemon knows ({@link
 *       ShardMapViews})
 *   <li>{@code GET /}: the status page (docs/status-page.md), read-only, its script and style
 *       served from here too ({@link StatusPage}); it reads the JSON views above
 *   <li>{@code POST /workflows/{name}/actions/{action}}: needs {@code Authorization: Bearer
 *       <admin.token>} (401 without it or with a wrong one, compared in constant time; 403 when no
 *       token is configured), then {@link WorkflowActions} decides
 * </ul>
 *
 * <p>Errors are JSON {@code {"error": "..."}}. Every response body passes through a filter that
 * replaces any configured secret with {@code [hidden]}, and the access log (DEBUG) names the
 * method, the path without its query, and the status only: no header, so never the token. Requests
 * are served by eight threads (an action may take minutes; status reads go on meanwhile).
 * Thread-safe.
 */
public final class AdminServer implements DaemonService {
  private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
  private static final String JSON_TYPE = "application/json; charset=utf-8";
  private static final String PROMETHEUS_TYPE = "text/plain; version=0.0.4; charset=utf-8";
  private static final Pattern WORKFLOW = Pattern.compile("/workflows/([^/]+)");
  private static final Pattern ACTION = Pattern.compile("/workflows/([^/]+)/actions/([^/]+)");

  /** Secrets shorter than this are not searched for in responses: they would garble the text. */
  private static final int MIN_REDACTED_LENGTH = 4;

  private static final ObjectMapper JSON =
      new ObjectMapper()
          .registerModule(new JavaTimeModule())
          .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS);

  private final DaemonConfig config;
  private final Supplier<List<ServiceStatus>> services;
  private final WorkflowStore workflows;
  private final WorkflowActions actions;
  private final PrometheusMeterRegistry registry;
  private final Supplier<List<Map<String, Object>>> keyspaces;
  private final List<String> secrets;
  private volatile ServiceState state = ServiceState.NEW;
  private HttpServer server;
  private ExecutorService executor;

  /** How long {@code GET /workflows/NAME} waits for the workflows topic before it answers. */
  static final java.time.Duration STORE_WAIT = java.time.Duration.ofSeconds(3);

  /** Reads of the workflows topic, so that a request can stop waiting for one. */
  private final ExecutorService loads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "admin-workflow-read");
            t.setDaemon(true);
            return t;
          });

  /**
   * @param config gives {@code admin.bind}, {@code admin.port}, {@code admin.token}, and the
   *     secrets kept out of responses
   * @param services the hosted services' statuses, for {@code /health}
   * @param workflows where workflow records are read
   * @param actions what mutating calls do
   * @param registry the meters {@code /metrics} shows
   */
  public AdminServer(
      DaemonConfig config,
      Supplier<List<ServiceStatus>> services,
      WorkflowStore workflows,
      WorkflowActions actions,
      PrometheusMeterRegistry registry) {
    this(config, services, workflows, actions, registry, List::of);
  }

  /**
   * As {@link #AdminServer(DaemonConfig, Supplier, WorkflowStore, WorkflowActions,
   * PrometheusMeterRegistry)}, with the shard maps {@code GET /keyspaces} shows.
   */
  public AdminServer(
      DaemonConfig config,
      Supplier<List<ServiceStatus>> services,
      WorkflowStore workflows,
      WorkflowActions actions,
      PrometheusMeterRegistry registry,
      Supplier<List<Map<String, Object>>> keyspaces) {
    this.keyspaces = keyspaces;
    this.config = config;
    this.services = services;
    this.workflows = workflows;
    this.actions = actions;
    this.registry = registry;
    List<Secret> all = new java.util.ArrayList<>();
    all.add(config.adminToken());
    config.shards().forEach(s -> all.add(s.password()));
    this.secrets =
        all.stream()
            .map(Secret::reveal)
            .filter(s -> s.length() >= MIN_REDACTED_LENGTH)
            .distinct()
            .toList();
  }

  @Override
  public String name() {
    return "admin";
  }

  /**
   * Binds and starts serving.
   *
   * @throws DaemonStartException if the address cannot be bound (a port in use, say)
   */
  @Override
  public synchronized void start() {
    InetSocketAddress address;
    try {
      address =
          new InetSocketAddress(InetAddress.getByName(config.adminBind()), config.adminPort());
      server = HttpServer.create(address, 16);
    } catch (IOException e) {
      throw new DaemonStartException(
          "the admin endpoint cannot listen on "
              + config.adminBind()
              + ":"
              + config.adminPort()
              + " ("
              + e.getMessage()
              + "); choose another admin.port, or 0 for any free one",
          e);
    }
    executor =
        Executors.newFixedThreadPool(
            8,
            r -> {
              Thread t = new Thread(r, "admin-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
    state = ServiceState.LISTENING;
    if (!server.getAddress().getAddress().isLoopbackAddress()) {
      LOG.warn("the admin endpoint listens on {}, not on loopback", server.getAddress());
    }
  }

  /** The endpoint's base URI, e.g. {@code http://127.0.0.1:15000}. */
  public synchronized URI endpoint() {
    if (server == null) {
      throw new IllegalStateException("the admin endpoint is not started");
    }
    InetSocketAddress a = server.getAddress();
    String host = a.getAddress().getHostAddress();
    return URI.create(
        "http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort());
  }

  /** The address it is bound to. */
  public synchronized InetSocketAddress address() {
    return server.getAddress();
  }

  @Override
  public synchronized void stop() {
    if (server != null) {
      server.stop(0);
      executor.shutdownNow();
      loads.shutdownNow();
    }
    state = ServiceState.STOPPED;
  }

  @Override
  public ServiceState state() {
    return state;
  }

  private void handle(HttpExchange ex) {
    String method = ex.getRequestMethod();
    String path = ex.getRequestURI().getRawPath();
    int status;
    try (ex) {
      status = route(ex, method, path);
    } catch (RuntimeException | IOException e) {
      LOG.error("admin {} {} failed: {}", method, redact(decode(path)), redact(e.toString()));
      status = 500;
    }
    LOG.debug("admin {} {} -> {}", method, redact(decode(path)), status);
  }

  private int route(HttpExchange ex, String method, String path) throws IOException {
    Matcher action = ACTION.matcher(path);
    if (action.matches()) {
      return "POST".equals(method)
          ? act(ex, decode(action.group(1)), decode(action.group(2)))
          : notAllowed(ex, "POST");
    }
    if (!"GET".equals(method)) {
      return path.equals("/health")
              || path.equals("/metrics")
              || path.equals("/workflows")
              || path.equals("/keyspaces")
              || StatusPage.asset(path).isPresent()
              || WORKFLOW.matcher(path).matches()
          ? notAllowed(ex, "GET")
          : error(ex, 404, "no such endpoint: " + path);
    }
    Matcher workflow = WORKFLOW.matcher(path);
    return switch (path) {
      case "/health" -> json(ex, 200, health());
      case "/metrics" -> send(ex, 200, PROMETHEUS_TYPE, registry.scrape());
      case "/workflows" -> listWorkflows(ex);
      case "/keyspaces" -> json(ex, 200, keyspaces.get());
      default -> {
        if (workflow.matches()) {
          yield oneWorkflow(ex, decode(workflow.group(1)));
        }
        Optional<StatusPage.Asset> asset = StatusPage.asset(path);
        yield asset.isPresent()
            ? send(ex, 200, asset.get().type(), asset.get().text())
            : error(ex, 404, "no such endpoint: " + path);
      }
    };
  }

  private Map<String, Object> health() {
    List<ServiceStatus> all = services.get();
    Map<String, Object> h = new LinkedHashMap<>();
    h.put("status", all.stream().anyMatch(ServiceStatus::impaired) ? "degraded" : "up");
    h.put("services", all);
    return h;
  }

  private int listWorkflows(HttpExchange ex) throws IOException {
    try {
      return json(ex, 200, workflows.list().stream().map(this::liveView).toList());
    } catch (ReshardException e) {
      return error(ex, 503, "cannot read the workflows: " + e.getMessage());
    }
  }

  /**
   * One workflow's record. A workflow this daemon runs is answered from its own record when the
   * workflows topic does not answer within {@link #STORE_WAIT} (the broker is down, say), marked
   * {@code stale}: a status, and a {@code create --wait}, go on through a broker outage.
   */
  private int oneWorkflow(HttpExchange ex, String name) throws IOException {
    Future<Optional<Workflow>> load = loads.submit(() -> workflows.load(name));
    try {
      return load.get(STORE_WAIT.toMillis(), TimeUnit.MILLISECONDS)
          .map(w -> uncheckedJson(ex, 200, liveView(w)))
          .orElseGet(() -> uncheckedError(ex, 404, "no workflow named " + name));
    } catch (TimeoutException e) {
      Optional<Workflow> own = actions.hostedRecord(name);
      if (own.isEmpty()) {
        return error(
            ex,
            503,
            "cannot read the workflows: the workflows topic did not answer within "
                + STORE_WAIT.toSeconds()
                + " s; is the broker at "
                + config.bootstrapServers()
                + " running?");
      }
      Map<String, Object> v = liveView(own.get());
      v.put("stale", true);
      v.put(
          "stale_reason",
          "the workflows topic did not answer within "
              + STORE_WAIT.toSeconds()
              + " s (is the broker at "
              + config.bootstrapServers()
              + " running?); this is the record as this daemon, which runs the workflow, last"
              + " wrote or read it");
      return json(ex, 200, v);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof ReshardException r) {
        return error(ex, 503, "cannot read the workflows: " + r.getMessage());
      }
      throw new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return error(ex, 503, "interrupted while reading the workflows");
    }
  }

  private Map<String, Object> liveView(Workflow w) {
    Map<String, Object> v = WorkflowViews.record(w);
    v.putAll(actions.details(w.name()));
    return v;
  }

  private int act(HttpExchange ex, String workflow, String action) throws IOException {
    Secret token = config.adminToken();
    if (token.isEmpty()) {
      return error(ex, 403, "mutating calls are off: the daemon has no admin.token");
    }
    String auth = ex.getRequestHeaders().getFirst("Authorization");
    String presented =
        auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7)
            ? auth.substring(7).strip()
            : null;
    if (!token.matches(presented)) {
      ex.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"reshard\"");
      return error(ex, 401, "a valid 'Authorization: Bearer <admin.token>' header is required");
    }
    Map<String, String> params = query(ex.getRequestURI().getRawQuery());
    WorkflowActions.Result r;
    try {
      r = actions.perform(workflow, action, params);
    } catch (IllegalTransitionException e) {
      return error(ex, 409, e.getMessage());
    } catch (ReshardException e) {
      return error(ex, e.retriable() ? 503 : 409, e.getMessage());
    } catch (IllegalArgumentException e) {
      return error(ex, 400, e.getMessage());
    }
    LOG.info(
        "admin action {} on workflow {}: {} {}",
        redact(action),
        redact(workflow),
        r.outcome(),
        redact(String.valueOf(r.message())));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("workflow", workflow);
    body.put("action", action);
    body.put("outcome", r.outcome().name());
    body.put("message", r.message());
    if (r.data() != null) {
      body.put("data", r.data());
    }
    return json(ex, r.outcome().httpStatus(), body);
  }

  private static Map<String, String> query(String raw) {
    Map<String, String> params = new LinkedHashMap<>();
    if (raw != null && !raw.isEmpty()) {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        params.put(
            decode(eq < 0 ? pair : pair.substring(0, eq)),
            eq < 0 ? "" : decode(pair.substring(eq + 1)));
      }
    }
    return params;
  }

  private int notAllowed(HttpExchange ex, String allowed) throws IOException {
    ex.getResponseHeaders().set("Allow", allowed);
    return error(ex, 405, "method not allowed; use " + allowed);
  }

  private int error(HttpExchange ex, int status, String message) throws IOException {
    return json(ex, status, Map.of("error", message));
  }

  private int uncheckedError(HttpExchange ex, int status, String message) {
    return uncheckedJson(ex, status, Map.of("error", message));
  }

  private int uncheckedJson(HttpExchange ex, int status, Object body) {
    try {
      return json(ex, status, body);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private int json(HttpExchange ex, int status, Object body) throws IOException {
    return send(ex, status, JSON_TYPE, JSON.writeValueAsString(body) + "\n");
  }

  private int send(HttpExchange ex, int status, String type, String body) throws IOException {
    byte[] bytes = redact(body).getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
    return status;
  }

  /** {@code text} with every configured secret replaced by {@code [hidden]}. */
  String redact(String text) {
    String t = text;
    for (String s : secrets) {
      t = t.replace(s, Secret.HIDDEN);
    }
    return t;
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  /** The lower-case state, for messages. */
  @Override
  public String toString() {
    return "admin endpoint (" + state.name().toLowerCase(Locale.ROOT) + ")";
  }
}
