package io.reshard.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.reshard.switcher.IllegalTransitionException;
import io.reshard.switcher.Workflow;
import io.reshard.switcher.WorkflowState;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The admin endpoint over real HTTP on a free loopback port, with fakes behind it. */
class AdminServerTest {
  private static final String TOKEN = "s3cret-admin-token-0123456789";
  private static final String PASSWORD = "db-password-that-must-not-leak";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final InMemoryWorkflowStore store = new InMemoryWorkflowStore();
  private final List<String> performed = new CopyOnWriteArrayList<>();
  private final List<String> bodies = Collections.synchronizedList(new ArrayList<>());
  private final List<ServiceStatus> services = new CopyOnWriteArrayList<>();
  private PrometheusMeterRegistry registry;
  private CapturedStderr log;
  private AdminServer server;
  private URI base;

  /** Records each request; {@code bad} and {@code late} throw as the interface allows. */
  private WorkflowActions.Result perform(String workflow, String action, Map<String, String> p) {
    performed.add(workflow + " " + action + " " + p);
    return switch (action) {
      case "late" ->
          throw new IllegalTransitionException(
              workflow, WorkflowState.COMPLETED, WorkflowState.RUNNING);
      case "bad" -> throw new IllegalArgumentException("no action named bad");
      default -> new WorkflowActions.Result(WorkflowActions.Outcome.ACCEPTED, action + " accepted");
    };
  }

  private static DaemonConfig config(String token) {
    return DaemonConfig.builder()
        .set("kafka.bootstrap.servers", "127.0.0.1:1")
        .set("admin.port", "0")
        .set("admin.token", token)
        .set("shards.0.keyspace", "commerce")
        .set("shards.0.shard", "-80")
        .set("shards.0.host", "127.0.0.1")
        .set("shards.0.user", "reshard")
        .set("shards.0.password", PASSWORD)
        .set("shards.0.server.id", "7001")
        .validate();
  }

  private AdminServer start(DaemonConfig config) {
    AdminServer s = new AdminServer(config, () -> services, store, this::perform, registry);
    s.start();
    return s;
  }

  @BeforeEach
  void start() {
    log = CapturedStderr.start();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Counter.builder("reshard.test.requests").register(registry).increment(3);
    Instant t = Instant.parse("2025-01-02T03:04:05Z");
    store.save(
        Workflow.create(
            "split-c0", "commerce", List.of("c0-"), List.of("c0-e0", "e0-"), "1-1-7", t));
    store.save(
        Workflow.create("merge-80", "commerce", List.of("80-c0", "c0-"), List.of("80-"), null, t)
            .transition(WorkflowState.COPYING, t)
            .withError("copy of orders stopped: duplicate key", t));
    services.add(
        new ServiceStatus("capture/commerce/-80", ServiceState.RUNNING, "committed 1-1-9"));
    services.add(
        new ServiceStatus(
            "capture/commerce/80-",
            ServiceState.RETRYING,
            "login as reshard/" + PASSWORD + " refused"));
    server = start(config(TOKEN));
    base = server.endpoint();
  }

  @AfterEach
  void stop() {
    server.stop();
    log.close();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return send(HttpRequest.newBuilder(base.resolve(path)).GET());
  }

