package io.reshard.bench.chaos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
import java.util.function.Supplier;

/**
 * The chaos run's client of the daemon's admin endpoint (docs/daemon.md), found anew on every call
 * in {@code DIR/cluster.json} (a restarted daemon listens on another port) with the token in {@code
 * DIR/daemon.token}. Reads return empty while the daemon is down or does not answer; an action's
 * answer says how it ended ({@link Outcome}), {@link Outcome#DAEMON_DOWN} when the daemon could not
 * be reached or the connection broke before the answer. Thread-safe.
 */
final class AdminEndpoint {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How long a read may take; reads are quick unless the daemon is in trouble. */
  private static final Duration READ_TIMEOUT = Duration.ofSeconds(10);

  /** How long an action may take: a diff or a switch waiting for a catch-up takes a while. */
  private static final Duration ACTION_TIMEOUT = Duration.ofMinutes(15);

  /** How an action ended, from the daemon's outcome (docs/daemon.md) or the transport. */
  enum Outcome {
    DONE,
    /** 503: another action runs, or a transient condition: the driver may simply retry. */
    RETRY_LATER,
    /** No answer: the daemon is down, or died during the call. The driver may retry. */
    DAEMON_DOWN,
    REFUSED,
    ABORTED,
    BAD_REQUEST,
    NOT_FOUND,
    /** Any other answer. */
    ERROR
  }

  /**
   * An answer.
   *
   * @param outcome how it ended
   * @param status the HTTP status, 0 without an answer
   * @param message the daemon's message, or what went wrong with the call
   * @param body the JSON body (an empty object without an answer)
   */
  record Answer(Outcome outcome, int status, String message, JsonNode body) {}

  private final Path dir;
  private final Supplier<Optional<URI>> base;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** The endpoint of the daemon recorded in {@code DIR/cluster.json}, while it runs. */
  AdminEndpoint(Path dir) {
    this(dir, () -> recorded(dir));
  }

  /**
   * An endpoint found by {@code base} (empty while none answers), with the token in {@code
   * DIR/daemon.token}: for tests against a stand-in daemon.
   */
  AdminEndpoint(Path dir, Supplier<Optional<URI>> base) {
    this.dir = dir;
    this.base = base;
  }

  /** {@code GET path}: the body and status, or empty while the daemon cannot be reached. */
  Optional<Answer> get(String path) throws InterruptedException {
    Optional<URI> base = this.base.get();
    if (base.isEmpty()) {
      return Optional.empty();
    }
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(base.get().resolve(path)).timeout(READ_TIMEOUT).GET().build(),
              HttpResponse.BodyHandlers.ofString());
      return Optional.of(answer(r));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** {@code POST /workflows/NAME/actions/ACTION?params}; waits as long as the action runs. */
  Answer act(String workflow, String action, Map<String, String> params)
      throws InterruptedException {
    Optional<URI> base = this.base.get();
    if (base.isEmpty()) {
      return down("the daemon is not running");
    }
    StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
    params.forEach((k, v) -> q.add(enc(k) + "=" + enc(v)));
    URI uri = base.get().resolve("/workflows/" + enc(workflow) + "/actions/" + enc(action) + q);
    try {
      String token = Files.readString(dir.resolve("daemon.token"), StandardCharsets.UTF_8).strip();
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(uri)
                  .timeout(ACTION_TIMEOUT)
                  .header("Authorization", "Bearer " + token)
                  .POST(HttpRequest.BodyPublishers.noBody())
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return answer(r);
    } catch (IOException e) {
      return down(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
    }
  }

  private static Optional<URI> recorded(Path dir) {
    return ClusterDescriptor.read(dir)
        .map(ClusterDescriptor::daemon)
        .filter(d -> ClusterDaemon.isRunning(d.pid()))
        .map(d -> URI.create(d.admin()));
  }

  private static Answer down(String why) {
    return new Answer(Outcome.DAEMON_DOWN, 0, why, JSON.createObjectNode());
  }

  private static Answer answer(HttpResponse<String> r) throws IOException {
    JsonNode body = r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
    String message =
        body.has("message") ? body.get("message").asText() : body.path("error").asText("");
    return new Answer(outcome(r.statusCode(), body), r.statusCode(), message, body);
  }

  private static Outcome outcome(int status, JsonNode body) {
    if (body.path("outcome").isTextual()) {
      try {
        return switch (body.get("outcome").asText()) {
          case "DONE", "ACCEPTED" -> Outcome.DONE;
          default -> Outcome.valueOf(body.get("outcome").asText());
        };
      } catch (IllegalArgumentException e) {
        return Outcome.ERROR;
      }
    }
    return switch (status) {
      case 200 -> Outcome.DONE;
      case 503 -> Outcome.RETRY_LATER;
      case 404 -> Outcome.NOT_FOUND;
      case 409 -> Outcome.REFUSED;
      case 400 -> Outcome.BAD_REQUEST;
      default -> Outcome.ERROR;
    };
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
