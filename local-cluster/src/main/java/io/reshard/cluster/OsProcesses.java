package io.reshard.cluster;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Linux process and port helpers for the local cluster: launching a detached process, telling
 * whether a pid is still the process we started, stopping it, and finding who listens on a port.
 *
 * <p>Identity is checked through {@code /proc/PID/cmdline}: every process of a cluster has the
 * cluster directory in its command line, so a pid that the kernel has recycled for another program
 * is never mistaken for ours, and never signalled. Stateless and thread-safe.
 */
final class OsProcesses {

  private OsProcesses() {}

  /**
   * Starts {@code command} in a new session (through {@code setsid} where it exists), so that a
   * Ctrl-C in the terminal that ran {@code cluster up}, or the end of the JVM that started it, does
   * not reach the server. Standard input is {@code /dev/null}; standard output and error are
   * appended to {@code log}.
   *
   * @return the started process; its pid is the server's own pid ({@code setsid} execs in place)
   * @throws ClusterException if the program cannot be started
   */
  static Process launch(List<String> command, Path workDir, Path log) {
    List<String> full = new ArrayList<>();
    Path setsid = Path.of("/usr/bin/setsid");
    if (Files.isExecutable(setsid)) {
      full.add(setsid.toString());
    }
    full.addAll(command);
    ProcessBuilder pb =
        new ProcessBuilder(full)
            .directory(workDir.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    try {
      return pb.start();
    } catch (IOException e) {
      throw new ClusterException(
          ClusterException.Kind.START_FAILED,
          "cannot start " + command.get(0) + ": " + e.getMessage(),
          e);
    }
  }

  /** The command line of {@code pid} with arguments separated by spaces, if it is running. */
  static Optional<String> commandLine(long pid) {
    if (pid <= 0) {
      return Optional.empty();
    }
    try {
      byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
      if (raw.length == 0) {
        return Optional.empty(); // a zombie has an empty command line
      }
      return Optional.of(new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').trim());
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** True if {@code pid} is running and its command line contains {@code marker}. */
  static boolean isOurs(long pid, String marker) {
    return commandLine(pid).map(c -> c.contains(marker)).orElse(false);
  }

  /** How long a process gets to exit after SIGKILL before {@link #stop} gives up on it. */
  static final Duration KILL_WAIT = Duration.ofSeconds(10);

  /**
   * How long {@link #stop} waits, once a process has exited, for its parent to collect its exit
   * status, so that its pid is gone when {@code stop} returns (an init that reaps slowly, as in
   * some containers and VMs, takes about a second).
   */
  static final Duration REAP_WAIT = Duration.ofSeconds(10);

  /**
   * How {@link #stop} ended.
   *
   * @param wasRunning whether one of ours ran under the pid
   * @param killed whether it took SIGKILL, since it had not exited within the grace after SIGTERM
   * @param reaped whether its pid is gone; false if its parent had not collected its exit status
   *     within {@link #REAP_WAIT} (a zombie, which holds no port, file or memory)
   */
  record Stop(boolean wasRunning, boolean killed, boolean reaped) {
    /** Nothing of ours ran under the pid. */
    static final Stop NOT_RUNNING = new Stop(false, false, true);

    /** The words for the operator's line, e.g. {@code stopped}. */
    String describe(Duration grace) {
      if (!wasRunning) {
        return "was not running";
      }
      String s =
          killed
              ? "stopped with SIGKILL (it had not exited " + grace.toSeconds() + " s after SIGTERM)"
              : "stopped";
      return reaped ? s : s + "; it has exited, but its parent has not collected its exit status";
    }
  }

  /**
   * Stops {@code pid} if it is ours and returns once it has exited and its pid is gone: SIGTERM,
   * then SIGKILL if it has not exited after {@code grace}. Waiting goes by the process handle,
   * which knows the process's start time, so a pid the kernel recycles meanwhile is never waited
   * for nor signalled; a process counts as exited once it is a zombie (its command line reads empty
   * before that, while its threads still wind down, so the marker cannot tell).
   *
   * @return how it ended
   * @throws ClusterException if it is still running {@link #KILL_WAIT} after SIGKILL
   */
  static Stop stop(long pid, String marker, Duration grace) {
    if (!isOurs(pid, marker)) {
      return Stop.NOT_RUNNING;
    }
    ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
    if (handle == null) {
      return Stop.NOT_RUNNING;
    }
    handle.destroy();
    boolean killed = !awaitExit(handle, grace);
    if (killed) {
      handle.destroyForcibly();
      if (!awaitExit(handle, KILL_WAIT)) {
        throw new ClusterException(
            ClusterException.Kind.OTHER,
            "process " + pid + " did not exit even " + KILL_WAIT.toSeconds() + " s after SIGKILL");
      }
    }
    return new Stop(true, killed, awaitGone(handle, REAP_WAIT));
  }

  /** Waits until {@code handle}'s process has exited (is a zombie or gone); false on timeout. */
  private static boolean awaitExit(ProcessHandle handle, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (handle.isAlive() && !isZombie(handle.pid())) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      sleep(Duration.ofMillis(20));
    }
    return true;
  }

  /** Waits until {@code handle}'s pid is gone (its exit status collected); false on timeout. */
  private static boolean awaitGone(ProcessHandle handle, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (handle.isAlive()) {
      if (System.nanoTime() > deadline) {
        return false;
      }
      sleep(Duration.ofMillis(20));
    }
    return true;
  }

  /**
   * True if {@code pid} is a zombie: exited, its exit status not yet collected. The state is the
   * field after the command name in {@code /proc/PID/stat}; the name is in parentheses and may hold
   * spaces or parentheses itself, so the field is found after the last {@code ')'}.
   */
  static boolean isZombie(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      int close = stat.lastIndexOf(')');
      return close >= 0 && stat.startsWith(" Z", close + 1);
    } catch (IOException e) {
      return false; // gone: not a zombie (isAlive says the rest)
    }
  }

  /** True if nothing listens on {@code 127.0.0.1:port} (a bind attempt succeeds). */
  static boolean isPortFree(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Describes the process that listens on TCP {@code port}, from {@code /proc/net/tcp{,6}} and the
   * socket links under {@code /proc/PID/fd}.
   *
   * @return {@code "pid N: command line"}, or empty if no listener (or no permission to see it)
   */
  static Optional<String> portOwner(int port) {
    Optional<String> inode = listeningInode(port);
    if (inode.isEmpty()) {
      return Optional.empty();
    }
    String link = "socket:[" + inode.get() + "]";
    try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path proc : procs) {
        if (holdsSocket(proc.resolve("fd"), link)) {
          long pid = Long.parseLong(proc.getFileName().toString());
          return Optional.of("pid " + pid + ": " + commandLine(pid).orElse("?"));
        }
      }
    } catch (IOException | UncheckedIOException e) {
      return Optional.empty();
    }
    return Optional.empty();
  }

  private static boolean holdsSocket(Path fdDir, String link) {
    try (DirectoryStream<Path> fds = Files.newDirectoryStream(fdDir)) {
      for (Path fd : fds) {
        try {
          if (link.equals(Files.readSymbolicLink(fd).toString())) {
            return true;
          }
        } catch (IOException ignored) {
          // the descriptor closed while we looked
        }
      }
    } catch (IOException ignored) {
      // the process ended, or we may not look
    }
    return false;
  }

  /** The socket inode listening on {@code port}; state 0A is TCP_LISTEN in /proc/net/tcp. */
  private static Optional<String> listeningInode(int port) {
    String hexPort = String.format(":%04X", port);
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      try {
        for (String line : Files.readAllLines(Path.of(table))) {
          String[] f = line.trim().split("\\s+");
          if (f.length > 9 && f[1].endsWith(hexPort) && "0A".equals(f[3])) {
            return Optional.of(f[9]);
          }
        }
      } catch (IOException ignored) {
        // no IPv6, or not Linux
      }
    }
    return Optional.empty();
  }

  /** The last {@code lines} lines of {@code file}, or a note that it cannot be read. */
  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log at " + file + ": " + e.getMessage() + ")";
    }
  }

  /** Finds {@code program} on the PATH or in {@code /usr/sbin}, {@code /usr/bin}. */
  static Optional<Path> findProgram(String program) {
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(List.of(path.split(File.pathSeparator)));
    }
    dirs.addAll(List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin"));
    for (String dir : dirs) {
      Path p = Path.of(dir, program);
      if (Files.isExecutable(p)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ClusterException(ClusterException.Kind.OTHER, "interrupted", e);
    }
  }
}
