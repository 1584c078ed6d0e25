package io.reshard.cli;

import io.reshard.cluster.ClusterDaemon;
import io.reshard.cluster.ClusterDescriptor;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Starts a cluster's daemon detached ({@code reshard daemon --cluster DIR --background}) and waits
 * until it is usable: it has recorded itself in {@code DIR/cluster.json} and its {@code /health}
 * answers. Also keeps the cluster's admin token file. Used by {@link DaemonCommand} only.
 */
final class DaemonLauncher {
  /**
   * How long the daemon gets to come up: a JVM start, the admin endpoint, and the record in
   * cluster.json (capture connects in the background and does not delay it).
   */
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);

  private static final Duration POLL = Duration.ofMillis(200);

  /** Exit codes of a child that refused to start, passed through as they are. */
  private static final Set<Integer> PASSED_THROUGH =
      Set.of(ExitCodes.USAGE, ExitCodes.REFUSED, ExitCodes.RETRY_LATER);

  /**
   * A daemon that started and answers.
   *
   * @param pid its process id
   * @param admin its admin endpoint, e.g. {@code http://127.0.0.1:41234}
   * @param log the file its output goes to
   */
  record Started(long pid, String admin, Path log) {
    /** {@code reshard daemon: pid N, admin endpoint URL, log FILE}. */
    String summary() {
      return "reshard daemon: pid " + pid + ", admin endpoint " + admin + ", log " + log;
    }
  }

  private final Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  DaemonLauncher(Path dir) {
    this.dir = dir;
  }

  /**
   * Launches {@code command} and waits until the daemon is ready, has died, or the timeout passed
   * (then it is stopped).
   *
   * @return the daemon, once it answers
   * @throws CommandFailure if it exited at start (with its exit code if that is {@link
   *     ExitCodes#USAGE}, {@link ExitCodes#REFUSED} or {@link ExitCodes#RETRY_LATER}, else {@link
   *     ExitCodes#ERROR}) or was not ready in time; the message has the last lines of its log
   */
  Started launch(List<String> command) throws InterruptedException {
    Process p = ClusterDaemon.launch(dir, command);
    Path log = dir.resolve(ClusterDaemon.LOG_FILE);
    long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!p.isAlive()) {
        int code = p.exitValue();
        throw new CommandFailure(
            PASSED_THROUGH.contains(code) ? code : ExitCodes.ERROR,
            "the daemon exited at start (exit code "
                + code
                + "); last lines of "
                + log
                + ":\n"
                + tail(log, 20));
      }
      Optional<ClusterDescriptor.DaemonProcess> recorded =
          ClusterDescriptor.read(dir).map(ClusterDescriptor::daemon);
      if (recorded.isPresent()
          && recorded.get().pid() == p.pid()
          && healthAnswers(recorded.get().admin())) {
        return new Started(p.pid(), recorded.get().admin(), log);
      }
      Thread.sleep(POLL.toMillis());
    }
    p.destroy(); // SIGTERM: its shutdown hook stops what it started
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    throw new CommandFailure(
        ExitCodes.ERROR,
        "the daemon was not ready within "
            + READY_TIMEOUT.toSeconds()
            + " s and was stopped; last lines of "
            + log
            + ":\n"
            + tail(log, 20));
  }

  /**
   * The command line of a detached cluster daemon: this JVM's java, JVM options and class path,
   * then {@code daemon --cluster DIR} and {@code args}.
   */
  static List<String> clusterCommand(Path dir, List<String> args) {
    List<String> cmd = new java.util.ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ReshardCli.class.getName());
    cmd.add("daemon");
    cmd.add("--cluster");
    cmd.add(dir.toAbsolutePath().normalize().toString());
    cmd.addAll(args);
    return cmd;
  }

  private boolean healthAnswers(String admin) {
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(URI.create(admin + "/health"))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Returns {@code file}, creating it first with a random 256-bit token (hex) readable by its owner
   * only, if it does not exist. The daemon reads its admin token from there ({@code
   * ${file:DIR/daemon.token}}), so it is never on a command line; operator tools read it too.
   */
  static Path ensureToken(Path file) {
    if (Files.exists(file)) {
      return file;
    }
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    try {
      Path tmp =
          Files.createTempFile(
              file.getParent(),
              file.getFileName().toString(),
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(tmp, HexFormat.of().formatHex(raw) + "\n", StandardCharsets.UTF_8);
      Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the admin token file " + file, e);
    }
  }

  private static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }
}
