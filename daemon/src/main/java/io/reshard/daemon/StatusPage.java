package io.reshard.daemon;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * The status page's files ({@code GET /}, {@code /status.js}, {@code /status.css}), read from the
 * daemon's own jar: the page loads nothing from the network. Its script polls the JSON views of
 * {@link AdminServer}; it has no way to act (actions stay on the token-protected API).
 */
final class StatusPage {
  /** A file of the page: its content type and text. */
  record Asset(String type, String text) {}

  private static final Map<String, Asset> ASSETS =
      Map.of(
          "/", load("index.html", "text/html; charset=utf-8"),
          "/status.js", load("status.js", "text/javascript; charset=utf-8"),
          "/status.css", load("status.css", "text/css; charset=utf-8"));

  private StatusPage() {}

  /** The file served at {@code path}, if the page has one there. */
  static Optional<Asset> asset(String path) {
    return Optional.ofNullable(ASSETS.get(path));
  }

  private static Asset load(String name, String type) {
    String resource = "status/" + name;
    try (InputStream in = StatusPage.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("the daemon's jar lacks " + resource);
      }
      return new Asset(type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
