package io.reshard.system;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka Connect worker (standalone mode, {@code connect-runtime} from Maven Central) in a
 * JVM of its own, with the plugins the build unpacked into {@code reshard.connect.plugins}
 * (Debezium's JDBC sink), running one connector. Its log goes to {@code connect.log} in its
 * directory.
 */
final class ConnectWorker implements AutoCloseable {
  private final Process process;
  private final Path dir;
  private final int port;
  private final String connector;

  /**
   * Starts the worker with {@code connector}'s settings and waits (at most 120 s) until its task
   * runs.
   *
   * @param dir a directory for its files
   * @param bootstrap the Kafka bootstrap servers
   * @param connector the connector's settings, {@code name} and {@code connector.class} included
   */
  ConnectWorker(Path dir, String bootstrap, Map<String, String> connector) throws Exception {
    this.dir = Files.createDirectories(dir);
    this.port = freePort();
    this.connector = connector.get("name");
    String plugins = System.getProperty("reshard.connect.plugins");
    assertTrue(
        plugins != null && Files.isDirectory(Path.of(plugins)),
        "the build unpacks the Connect plugins into reshard.connect.plugins: " + plugins);
    Properties worker = new Properties();
    worker.put("bootstrap.servers", bootstrap);
    worker.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
    worker.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
    worker.put("key.converter.schemas.enable", "true");
    worker.put("value.converter.schemas.enable", "true");
    worker.put("header.converter", "org.apache.kafka.connect.storage.StringConverter");
    worker.put("offset.storage.file.filename", dir.resolve("offsets").toString());
    worker.put("plugin.path", plugins);
    worker.put("listeners", "http://127.0.0.1:" + port);
    worker.put("connector.client.config.override.policy", "All");
    Path workerFile = dir.resolve("worker.properties");
    store(worker, workerFile);
    Properties c = new Properties();
    c.putAll(connector);
    Path connectorFile = dir.resolve("connector.properties");
    store(c, connectorFile);
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.add("-cp");
    command.add(workerClassPath());
    command.add("org.apache.kafka.connect.cli.ConnectStandalone");
    command.add(workerFile.toString());
    command.add(connectorFile.toString());
    this.process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("connect.log").toFile())
            .start();
    try {
      awaitTaskRunning();
    } catch (Exception | AssertionError e) {
      close(); // the caller gets no worker to close
      throw e;
    }
  }

  /**
   * This JVM's class path without the JDBC drivers and reshard's own modules: the worker needs only
   * connect-runtime, and a plugin brings its own driver (two copies of one driver on the path break
   * its service loading).
   */
  private static String workerClassPath() {
    List<String> kept = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      String e = entry.replace('\\', '/');
      boolean driver = e.contains("mariadb-java-client") || e.contains("mysql-connector");
      boolean ours =
          e.contains("/io/reshard/") || e.endsWith("/classes") || e.endsWith("/test-classes");
      if (!driver && !ours) {
        kept.add(entry);
      }
    }
    return String.join(java.io.File.pathSeparator, kept);
  }

  /** The worker's log. */
  Path log() {
    return dir.resolve("connect.log");
  }

  private void awaitTaskRunning() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI status = URI.create("http://127.0.0.1:" + port + "/connectors/" + connector + "/status");
    long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
    String last = "no answer";
    while (System.nanoTime() < deadline) {
      assertTrue(process.isAlive(), "the Connect worker exited; see " + log());
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(status).GET().build(), HttpResponse.BodyHandlers.ofString());
        last = r.body();
        if (r.statusCode() == 200 && last.contains("\"tasks\":[{") && !last.contains("FAILED")) {
          if (last.replaceAll("\\s", "")
              .matches(".*\"tasks\":\\[\\{[^]]*\"state\":\"RUNNING\".*")) {
            return;
          }
        }
        assertTrue(!last.contains("FAILED"), "the connector failed: " + last);
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(500);
    }
    throw new AssertionError("the connector's task did not run within 120 s: " + last);
  }

  /** The connector's status document, as its REST endpoint gives it. */
  String status() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    URI status = URI.create("http://127.0.0.1:" + port + "/connectors/" + connector + "/status");
    return http.send(
            HttpRequest.newBuilder(status).GET().build(), HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void store(Properties p, Path file) throws IOException {
    try (var out = Files.newBufferedWriter(file)) {
      p.store(out, null);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() throws Exception {
    process.destroy();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
