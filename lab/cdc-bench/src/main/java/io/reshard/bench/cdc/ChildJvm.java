package io.reshard.bench.cdc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one measured engine in a JVM of its own, with this JVM's classpath, and reads back its
 * figures; and, on the child's side, the helpers to take its arguments and report them.
 *
 * <p>Why a child JVM: its process CPU time is the engine's alone (plus the JVM's own threads: JIT
 * and GC, which the engine causes), not the load generator's or the verifier's, and each engine
 * starts cold, as it would in production. Protocol: the child gets {@code key=value} arguments and
 * prints one line {@code RESULT key=value ...} on stdout; its stderr (logs) goes to a file.
 */
final class ChildJvm {
  private static final String RESULT = "RESULT";

  private ChildJvm() {}

  /**
   * Runs {@code main} in a child JVM and returns what it reported.
   *
   * @param jvmOptions extra JVM options (e.g. a JFR recording), may be empty
   * @param log the file receiving the child's stderr
   * @param timeoutSeconds how long the child may run before it is killed
   * @throws IllegalStateException if the child fails, reports nothing or times out
   */
  static Map<String, String> run(
      Class<?> main,
      Map<String, String> args,
      List<String> jvmOptions,
      Path log,
      long timeoutSeconds)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    cmd.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
    cmd.add("-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    cmd.addAll(jvmOptions); // after the defaults, so that they can override them
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    args.forEach((k, v) -> cmd.add(k + "=" + v));
    Process p =
        new ProcessBuilder(cmd)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    Map<String, String> result = new LinkedHashMap<>();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                  if (line.startsWith(RESULT + " ")) {
                    synchronized (result) {
                      result.putAll(parse(line.substring(RESULT.length() + 1).split(" ")));
                    }
                  } else {
                    System.out.println("  [" + main.getSimpleName() + "] " + line);
                  }
                }
              } catch (IOException ignored) {
                // the child ended
              }
            },
            "child-stdout");
    reader.start();
    if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new IllegalStateException(
          main.getSimpleName() + " did not finish in " + timeoutSeconds + " s; log: " + log);
    }
    reader.join(5_000);
    synchronized (result) {
      if (p.exitValue() != 0 || result.isEmpty()) {
        throw new IllegalStateException(
            main.getSimpleName()
                + " failed (exit "
                + p.exitValue()
                + "); last lines of "
                + log
                + ":\n"
                + tail(log, 25));
      }
      return new LinkedHashMap<>(result);
    }
  }

  /** A child's measurement. */
  interface Measurement {
    void run() throws Exception;
  }

  /**
   * Runs a child's measurement and ends the JVM: exit 0 after it, exit 1 (stack trace on stderr) if
   * it throws. The engines leave non-daemon threads behind (Debezium's engine executor, the binlog
   * client's reader), which would otherwise keep a failed child alive until the parent's timeout.
   */
  static void exitWhenDone(Measurement measurement) {
    try {
      measurement.run();
    } catch (Throwable t) {
      t.printStackTrace();
      System.exit(1);
    }
    System.exit(0);
  }

  /** Parses {@code key=value} arguments. */
  static Map<String, String> parse(String[] args) {
    Map<String, String> m = new LinkedHashMap<>();
    for (String a : args) {
      int eq = a.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("expected key=value, got " + a);
      }
      m.put(a.substring(0, eq), a.substring(eq + 1));
    }
    return m;
  }

  /** A required argument. */
  static String arg(Map<String, String> args, String key) {
    String v = args.get(key);
    if (v == null) {
      throw new IllegalArgumentException("missing argument " + key + " in " + args.keySet());
    }
    return v;
  }

  /** This JVM's process CPU time (user + system, every thread), nanoseconds. */
  static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** Prints the result line the parent reads; values must not contain spaces. */
  static void report(Map<String, ?> figures) {
    StringBuilder b = new StringBuilder(RESULT);
    figures.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
    System.out.println(b);
    System.out.flush();
  }

  private static String tail(Path log, int lines) {
    try {
      List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(cannot read the log: " + e.getMessage() + ")";
    }
  }
}