  private HttpResponse<String> post(String path, String authorization) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return send(b);
  }

  private HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
    HttpResponse<String> r =
        http.send(b.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    bodies.add(r.headers().map() + "\n" + r.body());
    return r;
  }

  @Test
  void healthListsEveryServiceWithSecretsRemovedAndIsDegradedWhileOneRetriesOrFailed()
      throws Exception {
    HttpResponse<String> r = get("/health");
    assertEquals(200, r.statusCode());
    assertEquals("application/json; charset=utf-8", r.headers().firstValue("Content-Type").get());
    JsonNode h = JSON.readTree(r.body());
    assertEquals("degraded", h.get("status").asText(), "a capture retries");
    assertEquals(2, h.get("services").size());
    assertEquals("capture/commerce/-80", h.get("services").get(0).get("name").asText());
    assertEquals("RUNNING", h.get("services").get(0).get("state").asText());
    assertEquals(
        "login as reshard/[hidden] refused", h.get("services").get(1).get("detail").asText());

    services.set(
        1, new ServiceStatus("capture/commerce/80-", ServiceState.RUNNING, "committed 2-2-4"));
    assertEquals("up", JSON.readTree(get("/health").body()).get("status").asText());
    services.add(new ServiceStatus("runner/split-c0", ServiceState.FAILED, "needs an operator"));
    assertEquals("degraded", JSON.readTree(get("/health").body()).get("status").asText());
  }

  @Test
  void workflowsComeFromTheStoreAsJson() throws Exception {
    HttpResponse<String> r = get("/workflows");
    assertEquals(200, r.statusCode());
    JsonNode list = JSON.readTree(r.body());
    assertEquals(2, list.size());
    JsonNode merge = list.get(0);
    assertEquals("merge-80", merge.get("name").asText());
    assertEquals("COPYING", merge.get("state").asText());
    assertEquals("commerce", merge.get("keyspace").asText());
    assertEquals("[\"80-c0\",\"c0-\"]", merge.get("sources").toString());
    assertEquals("[\"80-\"]", merge.get("targets").toString());
    assertEquals("copy of orders stopped: duplicate key", merge.get("last_error").asText());
    assertEquals("[\"CANCELLED\",\"RUNNING\"]", merge.get("next_states").toString());

    JsonNode split = JSON.readTree(get("/workflows/split-c0").body());
    assertEquals("CREATED", split.get("state").asText());
    assertEquals("1-1-7", split.get("p0").asText());
    assertTrue(split.has("last_error") && split.get("last_error").isNull(), split.toString());
    assertEquals("2025-01-02T03:04:05Z", split.get("updated_at").asText());

    HttpResponse<String> missing = get("/workflows/nope");
    assertEquals(404, missing.statusCode());
    assertEquals("no workflow named nope", JSON.readTree(missing.body()).get("error").asText());
  }

  @Test
  void metricsAreInThePrometheusTextFormat() throws Exception {
    HttpResponse<String> r = get("/metrics");
    assertEquals(200, r.statusCode());
    assertTrue(
        r.headers().firstValue("Content-Type").get().startsWith("text/plain; version=0.0.4"));
    assertTrue(r.body().contains("# TYPE reshard_test_requests_total counter"), r.body());
    assertTrue(r.body().contains("reshard_test_requests_total 3.0"), r.body());
  }

  @Test
  void actionsNeedTheBearerTokenAndAreHandedToWorkflowActions() throws Exception {
    HttpResponse<String> none = post("/workflows/split-c0/actions/switch-reads", null);
    assertEquals(401, none.statusCode());
    assertEquals("Bearer realm=\"reshard\"", none.headers().firstValue("WWW-Authenticate").get());
    assertEquals(
        401, post("/workflows/split-c0/actions/switch-reads", "Bearer wrong").statusCode());
    assertEquals(
        401,
        post("/workflows/split-c0/actions/switch-reads", "Bearer " + TOKEN + "x").statusCode());
    assertEquals(401, post("/workflows/split-c0/actions/switch-reads", TOKEN).statusCode());
    assertEquals(
        401, post("/workflows/split-c0/actions/switch-reads", "Basic " + TOKEN).statusCode());
    assertEquals(List.of(), performed, "nothing reaches the actions without the token");

    HttpResponse<String> ok =
        post("/workflows/split-c0/actions/switch-reads?force=true", "Bearer " + TOKEN);
    assertEquals(202, ok.statusCode(), ok.body());
    JsonNode body = JSON.readTree(ok.body());
    assertEquals("ACCEPTED", body.get("outcome").asText());
    assertEquals("switch-reads accepted", body.get("message").asText());
    assertEquals(List.of("split-c0 switch-reads {force=true}"), performed);
    assertEquals(202, post("/workflows/split-c0/actions/x", "bearer " + TOKEN).statusCode());

    assertEquals(409, post("/workflows/split-c0/actions/late", "Bearer " + TOKEN).statusCode());
    assertEquals(400, post("/workflows/split-c0/actions/bad", "Bearer " + TOKEN).statusCode());
  }

  @Test
  void withoutAConfiguredTokenMutatingCallsAreOff() throws Exception {
    server.stop();
    server = start(config(""));
    base = server.endpoint();
    HttpResponse<String> r = post("/workflows/split-c0/actions/cancel", "Bearer anything-at-all");
    assertEquals(403, r.statusCode());
    assertTrue(r.body().contains("no admin.token"), r.body());
    assertEquals(List.of(), performed);
  }

  @Test
  void wrongMethodsAndPathsAreRefused() throws Exception {
    HttpResponse<String> r = get("/workflows/split-c0/actions/cancel");
    assertEquals(405, r.statusCode());
    assertEquals("POST", r.headers().firstValue("Allow").get());
    assertEquals(405, post("/health", "Bearer " + TOKEN).statusCode());
    assertEquals(404, get("/nothing-here").statusCode());
    assertEquals(List.of(), performed);
  }

  @Test
  void theStatusPageAndItsFilesAreServedFromTheJarAndCannotBePostedTo() throws Exception {
    HttpResponse<String> page = get("/");
    assertEquals(200, page.statusCode());
    assertTrue(page.headers().firstValue("Content-Type").get().startsWith("text/html"));
    assertTrue(page.body().contains("<script src=\"/status.js\">"), page.body());
    assertFalse(page.body().contains("http://") || page.body().contains("https://"), "no network");
    HttpResponse<String> script = get("/status.js");
    assertEquals(200, script.statusCode());
    assertTrue(script.headers().firstValue("Content-Type").get().startsWith("text/javascript"));
    assertTrue(script.body().contains("fetch(path"), "it reads the JSON views");
    assertFalse(script.body().contains("method: \"POST\""), "it cannot act");
    assertEquals(200, get("/status.css").statusCode());
    assertEquals(405, post("/", "Bearer " + TOKEN).statusCode());
    assertEquals(List.of(), performed);
  }

  @Test
  void aHostedWorkflowIsAnsweredFromItsOwnRecordWhileTheTopicDoesNotAnswer() throws Exception {
    server.stop();
    java.util.concurrent.CountDownLatch topicDown = new java.util.concurrent.CountDownLatch(1);
    io.reshard.switcher.WorkflowStore hanging =
        new io.reshard.switcher.WorkflowStore() {
          @Override
          public void save(Workflow w) {}

          @Override
          public Optional<Workflow> load(String name) {
            try {
              topicDown.await(); // as a read of a topic whose broker is gone
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return Optional.empty();
          }

          @Override
          public List<Workflow> list() {
            return List.of();
          }
        };
    Workflow own = store.load("split-c0").orElseThrow();
    WorkflowActions actions =
        new WorkflowActions() {
          @Override
          public Result perform(String workflow, String action, Map<String, String> params) {
            return new Result(Outcome.REFUSED, "not here");
          }

          @Override
          public Optional<Workflow> hostedRecord(String workflow) {
            return workflow.equals("split-c0") ? Optional.of(own) : Optional.empty();
          }
        };
    server = new AdminServer(config(TOKEN), () -> services, hanging, actions, registry);
    server.start();
    try {
      long t0 = System.nanoTime();
      HttpResponse<String> r =
          send(HttpRequest.newBuilder(server.endpoint().resolve("/workflows/split-c0")));
      long waited = (System.nanoTime() - t0) / 1_000_000;
      assertEquals(200, r.statusCode(), r.body());
      JsonNode v = JSON.readTree(r.body());
      assertEquals("split-c0", v.get("name").asText());
      assertTrue(v.get("stale").asBoolean(), r.body());
      assertTrue(
          v.get("stale_reason").asText().contains("the workflows topic did not answer within 3 s"),
          r.body());
      assertTrue(waited < 10_000, "answered after the wait, not the topic's timeout: " + waited);
      HttpResponse<String> other =
          send(HttpRequest.newBuilder(server.endpoint().resolve("/workflows/merge-80")));
      assertEquals(503, other.statusCode(), "not hosted here: nothing to answer from");
      assertTrue(other.body().contains("is the broker at 127.0.0.1:1 running?"), other.body());
    } finally {
      topicDown.countDown();
    }
  }

  @Test
  void keyspacesAreTheViewsGiven() throws Exception {
    server.stop();
    server =
        new AdminServer(
            config(TOKEN),
            () -> services,
            store,
            this::perform,
            registry,
            () -> List.of(Map.of("keyspace", "commerce", "version", 3)));
    server.start();
    HttpResponse<String> r = send(HttpRequest.newBuilder(server.endpoint().resolve("/keyspaces")));
    assertEquals(200, r.statusCode());
    assertEquals(3, JSON.readTree(r.body()).get(0).get("version").asInt(), r.body());
  }

  @Test
  void itListensOnLoopbackOnly() throws Exception {
    InetSocketAddress a = server.address();
    assertTrue(a.getAddress().isLoopbackAddress(), a.toString());
    assertEquals("127.0.0.1", a.getAddress().getHostAddress());
    Optional<InetAddress> external = nonLoopbackAddress();
    if (external.isPresent()) {
      assertThrows(
          IOException.class,
          () -> {
            try (Socket s = new Socket()) {
              s.connect(new InetSocketAddress(external.get(), a.getPort()), 2000);
            }
          },
          "the port must not answer on " + external.get());
    }
  }

  @Test
  void theTokenAndPasswordsNeverAppearInLogsOrResponses() throws Exception {
    get("/health");
    get("/workflows");
    get("/workflows/split-c0");
    get("/metrics");
    post("/workflows/split-c0/actions/cancel", "Bearer " + TOKEN);
    post("/workflows/split-c0/actions/cancel", "Bearer " + PASSWORD);
    post("/workflows/split-c0/actions/" + PASSWORD, "Bearer " + TOKEN);
    post("/workflows/" + TOKEN + "/actions/start", "Bearer " + TOKEN);
    post("/workflows/split-c0/actions/bad", "Bearer " + TOKEN);
    server.stop();
    String logged = log.text();
    assertTrue(logged.contains("admin GET /health -> 200"), "the access log is on: " + logged);
    assertTrue(logged.contains("admin POST /workflows/split-c0/actions/cancel -> 401"), logged);
    String responses = String.join("\n", bodies);
    assertTrue(responses.contains("[hidden]"), "a secret echoed back is replaced");
    for (String secret : List.of(TOKEN, PASSWORD)) {
      assertFalse(logged.contains(secret), "a secret in the log:\n" + logged);
      assertFalse(responses.contains(secret), "a secret in a response:\n" + responses);
    }
  }

  private static Optional<InetAddress> nonLoopbackAddress() throws IOException {
    for (NetworkInterface n : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      if (!n.isUp() || n.isLoopback()) {
        continue;
      }
      for (InetAddress a : Collections.list(n.getInetAddresses())) {
        if (a instanceof Inet4Address) {
          return Optional.of(a);
        }
      }
    }
    return Optional.empty();
  }
}
