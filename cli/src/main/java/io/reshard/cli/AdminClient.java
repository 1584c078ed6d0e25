package io.reshard.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;

/**
 * The operator CLI's client of the daemon's admin endpoint: reads workflow records and posts
 * actions with the bearer token. An action's call waits as long as the action runs (a switch
 * returns when it has finished or been rolled back). Thread-safe.
 */
final class AdminClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * An answer.
   *
   * @param status the HTTP status
   * @param body the JSON body
   */
  record Answer(int status, JsonNode body) {
    /** The action's outcome name ({@code DONE}, {@code REFUSED}, ...), or null. */
    String outcome() {
      return body.path("outcome").isTextual() ? body.get("outcome").asText() : null;
    }

    /** The message or error text. */
    String message() {
      return body.has("message") ? body.get("message").asText() : body.path("error").asText("");
    }
  }

  private final URI base;
  private final String token;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

  AdminClient(URI base, String token) {
    this.base = base;
    this.token = token;
  }

  /** {@code GET /workflows/NAME}: one workflow's record, the name URL-encoded. */
  Answer workflow(String name) throws InterruptedException {
    return get(workflowPath(name));
  }

  /**
   * {@code /workflows/NAME}, the name URL-encoded (UTF-8, a space as {@code %20}, a {@code /} as
   * {@code %2F}), so that no name makes an illegal URI or another endpoint's path.
   */
  static String workflowPath(String name) {
    return "/workflows/" + enc(name);
  }

  /** {@code GET path}; {@code path} must be a legal URI path, encoded where needed. */
  Answer get(String path) throws InterruptedException {
    return send(
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30)).GET().build());
  }

  /** {@code POST /workflows/NAME/actions/ACTION?params}; waits as long as the action runs. */
  Answer act(String workflow, String action, Map<String, String> params)
      throws InterruptedException {
    try {
      return post(workflow, action, params);
    } catch (CommandFailure e) {
      String m = e.getMessage();
      throw new CommandFailure(
          ExitCodes.RETRY_LATER,
          m
              + (m.endsWith(".") || m.endsWith("?") ? " The" : ". The")
              + " outcome of "
              + action
              + " is unknown: see `reshard workflow status "
              + workflow
              + "` (with this command's --cluster or --config). A daemon that died takes the workflow up when it starts again (with --cluster"
              + " the next workflow command starts it): a switch cut short before its journal is"
              + " rolled back, one after it is finished");
    }
  }

  private Answer post(String workflow, String action, Map<String, String> params)
      throws InterruptedException {
    StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
    params.forEach((k, v) -> q.add(enc(k) + "=" + enc(v)));
    URI uri = base.resolve(workflowPath(workflow) + "/actions/" + enc(action) + q);
    return send(
        HttpRequest.newBuilder(uri)
            .header("Authorization", "Bearer " + token)
            .POST(HttpRequest.BodyPublishers.noBody())
            .build());
  }

  private Answer send(HttpRequest request) throws InterruptedException {
    try {
      HttpResponse<String> r = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode body = r.body().isBlank() ? JSON.createObjectNode() : JSON.readTree(r.body());
      return new Answer(r.statusCode(), body);
    } catch (HttpTimeoutException e) {
      if (e instanceof HttpConnectTimeoutException) {
        throw notAnswering(e);
      }
      // connected, but no answer in time: a daemon that waits for Kafka answers this way
      throw new CommandFailure(
          ExitCodes.RETRY_LATER,
          "the daemon at "
              + base
              + " took too long to answer ("
              + e.getMessage()
              + "); it may be waiting for Kafka: check "
              + base
              + "/health and the daemon's log, then retry");
    } catch (IOException e) {
      throw notAnswering(e);
    }
  }

  private CommandFailure notAnswering(IOException e) {
    return new CommandFailure(
        ExitCodes.RETRY_LATER,
        "the daemon's admin endpoint "
            + base
            + " does not answer ("
            + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
            + "); is the daemon running?");
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
